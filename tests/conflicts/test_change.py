"""A newer memory that reports a change to a close, older one."""

from __future__ import annotations

import pytest

from benchmarks.conflict_quality import FRESH, FRESH2, UPDATES, evaluate, load_pairs, similarities, split
from hub.conflicts import RuleJudge, Statement, Verdict
from hub.conflicts.judge.change import (
    about_other_people,
    change_cue,
    named_change,
    reported_change,
    shared_topic,
    speech,
)
from hub.embedding import Embedder

FUTSAL = "Marcus plays five-a-side soccer Thursday nights at Fitzroy Futsal."
QUIT = "Marcus: quit the thursday futsal, knee can't take it anymore"


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("Priya: ok so swimming is thursdays from now on, same time", "from now on"),
        ("Netflix was downgraded to the Basic plan, 39.90 shekels a month.", "downgraded"),
        (
            "The vet brought the beagle's rabies shot forward to May 28.",
            "brought the beagle's rabies shot forward",
        ),
        ("Rosa now comes fortnightly on Mondays instead of every Friday.", "now"),  # a habit, but "now"
        ("Avital added a Pilates class on Wednesday evenings.", None),  # an addition
        ("Ma'afiyat Hadar now also opens on Saturday nights.", None),
        ("Is swimming on Thursdays now?", None),  # a question
        ("Ruth's hearing aid batteries are replaced monthly.", None),  # a habit, not a change
        ("Eyal's judo tournament is on March 30 in Kiryat Ata.", None),
        ("I'm busy right now", None),
        ("Shiri: omg sorry!! sending now", None),  # at this moment, not from now on
        ("Lior left Kelim Labs; Netanel now reports to Tamar Levi.", "left"),
        ("Pilpel keeps scratching his left ear.", None),  # "left" the side
        ("The kill switch is settlement.v2.enabled.", None),  # "switch" the noun
        ("Avi's old printer should be sold online.", None),  # a plan
        ("Netanel wants to switch to Hot Mobile.", None),  # a wish
        ("Starting next week Svetlana will come on Sundays instead of Thursdays.", "instead"),
        # How people say a role, a plan, a contract or a price changed.
        ("Gil stepped down as assistant coach of Eyal's team.", "stepped down"),
        ("Tali's son looks after Kuki rather than boarding him.", "rather than"),
        ("Shira's party is at the garden after the Elma booking fell through.", "fell through"),
        ("The Budget Direct policy lapsed in January.", "lapsed"),
        ("Avital renewed her passport; the new one is valid until August 2035.", "renewed"),
        ("Itai's passport must be renewed before any trip abroad.", None),  # a duty, not a change
        ("Priya handed the treasurer role over to Karen Walsh.", "handed the treasurer role over"),
        ("Svetlana's rate went up to 340 shekels a visit.", "went up"),
        ("Marcus: netflix went up again, it's $20.99 now", "went up"),
        ("We went up north for the weekend.", None),  # a direction, not a price
        # "too" before a word is "overly", no addition.
        ("Priya: yoga's sundays 9am for me now, thursday evenings too hectic", "now"),
        ("Ella's netball is cancelled this Monday only, the hall is booked.", None),  # one occasion
        ("Katrin: swimming is thursdays from now on, starting next thursday", "from now on"),
        ("Zoe: i dont want a switch anymore, can i get a kindle instead??", "anymore"),  # then a question
        ("Tom: magda's switched us to every other friday from next week", "switched"),  # the new habit
        ("Rachel: we've given up on gousto, back to meal planning", "given up"),
        ("Svetlana is off 22 Jul to 5 Aug; her cousin Olga covers the Wednesdays.", None),  # on leave
        ("assistant: If it runs hot, set the dial twenty degrees lower for now.", None),  # for the moment
        ("Dana took the day off on Monday.", None),
        # A choice reversed after all; "After all," opening a sentence gives a reason.
        ("Cabinets will be grey after all, Amir preferred them.", "after all"),
        ("After all, Dana is the boss.", None),
    ],
)
def test_change_cues(text: str, cue: str | None) -> None:
    assert change_cue(text) == cue


