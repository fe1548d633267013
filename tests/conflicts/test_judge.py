"""The default conflict judge, on the brief's examples, structured claims and the labelled set."""

from __future__ import annotations

import pytest

import hub.conflicts
from benchmarks.conflict_quality import evaluate, load_pairs, split
from hub.conflicts import Judgement, RuleJudge, Severity, Statement, Verdict
from hub.conflicts.judge.chat import speaker, speech
from hub.conflicts.judge.pairmodel import vocabulary


def judge(a: str, b: str) -> Judgement:
    return RuleJudge().judge(Statement(a), Statement(b))


def test_changed_end_of_workday_is_a_medium_conflict() -> None:
    result = judge("Netanel works until 20:00.", "Netanel finishes work at 18:00.")
    assert (result.verdict, result.severity) == (Verdict.conflict, Severity.medium)
    assert "20:00 → 18:00" in result.reason


def test_same_attribute_of_another_person_is_a_different_subject() -> None:
    result = judge("Netanel works until 20:00.", "Dana works until 18:00.")
    assert (result.verdict, result.severity) == (Verdict.different_subject, None)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Netanel works until 20:00.", "Netanel's workday ends at 8pm."),
        ("Noa is allergic to peanuts.", "Noa has a peanut allergy."),
        ("Dana starts work at 8:30.", "Dana begins her workday at half past eight."),
        # Negation words that do not flip the claim.
        ("Netanel never misses the Monday standup.", "Netanel always attends the Monday standup."),
    ],
)
def test_paraphrase_is_the_same_fact(a: str, b: str) -> None:
    assert judge(a, b).verdict is Verdict.same


def test_a_loose_paraphrase_is_at_least_never_a_conflict() -> None:
    # "Same" folds one memory into another, so the judge says it only when near-certain; a looser
    # paraphrase stays two compatible memories rather than risk folding two different facts.
    assert judge("I never skip breakfast.", "I always eat breakfast.").verdict is Verdict.compatible


def test_one_differing_thing_is_not_the_same_fact() -> None:
    verdict = judge(
        "Avi's fancy desk needs a new charger before the trip to the north next spring",
        "Avi's favourite stroller needs a new charger before the trip to the north next spring",
    ).verdict
    assert verdict is not Verdict.same


def test_allergy_polarity_flip_is_a_high_conflict() -> None:
    result = judge("Noa is allergic to peanuts.", "Noa has no food allergies.")
    assert (result.verdict, result.severity) == (Verdict.conflict, Severity.high)


@pytest.mark.parametrize("relative", ["Her parents live in Haifa.", "Dana's parents live in Haifa."])
def test_a_relative_of_the_subject_is_compatible(relative: str) -> None:
    assert judge("Dana lives in Haifa.", relative).verdict is Verdict.compatible


@pytest.mark.parametrize(
    ("a", "b", "severity"),
    [
        ("Netanel lives in Tel Aviv.", "Netanel moved to Ramat Gan.", Severity.medium),
        (
            "Omer's piano lesson is at 4pm on Wednesdays.",
            "Omer's piano lesson moved to 5pm.",
            Severity.medium,
        ),
        ("The rent is 6,500 shekels a month.", "The rent is 7,200 shekels a month.", Severity.high),
        ("Dana is Netanel's wife.", "Dana is Netanel's sister.", Severity.high),
        ("Dana's favourite colour is green.", "Dana's favourite colour is blue.", Severity.low),
        ("The owner prefers WhatsApp over email.", "The owner prefers email over WhatsApp.", Severity.low),
        # A severe allergen is health, named allergy or not; a name is not money or a key.
        ("Noa can't have peanuts.", "Noa can have peanuts now.", Severity.high),
        ("Itai can't have shellfish.", "Itai eats shellfish now.", Severity.high),
        ("Dana's new boss is a man named Bill.", "Dana's new boss is Greg.", Severity.medium),
        ("Our handyman is called Key Amsalem.", "Our handyman is Moshe Dahan.", Severity.medium),
        ("Noa keeps her EpiPen in the blue bag.", "Noa keeps her EpiPen in the red bag.", Severity.high),
    ],
)
def test_changed_values_and_update_cues_conflict(a: str, b: str, severity: Severity) -> None:
    result = judge(a, b)
    assert (result.verdict, result.severity) == (Verdict.conflict, severity)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Noa is allergic to peanuts.", "Noa is also allergic to sesame."),  # a second value, not a new one
        ("Netanel works until 20:00.", "Netanel works from home on Fridays."),  # another attribute
        ("Netanel works until 20:00 on Mondays.", "Netanel works until 17:00 on Fridays."),  # another day
        ("Netanel is no longer on the night shift.", "Netanel works day shifts at the hospital."),
        ("Dana stopped drinking coffee.", "Dana drinks green tea every morning."),
        # another occasion: this year's race and next year's wish
        (
            "Netanel signed up for the Gran Fondo Eilat on November 14, the 120 km route.",
            "Next year Netanel wants to try the 160 km route of the Gran Fondo.",
        ),
        # one dated occasion against a routine
        (
            "Maisie does ballet on Wednesdays at Dancewise Studio.",
            "Maisie's ballet show is on 21 June at the Forum, tickets by Friday.",
        ),
        # names of two things: a school, a teacher
        ("Lena goes to the Grundschule am Park.", "Lena's class got a new teacher, Herr Brandt."),
        # a negation of something the other does not say: "no arguing"
        (
            "Zoe's bedtime on school nights is 8:30pm.",
            "Marcus: zo's bedtime school nights is 8:30, no arguing",
        ),
    ],
)
def test_facts_that_hold_together_are_compatible(a: str, b: str) -> None:
    assert judge(a, b).verdict is Verdict.compatible


