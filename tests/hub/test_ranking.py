"""The re-ranking rules on hand-made hits: which hit moves, which stays."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from hub.conflicts.judge.change import change_cue
from hub.models import Confidence, Kind, Memory, Nature, Scope, memory_id_for
from hub.ranking import by_exchange_and_length, maximal_marginal_relevance, newest_versions_first
from hub.store.base import Hit

JAN = datetime(2026, 1, 10, tzinfo=UTC)
MAY = datetime(2026, 5, 10, tzinfo=UTC)


def direction(*weights: float) -> list[float]:
    """A unit vector in the plane of the first few axes: cosines between them are easy to read."""
    vector = np.zeros(384)
    vector[: len(weights)] = weights
    return list(vector / np.linalg.norm(vector))


def hit(
    name: str,
    text: str,
    vector: list[float],
    *,
    at: datetime = JAN,
    kind: Kind = Kind.fact,
    nature: Nature | None = None,
) -> Hit:
    memory = Memory(
        id=memory_id_for(name),
        event_id=name,
        text=text,
        agent="tester",
        kind=kind,
        scope=Scope.global_,
        occurred_at=at,
        confidence=Confidence.medium,
        created_at=at,
        last_verified=at,
        nature=nature,
    )
    return Hit(memory=memory, score=1.0, vector=vector)


def names(hits: list[Hit]) -> list[str]:
    return [h.memory.event_id for h in hits]


SWIM = hit("swim", "Itai's swimming lessons are on Friday at 10:00.", direction(1, 0))
JUDO = hit("judo", "Itai started judo on Tuesdays.", direction(0, 1), at=MAY)
OTHER = hit("other", "The recycling bin is collected on Mondays.", direction(0, 0, 1))


def test_a_newer_version_that_reports_the_change_moves_above_the_old_one() -> None:
    moved = hit("moved", "Itai's swimming lessons moved to Thursday at 16:00.", direction(1, 0.5), at=MAY)

    assert names(newest_versions_first([SWIM, JUDO, OTHER, moved])) == ["moved", "swim", "judo", "other"]


def test_records_of_what_happened_are_never_versions_of_each_other() -> None:
    said = hit(
        "said", "Kevin: my swimming lessons are on Friday at 10:00", direction(1, 0), nature=Nature.message
    )
    later = hit(
        "later",
        "Kevin: now the swimming lessons moved to Thursday",
        direction(1, 0.5),
        at=MAY,
        nature=Nature.message,
    )
    assert names(newest_versions_first([said, JUDO, later])) == ["said", "judo", "later"]
    # A message that reports a change of a state the hub holds is still its newer version.
    assert names(newest_versions_first([SWIM, JUDO, later])) == ["later", "swim", "judo"]


def test_every_newer_version_moves_above_the_old_one_in_the_order_found() -> None:
    # The closer one to the old fact is not necessarily the update asked about: both move up.
    moved = hit("moved", "Itai's swimming lessons moved to Thursday at 16:00.", direction(1, 0.6), at=MAY)
    again = hit("again", "From June the Friday swim starts again at 9:00.", direction(1, 0.4), at=MAY)

    assert names(newest_versions_first([SWIM, OTHER, moved, again])) == ["moved", "again", "swim", "other"]


def test_a_correction_needs_no_change_words() -> None:
    fixed = hit("fixed", "Itai swims on Thursdays at 16:00.", direction(1, 0.5), at=MAY, kind=Kind.correction)

    assert names(newest_versions_first([SWIM, OTHER, fixed])) == ["fixed", "swim", "other"]


@pytest.mark.parametrize(
    "candidate",
    [
        # Close, newer, but says nothing changed: another fact about the same thing.
        hit("likes", "Itai loves his swimming lessons on Friday.", direction(1, 0.3), at=MAY),
        # Reports a change, but older than the hit it resembles.
        hit(
            "older",
            "Itai's swimming lessons moved to Friday.",
            direction(1, 0.5),
            at=JAN - timedelta(days=30),
        ),
        # Newer and reports a change, but about something else.
        hit("far", "The pool now opens at 7:00.", direction(0.2, 0, 0, 1), at=MAY),
    ],
)
def test_other_hits_stay_where_they_are(candidate: Hit) -> None:
    assert names(newest_versions_first([SWIM, OTHER, candidate])) == [
        "swim",
        "other",
        candidate.memory.event_id,
    ]


def test_only_the_first_hits_are_looked_up() -> None:
    moved = hit("moved", "Itai's swimming lessons moved to Thursday.", direction(1, 0.5), at=MAY)
    fillers = [hit(f"f{i}", f"Filler {i}.", direction(*([0.0] * (3 + i) + [1.0]))) for i in range(3)]

    assert names(newest_versions_first([*fillers, SWIM, moved], lookup=3))[-2:] == ["swim", "moved"]
    assert names(newest_versions_first([*fillers, SWIM, moved], lookup=4))[-2:] == ["moved", "swim"]


def test_rules_need_vectors() -> None:
    bare = Hit(memory=SWIM.memory, score=1.0)
    with pytest.raises(ValueError, match="with_vectors"):
        newest_versions_first([bare, OTHER])
    with pytest.raises(ValueError, match="with_vectors"):
        maximal_marginal_relevance([bare, OTHER], diversity=0.5, limit=2)


def test_mmr_keeps_a_near_duplicate_from_crowding_out_the_rest() -> None:
    twin = hit("twin", "Itai's swimming lessons are Fridays at ten.", direction(1, 0.05))
    ranked = [SWIM, twin, JUDO, OTHER]

    assert names(maximal_marginal_relevance(ranked, diversity=0.0, limit=3)) == ["swim", "twin", "judo"]
    assert names(maximal_marginal_relevance(ranked, diversity=0.5, limit=3)) == ["swim", "judo", "other"]
    assert len(maximal_marginal_relevance(ranked, diversity=0.5, limit=10)) == 4
    with pytest.raises(ValueError, match="diversity"):
        maximal_marginal_relevance(ranked, diversity=1.5, limit=3)


@pytest.mark.parametrize(
    ("text", "moves"),
    [
        ("From May the swimming lessons start at 9:00.", True),
        ("The lesson fee was raised to 80 shekels.", True),
        ("After the pool renovation, lessons are at 10:30.", True),
        ("Swimming moved to 10:30.", True),
        # Search reads no change where the write-time review reads none.
        ("Winter again: swimming is at 10:30.", False),
        ("Swimming is at 10:30.", False),
    ],
)
def test_search_reads_a_change_as_the_write_time_review_does(text: str, moves: bool) -> None:
    newer = hit("newer", text, direction(1, 0.5), at=MAY)

    ranked = names(newest_versions_first([SWIM, OTHER, newer]))

    assert ranked == (["newer", "swim", "other"] if moves else ["swim", "other", "newer"])
    assert (change_cue(text) is not None) == moves


GYM = hit("gym", "Netanel's Holmes Place Azrieli membership costs 289 shekels a month.", direction(1, 0))


@pytest.mark.parametrize(
    ("name", "text", "moves"),
    [
        # Less close, but a change to the very thing the old one names, of the same person.
        ("cancel", "Netanel cancelled the Holmes Place membership; he only cycles now.", True),
        # The same person and a change, but to something else the old one does not name.
        ("bike", "Netanel switched to tubeless tyres on the Canyon.", False),
        # The same name near the cue, but another person's change.
        ("dana", "Dana cancelled her Holmes Place trial pass.", False),
    ],
)
def test_a_less_close_newer_version_must_change_what_the_old_one_names(
    name: str, text: str, moves: bool
) -> None:
    newer = hit(name, text, direction(1, 1.9), at=MAY)  # cosine ~0.47: under VERSION_SIMILARITY

    ranked = names(newest_versions_first([GYM, OTHER, newer]))

    assert ranked == ([name, "gym", "other"] if moves else ["gym", "other", name])
    assert names(newest_versions_first([GYM, OTHER, newer], named_similarity=0.5)) == ["gym", "other", name]


def scored(
    name: str,
    text: str,
    score: float,
    *,
    at: datetime = JAN,
    agent: str = "tester",
    chat: str | None = None,
    nature: Nature | None = Nature.message,
) -> Hit:
    found = hit(name, text, direction(1), at=at, nature=nature)
    return replace(found, score=score, memory=found.memory.model_copy(update={"agent": agent, "chat": chat}))


def test_a_chat_reply_of_a_few_words_ranks_below_a_message_that_says_something() -> None:
    short = scored("short", "What about you?", 0.6, nature=Nature.message)
    told = scored(
        "told",
        "I started pottery classes on Wednesdays at the community centre, and I love it so far.",
        0.5,
        at=MAY,
        nature=Nature.message,
    )
    assert names(by_exchange_and_length([short, told])) == ["told", "short"]


def test_a_short_fact_keeps_its_weight_against_a_longer_one() -> None:
    short = scored("short", "Omer works until 20:00", 0.6, at=MAY, nature=Nature.state)
    longer = scored("longer", "Netanel finishes work at 18:00 on Thursdays, after the team meeting.", 0.5)
    assert names(by_exchange_and_length([longer, short])) == ["short", "longer"]


def test_a_hit_whose_exchange_matched_too_rises_above_a_lone_one() -> None:
    # Two turns logged five minutes apart both match; a lone turn two days later matched a bit better.
    first = scored("first", "We booked the cabin near the lake.", 0.50, at=JAN)
    second = scored("second", "It has a wood stove and a canoe.", 0.50, at=JAN + timedelta(minutes=5))
    lone = scored("lone", "The cabin at the lake looked nice.", 0.52, at=JAN + timedelta(days=2))
    assert names(by_exchange_and_length([lone, first, second]))[-1] == "lone"


def test_another_agent_another_chat_or_a_later_hour_is_not_the_exchange() -> None:
    first = scored("first", "We booked the cabin near the lake.", 0.50, at=JAN)
    other_agent = scored("other", "It has a wood stove and a canoe.", 0.50, at=JAN, agent="telegram")
    other_chat = scored("chat", "It has a wood stove and a canoe?", 0.50, at=JAN, chat="family")
    later = scored("later", "It has a wood stove and a canoe!", 0.50, at=JAN + timedelta(hours=1))
    lone = scored("lone", "The cabin at the lake looked nice.", 0.52, at=JAN + timedelta(days=2))
    assert names(by_exchange_and_length([lone, first, other_agent, other_chat, later]))[0] == "lone"


def test_facts_logged_together_gain_nothing_from_each_other() -> None:
    # An exchange is a chat's: facts stated in one session are ranked as the store ranked them.
    first = scored("first", "We booked the cabin near the lake.", 0.50, nature=Nature.state)
    second = scored(
        "second", "It has a wood stove and a canoe.", 0.50, at=JAN + timedelta(minutes=5), nature=Nature.state
    )
    lone = scored(
        "lone", "The cabin at the lake looked nice.", 0.52, at=JAN + timedelta(days=2), nature=Nature.state
    )
    assert names(by_exchange_and_length([lone, first, second])) == ["lone", "first", "second"]


def test_hits_all_in_one_exchange_keep_their_order() -> None:
    # Each gains a share of all the others' scores, which is all that could reorder these.
    hits = [scored(f"h{i}", "x" * 40, 0.9 - 0.3 * i, at=JAN + timedelta(minutes=i)) for i in range(3)]
    assert names(by_exchange_and_length(hits)) == ["h0", "h1", "h2"]


def test_scores_that_are_not_all_positive_leave_the_order() -> None:
    # With positive scores the short reply would fall below the long message; one negative score (a
    # cosine, not a fusion) and nothing moves.
    reply, told = scored("reply", "ok", 0.3), scored("told", "We fly to Lisbon on 10 April. " * 5, 0.2)
    assert names(by_exchange_and_length([reply, told])) == ["told", "reply"]
    below = scored("below", "Nothing to do with it.", -0.1)
    assert names(by_exchange_and_length([reply, told, below])) == ["reply", "told", "below"]