def test_state_cues_date_the_whole_sentence_and_since_or_after_is_one() -> None:
    # "since March" / "Since ..., ": the state of things from then on.
    assert change_cue("Priya has cycled to work along the Upfield bike path since March.") == "since march"
    assert change_cue("Since Ruth's hip surgery, the Friday dinner is hosted at Avital's.") == "since"
    assert (
        change_cue("After refinancing at Mizrahi Tefahot, the mortgage payment is 6,650 shekels.") == "after"
    )
    alarm = "Weekday alarm is at 6:40; on Fridays it is off."
    assert shared_topic(alarm, "Since the school year started, the weekday alarm is at 6:25.") >= {"alarm"}
    # ... unless the older statement gives the same start: the same news.
    assert (
        change_cue("Since 2021 the family has lived in Ramat Gan.", "The family moved to Ramat Gan in 2021.")
        is None
    )
    # A state cue speaks of its whole sentence, whatever it names first ...
    challah = "The family's Shabbat challah comes from the Ma'afiyat Hadar bakery every Friday."
    assert shared_topic(
        challah, "They buy their Friday challah at Bread and Butter on Moriah these days."
    ) >= {"challah"}
    # ... "instead" of the words next to it.
    plan = "Netanel's phone plan is with Golan Telecom, 39 shekels a month with 500 GB."
    assert (
        shared_topic(plan, "Netanel bought a 10 GB eSIM from Airalo for Crete instead of roaming.") == set()
    )


def test_since_dates_a_sentence_when_a_past_event_or_a_present_perfect_goes_with_it() -> None:
    assert change_cue("Shira walks to school with her friend Lior since the 37 bus line was cut.") == "since"
    riding = "Zoe has been riding her bike to school since the new timetable cut the 8:05 run."
    assert change_cue(riding) == "has been riding her bike to school since"
    assert shared_topic("Zoe takes the 8:05 bus (route 508) to school.", riding) >= {"school", "8:05"}
    # "since" as "because" is no change.
    assert change_cue("Noa's backpack is in the loft since nobody uses it anymore.") == "anymore"
    assert change_cue("The party is at Dana's since she has the bigger garden.") is None


def test_a_possessor_near_the_cue_is_not_what_changed() -> None:
    # The tires were replaced, not the Corolla.
    older = "Gil drives a 2016 Toyota Corolla."
    assert shared_topic(older, "Gil replaced the Corolla's tires with Michelin Primacy 4 last week.") == set()
    assert shared_topic(older, "Gil sold the Corolla and bought a used 2020 Hyundai Ioniq.") == {"corolla"}


def test_another_verb_of_the_same_change_is_no_news() -> None:
    assert change_cue("Netanel quit smoking in 2019.", "Netanel stopped smoking in 2019.") is None
    assert change_cue("Netanel quit smoking in 2019.", "Netanel smokes a pack a day.") == "quit"


def test_a_rate_is_a_price() -> None:
    # "charges A$45 an hour" / "my rate is 50 dollars per hour": both about what Rosa is paid.
    rate = "Rosa: Hi Priya, from next month my rate is 50 dollars per hour, thank you for understanding"
    assert shared_topic("The cleaner Rosa charges A$45 an hour.", rate) == {"pay"}


def test_a_negated_addition_adds_nothing() -> None:
    ended = "Gil's online Spanish course with Instituto Cervantes ended in June, and he hasn't signed up for another."
    assert change_cue(ended) == "ended"
    assert change_cue("Gil's Spanish course moved to Mondays, and he also takes French.") is None
    # An addition in another clause does not make the change one: "another" is Avi's other job.
    assert change_cue("Contractor start moved to 10 March; Avi had another job running late.") == "moved"


def test_a_cue_the_older_statement_says_too_reports_no_change() -> None:
    older = "Yael: if the forecast is over 60% rain I cancel the saturday ride by 21:00 on friday"
    summary = "assistant: Summary: Yael cancels the Saturday ride by 21:00 Friday if rain is over 60%"
    assert change_cue(summary) == "cancels"
    assert change_cue(summary, older) is None


def test_the_same_words_around_a_cue_in_both_are_no_news() -> None:
    older = "Noa's borrowed backpack is in the loft since nobody in the family uses it anymore."
    assert change_cue("Noa's small backpack is in the loft; nobody uses it anymore.", older) is None
    # "now" in both, said of different people: the newer one is news.
    pickups = "With Dana's new hours, she now does all weekday pickups except Thursday."
    assert change_cue("Netanel now does Monday and Thursday pickups and Dana the rest.", pickups) == "now"


def test_a_reported_change_needs_a_shared_topic() -> None:
    # Close, a cue, but nothing in common beyond the person: not a change of the older fact.
    older, newer = "Itai's bedtime is 20:00 on school nights.", "Itai can read short words now."
    assert shared_topic(older, newer) == set()
    assert reported_change(older, newer, similarity=0.9, threshold=0.5) is None
    assert shared_topic(FUTSAL, QUIT) >= {"futsal"}
    # A day alone is no topic.
    dentist = "Booked Noa's dentist appointment for Thursday at 11:00."
    hours = "Noa works until 17:00 on Tuesdays and Thursdays since March."
    assert shared_topic(dentist, hours) == {"thursday"}
    assert reported_change(dentist, hours, similarity=0.9, threshold=0.5) is None
    # What the older one says must be near the cue: the siphon was replaced, not the booking.
    booked = "Called plumber Yaakov Dahan about the drip under the main bathroom sink; he comes Wed 07:30."
    invoice = "Dahan replaced the siphon and both flexible hoses under the main bathroom sink; paid 520 NIS."
    assert shared_topic(booked, invoice) == set()