def test_the_same_value_for_two_people_is_still_a_different_subject() -> None:
    assert (
        judge("Netanel starts work at 9:00.", "Dana starts work at 9:00.").verdict
        is Verdict.different_subject
    )


def claim(subject: str, attribute: str, value: str | None, kind: str = "fact") -> Statement:
    return Statement(
        f"{subject} {attribute}: {value}", subject=subject, attribute=attribute, value=value, kind=kind
    )


@pytest.mark.parametrize(
    ("a", "b", "verdict"),
    [
        (claim("Netanel", "work_end", "20:00"), claim("netanel", "work end", "18:00"), Verdict.conflict),
        (claim("Netanel", "work_end", "20:00"), claim("Netanel", "work_end", "8pm"), Verdict.same),
        (claim("Netanel", "city", "Tel Aviv"), claim("Netanel", "city", " tel aviv."), Verdict.same),
        (claim("I", "city", "Haifa"), claim("the owner", "city", "Jaffa"), Verdict.conflict),
        (
            claim("Netanel", "work_end", "20:00"),
            claim("Dana", "work_end", "18:00"),
            Verdict.different_subject,
        ),
        (claim("Netanel", "work_end", "20:00"), claim("Netanel", "work_start", "09:00"), Verdict.compatible),
    ],
)
def test_structured_claims_are_compared_exactly(a: Statement, b: Statement, verdict: Verdict) -> None:
    assert RuleJudge().judge(a, b).verdict is verdict


def test_structured_conflict_severity_follows_the_rule() -> None:
    result = RuleJudge().judge(claim("Noa", "allergy", "peanuts"), claim("Noa", "allergy", "none"))
    assert (result.verdict, result.severity) == (Verdict.conflict, Severity.high)
    assert result.reason == "value changed: peanuts → none"
    taste = RuleJudge().judge(
        claim("Dana", "coffee order", "black", "preference"),
        claim("Dana", "coffee order", "latte", "preference"),
    )
    assert taste.severity is Severity.low


def test_structured_claim_on_one_side_only_falls_back_to_text() -> None:
    a = claim("Netanel", "work_end", "20:00")
    b = Statement("Netanel finishes work at 18:00.")
    result = RuleJudge().judge(Statement("Netanel works until 20:00.", a.subject, a.attribute, a.value), b)
    assert result.verdict is Verdict.conflict


def test_judging_is_symmetric_in_verdict_on_the_labelled_set() -> None:
    judge_ = RuleJudge()
    for pair in load_pairs():
        forward = judge_.judge(Statement(pair["a"]), Statement(pair["b"])).verdict
        backward = judge_.judge(Statement(pair["b"]), Statement(pair["a"])).verdict
        assert forward is backward, pair["id"]


def test_labelled_set_meets_the_targets() -> None:
    pairs = load_pairs()
    assert len(pairs) >= 240
    result = evaluate(RuleJudge(), pairs)
    assert result["conflict_precision"] >= 0.95
    assert result["conflict_recall"] >= 0.85
    held_out = evaluate(RuleJudge(), split(pairs)["held_out"])
    assert held_out["conflict_precision"] >= 0.9


def test_labelled_set_is_well_formed() -> None:
    pairs = load_pairs()
    assert len({p["id"] for p in pairs}) == len(pairs)
    for pair in pairs:
        assert pair["label"] in {v.value for v in Verdict}
        if pair["label"] == "conflict":
            assert pair["severity"] in {s.value for s in Severity}
        else:
            assert pair["severity"] is None


def test_public_names_are_exported() -> None:
    for name in hub.conflicts.__all__:
        assert hasattr(hub.conflicts, name)


