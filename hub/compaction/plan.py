"""A compaction plan: what one agent's compaction changes, worked out without changing anything.

A dry run is this plan and nothing more. `apply.py` carries it out.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, Field
from redis import Redis

from hub.compaction.core_block import Disputed, disputed_of, render_core, split_core
from hub.compaction.duplicates import Progress, find_groups
from hub.compaction.scan import LIVE, agent_memories
from hub.conflicts.judge import Judge
from hub.embedding import Encoder
from hub.keys import Keys
from hub.models import Memory, State, Tier
from hub.settings import CoreBudget, Settings
from hub.store.base import MemoryStore

# For measuring what the core block would hold with no budget at all.
UNLIMITED = CoreBudget.model_construct(words=10**9, lines=10**9)


class MergePlan(BaseModel):
    canonical: str = Field(description="The memory kept: it takes the copies' sightings and links their ids.")
    merged: list[str] = Field(description="Near-duplicates folded into it, then marked superseded by it.")
    texts: list[str] = Field(description="The canonical text, then each copy's.")


class CoreSize(BaseModel):
    memories: int
    words: int
    lines: int


class Compaction(BaseModel):
    """What one agent's compaction changed, or, in a dry run, would change."""

    agent: str
    at: datetime
    dry_run: bool
    budget: CoreBudget
    purge: list[str] = Field(description="Expired temporary memories, deleted.")
    stale_before: datetime = Field(description="Active memories last verified before this become stale.")
    mark_stale: list[str] = Field(description="Active memories not verified within `stale_after_days`.")
    merge: list[MergePlan]
    demote: list[str] = Field(description="The least important core memories, moved to archival to fit.")
    core_before: CoreSize = Field(description="The agent's whole core (every scope) before, unbudgeted.")
    core_after: CoreSize
    skipped: list[str] = Field(
        default_factory=list, description="Memories left alone because they changed after the plan was made."
    )

    @property
    def changes(self) -> int:
        merged = sum(len(m.merged) + 1 for m in self.merge)
        return len(self.purge) + len(self.mark_stale) + merged + len(self.demote)


def core_size(agent: str, core: Sequence[Memory], *, archived: int, disputed: Disputed) -> CoreSize:
    block = render_core(agent, core, budget=UNLIMITED, archived=archived, disputed=disputed)
    return CoreSize(memories=len(core), words=block.words, lines=block.lines)


def make_plan(
    *,
    store: MemoryStore,
    redis: Redis,
    keys: Keys,
    embedder: Encoder,
    judge: Judge,
    settings: Settings,
    agent: str,
    now: datetime,
    progress: Progress | None = None,
) -> Compaction:
    everything = agent_memories(store, agent)
    if progress:
        progress("reading memories", len(everything), len(everything))
    expired = [m for m in everything if m.expired(now)]
    purged = {m.id for m in expired}
    live = [m for m in everything if m.state in LIVE and m.id not in purged]
    groups = find_groups(
        live,
        store=store,
        embedder=embedder,
        judge=judge,
        threshold=settings.compaction_merge_similarity,
        candidates=settings.compaction_candidates,
        now=now,
        progress=progress,
    )

    # The agent's memories as the merges leave them: a canonical memory is as recently verified as its
    # freshest copy, and a copy in core only ever merges into its own agent's core memory.
    merged_away = {copy.id for group in groups for copy in group.copies}
    remaining = [m for m in live if m.id not in merged_away]
    verified = {m.id: m.last_verified for m in remaining}
    for group in groups:
        if group.canonical.id in verified:
            verified[group.canonical.id] = max(m.last_verified for m in (group.canonical, *group.copies))
    cutoff = now - timedelta(days=settings.stale_after_days)
    stale = [m for m in remaining if m.state is State.active and verified[m.id] < cutoff]
    archived = sum(1 for m in remaining if m.tier is Tier.archival)
    core = [m for m in remaining if m.tier is Tier.core]
    budget = settings.core_budget(agent)
    # Marked lines cost words: the cut is the one the block makes (`read_core`), with the same marks.
    in_conflict = disputed_of(redis, keys, live)
    kept, demoted = split_core(core, agent, budget, archived=archived, disputed=in_conflict)

    return Compaction(
        agent=agent,
        at=now,
        dry_run=True,
        budget=budget,
        purge=sorted(purged),
        stale_before=cutoff,
        mark_stale=[m.id for m in stale],
        merge=[
            MergePlan(
                canonical=g.canonical.id,
                merged=[c.id for c in g.copies],
                texts=[g.canonical.text, *(c.text for c in g.copies)],
            )
            for g in groups
        ],
        demote=[m.id for m in demoted],
        core_before=core_size(
            agent,
            [m for m in live if m.tier is Tier.core],
            archived=sum(1 for m in live if m.tier is Tier.archival),
            disputed=in_conflict,
        ),
        core_after=core_size(agent, kept, archived=archived + len(demoted), disputed=in_conflict),
    )