def test_a_chat_speaker_is_not_part_of_what_is_said() -> None:
    assert speech(QUIT) == "quit the thursday futsal, knee can't take it anymore"
    assert speech("Hotel on Crete: Kiani Beach Resort") == "Hotel on Crete: Kiani Beach Resort"


def test_two_named_people_are_other_people_unless_one_is_named_on_both_sides() -> None:
    assert about_other_people(
        "Lakshmi's cardiologist is Dr. Menon at the Austin Hospital.",
        "Yosef switched cardiologists to Dr. Feldman at Rambam.",
    )
    assert not about_other_people(
        "Grandma Ruth's caregiver is Maria, who comes weekdays from 08:00 to 14:00.",
        "Jocelyn took over from Maria as Ruth's caregiver in April; same hours.",
    )
    assert about_other_people("Jürgen's dentist is Dr Weber.", "Björn switched dentists to Dr Kaya.")
    # The speaker is not the subject; "the kids" names nobody.
    assert not about_other_people("Eli's swimming lessons are Tuesdays.", "Priya: swimming is thursdays now")
    assert not about_other_people(
        "The kids' camp is at the Technion.", "Shira and Eyal go to scouts camp now."
    )


def test_a_reported_change_needs_closeness() -> None:
    assert reported_change(FUTSAL, QUIT, similarity=0.55, threshold=0.5) == "quit"
    assert reported_change(FUTSAL, QUIT, similarity=0.44, threshold=0.5) is None
    # A little less close, the change must name two things the older one says (futsal, thursday).
    assert reported_change(FUTSAL, QUIT, similarity=0.46, threshold=0.5) == "quit"
    swim, moved = (
        "Eli's swimming lessons are Tuesdays at MSAC.",
        "Priya: ok so swimming is thursdays from now on",
    )
    assert reported_change(swim, moved, similarity=0.52, threshold=0.5) == "from now on"
    assert reported_change(swim, moved, similarity=0.46, threshold=0.5) is None


def test_what_a_change_is_done_to() -> None:
    # A named thing acted on is the topic: "Netflix was cancelled", "switched prime to annual".
    netflix = "Netflix is on the Standard plan, £10.99 a month."
    assert reported_change(netflix, "The Netflix subscription was cancelled in March.", 0.56, 0.5) == (
        "cancelled"
    )
    prime = "Amazon Prime is billed monthly at £8.99 to Tom's card."
    assert reported_change(prime, "Tom: switched prime to annual, paid the £95 in one go", 0.65, 0.5) == (
        "switched"
    )
    # Who acts is not: "Virgin Media replaced the old router".
    broadband = "The broadband is Virgin Media."
    assert reported_change(broadband, "Virgin Media replaced the old router with a Hub 5.", 0.67, 0.5) is None
    # A thing the older statement does not name, a rise of no amount it gives.
    spotify = "Avital's Spotify is the Duo plan shared with Gil."
    assert (
        reported_change(spotify, "Gil switched his podcast app from Spotify to Pocket Casts.", 0.61, 0.5)
        is None
    )
    fund = "The household's health fund is Maccabi, with Maccabi Sheli supplementary insurance."
    assert reported_change(fund, "Maccabi raised the Maccabi Sheli premium to 98 shekels.", 0.63, 0.5) is None


def test_a_change_far_in_meaning_must_name_what_the_older_one_is_about() -> None:
    power = "Household electricity is with AGL on the Value Saver plan."
    switched = "The household switched electricity to Powershop as of 1 October."
    assert reported_change(power, switched, similarity=0.44, threshold=0.5) == "switched"
    assert reported_change(power, switched, similarity=0.34, threshold=0.5) is None
    # Far in meaning, only the cue's own clause counts: "he's a US 3 now" says nothing of boots.
    boots = "Zoe's football boots are Adidas Copa size US 5."
    news = "Marcus: eli needs new boots, he's a US 3 now, got him the puma ones"
    assert reported_change(boots, news, similarity=0.42, threshold=0.5) is None