def test_a_statement_that_names_the_old_value_as_replaced_conflicts() -> None:
    # Different wording of the attribute ("insured with" / "insurance moved"), but the newer one says
    # the older one's value is gone.
    result = judge(
        "The Skoda Octavia is insured with Harel.", "The Skoda's insurance moved from Harel to Migdal."
    )
    assert result.verdict is Verdict.conflict and "Harel" in result.reason
    # Naming some other old value is no conflict with this one.
    other = judge(
        "The Skoda Octavia is insured with Harel.", "The Skoda's parking moved from Level 2 to Level 3."
    )
    assert other.verdict is not Verdict.conflict


def test_a_chat_message_is_about_what_its_speaker_says_and_their_i_is_theirs() -> None:
    # Two messages of one speaker about two things: the speaker is no subject they share.
    party = judge(
        "Noa: its friday the 26th at the Ramat Gan country club from 11 to 2",
        "Noa: its Noa. Yuval's birthday is an escape room!!! sunday 3 jan at 17:00",
    )
    assert party.verdict is not Verdict.conflict
    # "my" is the speaker's: Lakshmi's allergy is not Marcus's, nor the owner's.
    assert judge("Marcus is allergic to penicillin.", "Lakshmi: i am allergic to sulfa drugs").verdict is (
        Verdict.different_subject
    )
    # A speaker's message about a thing is compared with what is said of it.
    price = RuleJudge().judge(
        Statement("The Netflix Standard plan costs the household A$18.99 a month."),
        Statement("Marcus: netflix went up again, it's $20.99 now"),
    )
    assert price.verdict is not Verdict.different_subject


def test_a_name_labelling_a_description_is_its_subject_not_a_speaker() -> None:
    # A MEMORY.md People section: "Name: who they are, what they do". Two agents' files disagree.
    pickup = judge(
        "Grandma Ruth: Omer's mother, picks Noa up on Tuesdays.", "Grandma Ruth picks Noa up on Wednesdays."
    )
    assert (pickup.verdict, pickup.severity) == (Verdict.conflict, Severity.medium)
    assert "Tuesdays → Wednesdays" in pickup.reason
    shifts = judge(
        "Omer: Tali's partner, a nurse, works night shifts on weekends.", "Omer works day shifts at Rambam."
    )
    assert shifts.verdict is Verdict.conflict
    assert speaker("Omer: Tali's partner, a nurse, works night shifts.") is None
    assert speech("Omer: Tali's partner, works nights.") == "Omer, Tali's partner, works nights."
    # The description closed by a full stop: what follows is still said of the name.
    assert speech("Amir: Yael's husband. Works at Intel.") == "Amir, Yael's husband, works at Intel."
    office = judge(
        "Amir: Yael's husband. Works at Intel in Haifa.",
        "Amir: Yael's husband, works at Intel in Petah Tikva.",
    )
    assert (office.verdict, office.reason) == (Verdict.conflict, "value changed: Haifa → Petah Tikva")
    # A message has a subject of its own, or speaks in the first person: its name is its speaker's.
    for message in (
        "Marcus: netflix went up again, it's $20.99 now",
        "Priya: swimming, it is thursdays now",
        "Rosa: Hi Priya, from next month my rate is 50 dollars per hour",
        "Marcus: the boys, they love the new coach",
    ):
        assert speaker(message) is not None, message


def test_an_alternative_passed_over_is_not_affirmed() -> None:
    # "over long texts" says long texts are not preferred: "not long texts" agrees with it.
    preference = "Tali prefers voice notes over long texts."
    assert (
        judge(preference, "Tali prefers voice notes again, not long texts.").verdict is not Verdict.conflict
    )
    assert judge(
        "Noa orders the fish rather than the steak.", "Noa orders the fish, not the steak."
    ).verdict is not (Verdict.conflict)
    # What it does prefer can still be denied.
    flip = judge(preference, "Tali likes short text replies, not voice notes.")
    assert (flip.verdict, flip.severity) == (Verdict.conflict, Severity.low)


def test_what_both_turn_down_is_no_contradiction() -> None:
    # The review gives the pair's closeness, which lets "rather than" report a change: not of the car,
    # which both sides turn down.
    close = 0.8
    car = "We do not take the car."
    for newer in ("We take the train rather than the car.", "We take the train instead of the car."):
        assert RuleJudge().judge(Statement(car), Statement(newer), close).verdict is Verdict.compatible
    # Taking what the other denies is still a contradiction, and passing over what the other takes a change.
    taken = RuleJudge().judge(Statement(car), Statement("We take the car rather than the train."), close)
    assert taken.verdict is Verdict.conflict
    changed = RuleJudge().judge(
        Statement("We take the car."), Statement("We take the train rather than the car."), close
    )
    assert (changed.verdict, changed.inferred) == (Verdict.conflict, True)


