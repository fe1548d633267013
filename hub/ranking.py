"""Re-ranking what the store found: the chat messages among hybrid candidates scored by how close they
are, how many of the question's words they share and how much they say, the newest version of a fact
first, and optional diversity.

They only reorder, or (MMR) choose among, the candidates the store found for the query: fetch more
than you will return. The last two work on the hits' dense vectors (the store returns them when asked).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import cache

import numpy as np

from hub.conflicts.judge.change import change_cue, named_change
from hub.models import Kind, Memory, Nature
from hub.nature import nature_of
from hub.store.base import RECENCY_WEIGHT, Hit

# For each of the first VERSION_LOOKUP hits, a newer hit at least this close to it (cosine of their
# MiniLM vectors) that reports a change is taken as its newer version; tuned on the retrieval set's dev
# questions (the numbers: benchmarks/retrieval.py).
VERSION_SIMILARITY = 0.5
VERSION_LOOKUP = 3
# Less close than that but at least this, a newer hit is a newer version only if it reports a change
# to the very thing the older one names, of the same subject (`hub.conflicts.judge.change.named_change`):
# "Netanel cancelled the Holmes Place membership" against "Netanel's Holmes Place Azrieli membership
# costs 289 shekels" (cosine 0.43).
NAMED_SIMILARITY = 0.4


@dataclass(frozen=True)
class Fusion:
    """A logistic model of whether a chat message among hybrid candidates answers the question, over
    `fusion_features`: fitted by `python -m training.fusion` on REALTALK's dev conversations (the numbers:
    benchmarks/retrieval.py)."""

    cosine: float
    words: float
    length: float
    bias: float

    def probability(self, features: np.ndarray) -> np.ndarray:
        z = features @ np.array([self.cosine, self.words, self.length]) + self.bias
        chance: np.ndarray = 1.0 / (1.0 + np.exp(-z))
        return chance


FUSION = Fusion(cosine=6.238, words=3.859, length=1.199, bias=-14.339)


def _unit_vectors(hits: Sequence[Hit]) -> np.ndarray:
    if any(hit.vector is None for hit in hits):
        raise ValueError("re-ranking needs the hits' dense vectors: search with `with_vectors=True`")
    vectors = np.asarray([hit.vector for hit in hits], dtype=np.float32)
    unit: np.ndarray = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return unit


def reports_change(memory: Memory) -> bool:
    """A correction, or a statement the write-time review reads as reporting a change ("moved to",
    "now", "cancelled"): search and the review make one decision (`hub.conflicts.judge.change`)."""
    return memory.kind is Kind.correction or change_cue(memory.text) is not None


def fusion_features(
    cosines: Sequence[float] | np.ndarray, bm25: Sequence[float] | np.ndarray, lengths: Sequence[float]
) -> np.ndarray:
    """Each candidate's cosine to the question, its BM25 score as a share of the best candidate's (0 for
    none), and the log of its length in characters: the columns `Fusion` weighs."""
    words = np.asarray(bm25, dtype=np.float64)
    best = words.max(initial=0.0)
    share = words / best if best > 0 else np.zeros_like(words)
    return np.column_stack([np.asarray(cosines, dtype=np.float64), share, np.log(np.maximum(lengths, 1.0))])


def fused(
    hits: Sequence[Hit],
    cosines: Sequence[float] | np.ndarray,
    bm25: Mapping[str, float],
    *,
    boost: Sequence[float] | np.ndarray | None = None,
    fusion: Fusion = FUSION,
) -> list[Hit]:
    """Rank the chat messages among hybrid candidates again, by how close they are in meaning, how many
    of the question's rare words they share, and how much they say; other memories keep their places.

    Rank fusion (RRF) finds the candidates but throws away by how much each half liked them: a message
    that BM25 ranks second by a hair and one it ranks second far behind the first score alike. The
    scores themselves, weighed by a model fitted on real conversations (`Fusion`), keep that, and a
    reply of a few words ("haha same", "What about you?") that shares a question's words without
    answering it falls below a message that says something. `hits` come in the store's order, with
    their `cosines` to the question; `bm25` holds the BM25 score of each that has one (by memory id).
    The chat messages (`nature` message) fill the places messages held, best first, each scored with
    the model's chance that it answers (times its `boost`, if given: `recency_boost`). Other memories
    keep the place and score the store's rank fusion gave them: on statements, logs and facts (the
    project's own retrieval set) rank fusion finds more than these scores.
    """
    message = [nature_of(h.memory) is Nature.message for h in hits]
    if not any(message):
        return list(hits)
    words = [bm25.get(h.memory.id, 0.0) for h in hits]
    chance = fusion.probability(fusion_features(cosines, words, [len(h.memory.text) for h in hits]))
    if boost is not None:
        chance = chance * np.asarray(boost)
    best = iter(sorted((i for i, m in enumerate(message) if m), key=lambda i: -chance[i]))
    placed = []
    for i, hit in enumerate(hits):
        if message[i]:
            j = next(best)
            hit = replace(hits[j], score=float(chance[j]))
        placed.append(hit)
    return placed


def recency_boost(hits: Sequence[Hit], half_life: timedelta, *, now: datetime) -> np.ndarray:
    """1 + RECENCY_WEIGHT x 2^(-age / half_life) for each hit, the age of what happened counted from
    `now`: the factor by which the store ages a positive score (`hub.store.edge.recency_formula`)."""
    ages = np.array([abs((now - h.memory.occurred_at).total_seconds()) for h in hits])
    factor: np.ndarray = 1.0 + RECENCY_WEIGHT * 0.5 ** (ages / half_life.total_seconds())
    return factor


def newest_versions_first(
    hits: Sequence[Hit],
    *,
    similarity: float = VERSION_SIMILARITY,
    named_similarity: float = NAMED_SIMILARITY,
    lookup: int = VERSION_LOOKUP,
) -> list[Hit]:
    """Rank the newer versions of each of the first `lookup` hits directly above it.

    An updated fact that the write-time review did not supersede leaves two active memories: the
    old one, often the closer match to the question, and a newer one that reports the change. Newer
    versions are looked for among all `hits` (pass more than you will return) and moved up, in the
    order they had; everything stays. A newer version is close to the old one (`similarity`) and
    reports a change, or, less close (`named_similarity`), reports a change to what the old one names.
    Two records of what happened (events, chat messages: `hub.nature`) are never versions of each other,
    as the write-time review never finds them in conflict: a chat says "now" all day.
    (Moving only the closest one let a chat message about another ride, closer to the old ride time,
    take the place of the real update.)
    """
    if len(hits) < 2:
        return list(hits)
    unit = _unit_vectors(hits)
    cosine = unit @ unit.T
    reports = cache(lambda i: reports_change(hits[i].memory))  # each hit read once, whichever it follows
    states = [nature_of(hit.memory) is Nature.state for hit in hits]

    def newer_version(older: int, i: int) -> bool:
        if hits[i].memory.occurred_at <= hits[older].memory.occurred_at:
            return False
        if not (states[older] or states[i]):
            return False  # two records of what happened, as the judge reads them (`can_conflict`)
        if cosine[older, i] >= similarity:
            return reports(i)
        # `named_change` needs a change cue, so a hit that reports none is passed over without it.
        return (
            cosine[older, i] >= named_similarity
            and reports(i)
            and named_change(hits[older].memory.text, hits[i].memory.text) is not None
        )

    order = list(range(len(hits)))
    for older in order[:lookup]:
        at = order.index(older)
        newer = [i for i in order[at + 1 :] if newer_version(older, i)]
        for i in newer:
            order.remove(i)
        order[at:at] = newer
    return [hits[i] for i in order]


def maximal_marginal_relevance(hits: Sequence[Hit], *, diversity: float, limit: int) -> list[Hit]:
    """Pick `limit` hits, each time the one best balancing its relevance against its likeness to those picked.

    `diversity` 0 keeps the given order; 1 picks by novelty alone. Relevance is taken from the rank
    (1 for the first hit, falling linearly), so it means the same for every search mode and survives
    `newest_versions_first`.
    """
    if not 0.0 <= diversity <= 1.0:
        raise ValueError(f"diversity: expected a number from 0 to 1, got {diversity}")
    if len(hits) <= 1:
        return list(hits[:limit])
    unit = _unit_vectors(hits)
    cosine = unit @ unit.T
    relevance = 1.0 - np.arange(len(hits)) / len(hits)
    picked: list[int] = []
    likeness = np.full(len(hits), -np.inf)  # each candidate's highest cosine to a picked hit
    remaining = list(range(len(hits)))
    while remaining and len(picked) < limit:
        penalty = np.where(np.isinf(likeness[remaining]), 0.0, likeness[remaining])
        gains = (1 - diversity) * relevance[remaining] - diversity * penalty
        best = remaining.pop(int(np.argmax(gains)))
        picked.append(best)
        likeness = np.maximum(likeness, cosine[best])
    return [hits[i] for i in picked]
