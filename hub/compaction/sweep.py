"""The conflict sweep over the day: the write-time review run again on the day's memories.

Each memory was reviewed once, when written, against the older memories stored by then. Reviewing
the day's memories again finds what that missed: two workers writing a contradiction at the same
moment, or a restatement backfilled with an earlier date than the memory it restates. The review is
idempotent (conflict ids derive from the pair, sightings from the event id), so a second sweep of
the same day changes nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel

from hub.compaction.scan import LIVE
from hub.models import Memory
from hub.services import Services
from hub.store.base import MemoryFilter, scroll_all


class SweepReport(BaseModel):
    reviewed: int
    reinforced: int
    conflicts: int


def day_memories(services: Services, *, since: datetime, now: datetime) -> list[Memory]:
    """Live memories written or restated since `since`, every scope."""
    everything = MemoryFilter(now=now, all_scopes=True, states=LIVE)
    return [m for m in scroll_all(services.store, everything) if max(m.created_at, m.last_verified) >= since]


def sweep_conflicts(services: Services, memories: Sequence[Memory]) -> SweepReport:
    """Review `memories` again against the older memories each can see."""
    outcome = services.reviewer.review(memories, services.store.vectors([m.id for m in memories]))
    reinforced, conflicts = len(outcome.merged_into), len(outcome.conflicts)
    return SweepReport(reviewed=len(memories), reinforced=reinforced, conflicts=conflicts)
