"""The re-ranking rules on hand-made hits: which hit moves, which stays."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from hub.conflicts.judge.change import change_cue
from hub.models import Confidence, Kind, Memory, Nature, Scope, memory_id_for
from hub.ranking import (
    fused,
    fusion_features,
    maximal_marginal_relevance,
    newest_versions_first,
    recency_boost,
)
from hub.store.base import RECENCY_WEIGHT, Hit

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


def bm25(**by_name: float) -> dict[str, float]:
    return {memory_id_for(name): score for name, score in by_name.items()}


def test_a_chat_reply_of_a_few_words_ranks_below_a_message_that_says_something() -> None:
    # Both share the question's rare words; the reply is closer in meaning but says nothing.
    short = scored("short", "What about you?", 0.0)
    told = scored(
        "told", "I started pottery classes on Wednesdays at the community centre, and I love it so far.", 0.0
    )
    assert names(fused([short, told], [0.6, 0.5], bm25(short=5.0, told=5.0))) == ["told", "short"]


def test_facts_keep_the_places_rank_fusion_gave_them() -> None:
    # The messages trade places among themselves; the fact between them stays second, with its score.
    reply = scored("reply", "ok sure", 0.9)
    fact = scored("fact", "Omer works until 20:00", 0.8, nature=Nature.state)
    told = scored("told", "Omer said he finishes at eight most evenings this month, later on Thursdays.", 0.7)
    found = fused([reply, fact, told], [0.6, 0.6, 0.5], bm25(reply=5.0, fact=5.0, told=5.0))
    assert names(found) == ["told", "fact", "reply"]
    assert found[1].score == 0.8
    only_facts = [replace(fact, score=0.8), scored("other", "x" * 80, 0.7, nature=Nature.state)]
    assert fused(only_facts, [0.1, 0.9], bm25(other=9.0)) == only_facts


def test_how_much_bm25_liked_a_hit_counts_not_only_its_rank() -> None:
    # First for BM25 and first for the model: rank fusion ties them whatever the scores were.
    words, meaning = scored("words", "x" * 60, 0.0), scored("meaning", "y" * 60, 0.0)
    close = fused([words, meaning], [0.50, 0.55], bm25(words=10.0, meaning=9.9))
    assert names(close) == ["meaning", "words"]
    far = fused([words, meaning], [0.50, 0.55], bm25(words=10.0, meaning=2.0))
    assert names(far) == ["words", "meaning"]


def test_fused_scores_are_chances_ordered_best_first() -> None:
    hits = [scored(f"h{i}", "z" * (30 + 10 * i), 0.0) for i in range(4)]
    found = fused(hits, [0.2, 0.7, 0.4, 0.5], bm25(h0=3.0, h2=1.0))
    assert [h.score for h in found] == sorted((h.score for h in found), reverse=True)
    assert all(0.0 < h.score < 1.0 for h in found)
    assert sorted(names(found)) == ["h0", "h1", "h2", "h3"]


def test_features_share_the_best_candidates_bm25_and_none_without_words() -> None:
    features = fusion_features([0.1, 0.2], [4.0, 1.0], [100, 10])
    assert features[:, 1].tolist() == [1.0, 0.25]
    assert features[:, 2].tolist() == pytest.approx([math.log(100), math.log(10)])
    assert fusion_features([0.1, 0.2], [0.0, 0.0], [5, 5])[:, 1].tolist() == [0.0, 0.0]


def test_recency_raises_a_newer_hit_by_its_age_as_the_store_would() -> None:
    now = JAN + timedelta(days=30)
    old, new = scored("old", "x" * 50, 0.5, at=JAN), scored("new", "y" * 50, 0.5, at=now - timedelta(days=10))
    factors = recency_boost([old, new], timedelta(days=10), now=now)
    assert factors.tolist() == pytest.approx([1 + RECENCY_WEIGHT * 0.125, 1 + RECENCY_WEIGHT * 0.5])
    # Alike in every other way, the newer message comes first once aged, and not before.
    assert names(fused([old, new], [0.5, 0.5], {})) == ["old", "new"]
    assert names(fused([old, new], [0.5, 0.5], {}, boost=factors)) == ["new", "old"]