def test_a_named_change_is_to_a_thing_the_older_one_names_of_the_same_subject() -> None:
    gym = "Netanel's Holmes Place Azrieli membership costs 289 shekels a month, charged on the 3rd."
    assert (
        named_change(gym, "Netanel cancelled the Holmes Place membership; he only cycles now.") == "cancelled"
    )
    # Another subject, the same name.
    assert named_change(gym, "Dana cancelled her Holmes Place trial pass.") is None
    # The same subject, a change, but to nothing the older one names (the shared topic is no name).
    assert named_change("Itai's teacher is Orna.", "Itai's swimming teacher changed to Gil.") is None
    # The same words, no change reported.
    assert named_change(gym, "Netanel goes to Holmes Place on Sundays.") is None


def test_the_judge_infers_a_conflict_from_a_reported_change_only_when_given_closeness() -> None:
    judge = RuleJudge(change_similarity=0.5)
    rules = judge.judge(Statement(FUTSAL), Statement(QUIT))
    assert rules.verdict is not Verdict.conflict
    inferred = judge.judge(Statement(FUTSAL), Statement(QUIT), similarity=0.55)
    assert (inferred.verdict, inferred.inferred) == (Verdict.conflict, True)
    assert "'quit'" in inferred.reason
    assert judge.judge(Statement(FUTSAL), Statement(QUIT), similarity=0.44).verdict is rules.verdict
    # A conflict the rules find from values stays theirs, not inferred.
    found = judge.judge(
        Statement("Mitzi's checkup is on November 14."),
        Statement("Mitzi's checkup is now on November 21."),
        0.9,
    )
    assert (found.verdict, found.inferred) == (Verdict.conflict, False)


def test_update_pairs_meet_the_measured_marks(embedder: Embedder) -> None:
    """benchmarks/data/update_pairs.jsonl, as the review judges them: the marks are what was measured
    (recall 0.817 and precision 0.980 on dev, 0.733 and 0.978 held out), a little below."""
    pairs = load_pairs(UPDATES)
    close = similarities(embedder, pairs)
    judge = RuleJudge()
    parts = split(pairs)
    dev, held_out = (evaluate(judge, parts[name], close) for name in ("dev", "held_out"))
    assert dev["conflict_recall"] >= 0.8 and dev["conflict_precision"] >= 0.95
    assert held_out["conflict_recall"] >= 0.7 and held_out["conflict_precision"] >= 0.95
    # The rules alone, without closeness, find few of the same updates.
    assert evaluate(judge, pairs)["conflict_recall"] <= 0.2


def test_fresh_update_pairs_meet_the_measured_marks(embedder: Embedder) -> None:
    """benchmarks/data/update_pairs_fresh.jsonl, written blind after the rule was fitted (its misses
    since read, so spent): measured recall 0.860 and precision 0.977 (0.300 and 1.000 by the rules
    alone), marks a little below."""
    pairs = load_pairs(FRESH)
    assert len(pairs) == 100 and sum(p["label"] == "conflict" for p in pairs) == 50
    assert {p["split"] for p in pairs} == {"held_out"} and len({p["id"] for p in pairs}) == 100
    result = evaluate(RuleJudge(), pairs, similarities(embedder, pairs))
    assert result["conflict_recall"] >= 0.83 and result["conflict_precision"] >= 0.95
    assert evaluate(RuleJudge(), pairs)["conflict_recall"] <= 0.35


def test_second_fresh_update_pairs_meet_the_measured_marks(embedder: Embedder) -> None:
    """benchmarks/data/update_pairs_fresh2.jsonl, written blind and never read by whoever writes rules:
    measured recall 0.520 and precision 0.788 with the judge of e276865, 0.520 and 0.867 with that of
    d2845c9; marks a little below."""
    pairs = load_pairs(FRESH2)
    assert (
        len(pairs) == 100
        and len({p["id"] for p in pairs}) == 100
        and {p["split"] for p in pairs} == {"held_out"}
    )
    counts = {
        label: sum(p["label"] == label for p in pairs)
        for label in ("conflict", "compatible", "same", "different_subject")
    }
    assert counts == {"conflict": 50, "compatible": 25, "same": 13, "different_subject": 12}
    result = evaluate(RuleJudge(), pairs, similarities(embedder, pairs))
    assert result["conflict_recall"] >= 0.5 and result["conflict_precision"] >= 0.85


def test_update_pairs_are_well_formed() -> None:
    pairs = load_pairs(UPDATES)
    assert len(pairs) == 240 and len({p["id"] for p in pairs}) == 240
    assert {p["label"] for p in pairs} == {"conflict", "compatible", "same", "different_subject"}
    assert sum(p["label"] == "conflict" for p in pairs) == 120
    # Half of each label of each writer's file held out (the odd one to dev).
    parts = split(pairs)
    for label in ("conflict", "compatible", "same", "different_subject"):
        dev, held_out = (sum(p["label"] == label for p in parts[name]) for name in ("dev", "held_out"))
        assert 0 <= dev - held_out <= 2, label
