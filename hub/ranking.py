"""Re-ranking what the store found: chat messages found with their exchange and replies of a few words
below what says something, the newest version of a fact first, and optional diversity.

They only reorder, or (MMR) choose among, the candidates the store found for the query: fetch more
than you will return. The last two work on the hits' dense vectors (the store returns them when asked).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from functools import cache

import numpy as np

from hub.conflicts.judge.change import change_cue, named_change
from hub.models import Kind, Memory, Nature
from hub.nature import nature_of
from hub.store.base import Hit

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
# A message's exchange among the candidates: the messages one agent logged in one chat this close in time.
EXCHANGE_WINDOW = timedelta(minutes=15)
EXCHANGE_WEIGHT = 0.1  # the share of its exchange's scores a message gains
# A chat message shorter than SHORT_MESSAGE characters weighs (characters / SHORT_MESSAGE) ** SHORT_WEIGHT.
SHORT_MESSAGE = 120
SHORT_WEIGHT = 0.5


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


def by_exchange_and_length(
    hits: Sequence[Hit],
    *,
    window: timedelta = EXCHANGE_WINDOW,
    weight: float = EXCHANGE_WEIGHT,
    short: int = SHORT_MESSAGE,
    shortness: float = SHORT_WEIGHT,
) -> list[Hit]:
    """Reorder the chat messages among fused candidates by their exchange and by how much they say.

    A message gains `weight` times the scores of its exchange among the candidates (the messages the
    same agent logged in the same chat within `window` of it): the turns of a conversation about one
    thing are found together, where one alone matches the question's words poorly. Messages all in one
    exchange are not reordered by it: each gains a share of all the others' scores, which keeps their
    order. And a message shorter than `short` characters weighs less (`shortness` the power of its share
    of `short`): a reply of a few words ("What about you?", "haha same") shares a question's words
    without answering it. Facts, events and the rest keep their scores: "Omer works until 20:00" is
    short and complete, and a fact's versions are ranked by `newest_versions_first`. Scores must be
    positive (rank fusions are).
    """
    if len(hits) < 2 or any(hit.score <= 0 for hit in hits):
        return list(hits)
    memories = [hit.memory for hit in hits]
    message = np.array([nature_of(m) is Nature.message for m in memories])
    if not message.any():
        return list(hits)
    chats: dict[tuple[str, str | None], int] = {}
    chat = np.array([chats.setdefault((m.agent, m.chat), len(chats)) for m in memories])
    when = np.array([m.occurred_at.timestamp() for m in memories])
    exchange = (
        (message[:, None] & message[None, :])
        & (chat[:, None] == chat[None, :])
        & (np.abs(when[:, None] - when[None, :]) <= window.total_seconds())
    )
    np.fill_diagonal(exchange, False)
    scores = np.array([hit.score for hit in hits])
    said = np.where(message, np.minimum([len(m.text) / short for m in memories], 1.0), 1.0)
    rescored = (scores + weight * (exchange @ scores)) * said**shortness
    return [hits[i] for i in np.argsort(-rescored, kind="stable")]


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