def test_a_blood_type_in_words_is_its_sign() -> None:
    assert judge("Marcus's blood type is O negative.", "Marcus has O-negative blood.").verdict is not (
        Verdict.conflict
    )
    assert judge("Gil's blood type is O positive.", "Gil's blood type is A+.").verdict is Verdict.conflict


def test_a_name_that_says_when_is_no_value_of_the_fact() -> None:
    # "before the Eilat trip" dates the need; it was compared with where the passport was renewed, a
    # high-severity "Eilat → Interior Ministry" put to the owner.
    renewed = judge(
        "Ido's passport expires in January; needs renewal before the Eilat trip.",
        "Renewed Ido's passport at the Interior Ministry office.",
    )
    assert renewed.verdict is not Verdict.conflict
    # A name that is the value still changes.
    moved = judge(
        "Dana flies to Rome before the Hanukkah party.", "Dana flies to Paris before the Hanukkah party."
    )
    assert (moved.verdict, moved.reason) == (Verdict.conflict, "value changed: Rome → Paris")


def test_what_the_owner_hates_denies_what_a_deduction_says_they_prefer() -> None:
    # A deduction is hedged ("seems to"), a fact reported ("she said so"); "hates" is "likes", negated.
    calls = judge(
        "Yael seems to prefer calls after 20:00.", "Yael hates phone calls after 20:00, she said so today."
    )
    assert (calls.verdict, calls.reason) == (
        Verdict.conflict,
        "polarity flip about yael: one affirms what the other denies",
    )
    assert judge("Yael likes sushi.", "Yael dislikes sushi.").verdict is Verdict.conflict
    assert judge("Yael likes sushi.", "Yael hates olives.").verdict is not Verdict.conflict


def test_the_owner_by_name_is_the_owner_in_their_own_words() -> None:
    # One agent writes about Yael, the other keeps her own words: with her names set, one subject.
    pairs = [
        ("Yael works from home on Sundays and Thursdays.", "I work from home on Sundays and Mondays."),
        ("Yael's dentist is Dr. Katz.", "My dentist is Dr. Levi."),
        ("Yael's mother lives in Haifa.", "My mother lives in Netanya."),
    ]
    for older, newer in pairs:
        assert judge(older, newer).verdict is Verdict.different_subject
        named = RuleJudge(owner_names=frozenset({"yael"})).judge(Statement(older), Statement(newer))
        assert named.verdict is Verdict.conflict, (older, newer)
    # Her mother is still not her, and someone else is still someone else.
    owner = RuleJudge(owner_names=frozenset({"yael"}))
    assert owner.judge(
        Statement("Yael's mother lives in Haifa."), Statement("Yael lives in Tel Aviv.")
    ).verdict is (Verdict.compatible)
    assert owner.judge(Statement("Amir works at Intel."), Statement("I work at Wix.")).verdict is (
        Verdict.different_subject
    )
    # A structured claim names its subject: the owner's name is the owner there too.
    claims = owner.judge(
        Statement("Yael's dentist is Dr. Katz", subject="Yael", attribute="dentist", value="Dr. Katz"),
        Statement("My dentist is Dr. Levi", subject="me", attribute="dentist", value="Dr. Levi"),
    )
    assert claims.verdict is Verdict.conflict


def test_two_records_of_what_happened_are_never_compared() -> None:
    for older in ("event", "message"):
        found = RuleJudge().judge(
            Statement("Paid the water bill: 180 shekels", nature=older),
            Statement("Paid the water bill: 210 shekels", nature="event"),
        )
        assert found.verdict is Verdict.compatible and "what happened" in found.reason
    # A state against an event that reports its change is judged.
    changed = RuleJudge().judge(
        Statement("Netanel works until 20:00 on Tuesdays."),
        Statement("- 08:30 Netanel said he now finishes work at 18:00 on Tuesdays", nature="event"),
    )
    assert changed.verdict is Verdict.conflict and "08:30" not in changed.reason


def test_a_pair_in_a_language_the_rules_cannot_read_says_so() -> None:
    judge = RuleJudge(vocabulary=vocabulary())
    found = judge.judge(Statement("נתנאל עובד עד 20:00"), Statement("נתנאל מסיים לעבוד ב-18:00"))
    assert found.verdict is Verdict.unreadable and "MEMHUB_LLM_JUDGE_URL" in found.reason
    spanish = judge.judge(
        Statement("Lucía trabaja en el hospital de Valencia"),
        Statement("Lucía ya no trabaja allí, ahora está en una clínica de Madrid"),
    )
    assert spanish.verdict is Verdict.unreadable
    assert (
        judge.judge(Statement("Netanel works until 20:00."), Statement("Netanel finishes at 18:00.")).verdict
        is Verdict.conflict
    )
