"""Near-duplicates: memories that say the same thing in other words, found for one agent's memories.

Two memories are near-duplicates when their dense vectors are close (`compaction_merge_similarity`)
*and* the conflict judge calls them the same *and* the copy adds nothing to the memory it would be
folded into (`hub.conflicts.judge.fold`). Closeness alone is not enough: "works until 20:00" and
"works until 18:00" are closer than most true paraphrases, and the judge calls them a conflict.

The write-time review already folds a restatement into the older memory it can see; this finds what
it could not: a memory backfilled with an earlier date than its duplicate, memories past the review's
candidate limit, or two workers writing the same fact at once.

The canonical memory of a group is the one in the highest tier, then the oldest, so a merge never
takes a fact out of core. Two agents' core memories are never merged: each agent's core block lists
its own memories, and each needs the fact there. A private memory and a public one are never merged
either: folded into a private canonical, the public fact would vanish from group chats.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from hub.compaction.scan import LIVE
from hub.conflicts.judge import Judge, Verdict
from hub.conflicts.judge.fold import adds_nothing, same_words
from hub.conflicts.review import order, statement
from hub.embedding import Encoder
from hub.models import TIER_RANK, Memory, Scope, Tier
from hub.store.base import MemoryFilter, MemoryStore, SearchMode, SearchQuery, SparseVec

Progress = Callable[[str, int, int], None]
NO_TERMS = SparseVec(indices=[], values=[])


@dataclass(frozen=True)
class Group:
    """One canonical memory (the oldest) and the near-duplicates to fold into it."""

    canonical: Memory
    copies: tuple[Memory, ...]


def rank(memory: Memory) -> tuple[int, float, float, str]:
    """Which memory of a group stays: the highest tier, then the oldest."""
    return (TIER_RANK[memory.tier], *order(memory))


def may_merge(a: Memory, b: Memory) -> bool:
    """Merging must not change who may see a fact, nor take it out of an agent's core."""
    # Group chats never see private memories: a public copy folded into one would vanish from them.
    if (a.scope, a.project, a.person, a.private) != (b.scope, b.project, b.person, b.private):
        return False
    if a.scope is Scope.temporary:  # it expires on its own
        return False
    return not (a.tier is Tier.core and b.tier is Tier.core and a.agent != b.agent)


def find_groups(
    memories: Sequence[Memory],
    *,
    store: MemoryStore,
    embedder: Encoder,
    judge: Judge,
    threshold: float,
    candidates: int,
    now: datetime,
    progress: Progress | None = None,
) -> list[Group]:
    """Groups of near-duplicates, each holding at least one of `memories` (any agent's copies join)."""
    known = {m.id: m for m in memories}
    close: set[tuple[str, str]] = set()  # (better id, worse id) by rank
    flt = MemoryFilter(now=now, all_scopes=True, states=LIVE)
    vectors = embedder.encode([m.text for m in memories])
    for done, (memory, vector) in enumerate(zip(memories, vectors, strict=True), start=1):
        query = SearchQuery(
            dense=vector.tolist(), sparse=NO_TERMS, filter=flt, limit=candidates + 1, mode=SearchMode.dense
        )
        for hit in store.search(query):
            other = hit.memory
            if other.id != memory.id and hit.score >= threshold and may_merge(memory, other):
                known.setdefault(other.id, other)
                better, worse = sorted((memory, known[other.id]), key=rank)
                close.add((better.id, worse.id))
        if progress:
            progress("finding near-duplicates", done, len(memories))

    same_as: dict[str, list[str]] = defaultdict(list)  # worse id -> better ids it says the same as
    for better_id, worse_id in sorted(close):
        older, newer = sorted((known[better_id], known[worse_id]), key=order)
        verdict = judge.judge(statement(older), statement(newer)).verdict
        same = verdict is Verdict.same or (verdict is not Verdict.conflict and same_words(older, newer))
        if same and adds_nothing(known[better_id].text, known[worse_id].text):
            same_as[worse_id].append(better_id)

    # Best first, each memory joins the best canonical it was judged the same as, directly: never by
    # a chain, so a copy is never merged into a memory the judge did not compare it with.
    canonical_of: dict[str, str] = {}
    for memory in sorted((known[i] for i in same_as), key=rank):
        targets = [known[i] for i in same_as[memory.id] if i not in canonical_of]
        if targets:
            canonical_of[memory.id] = min(targets, key=rank).id
    copies: dict[str, list[Memory]] = defaultdict(list)
    for copy_id, canonical_id in canonical_of.items():
        copies[canonical_id].append(known[copy_id])
    groups = [Group(known[c], tuple(sorted(found, key=rank))) for c, found in copies.items()]
    return sorted(groups, key=lambda g: rank(g.canonical))
