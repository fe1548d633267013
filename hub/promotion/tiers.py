"""The tier ladder and moving a memory along it, recorded in the memory's history."""

from __future__ import annotations

from hub.models import Change, Memory, Tier, utcnow
from hub.store.base import MemoryStore

# How long-term each tier is. Archival memories were set aside, not forgotten: one that proves to
# matter again climbs like an episodic one.
RANK = {Tier.working: 0, Tier.episodic: 1, Tier.archival: 1, Tier.semantic: 2, Tier.core: 3}
LONG_TERM = frozenset({Tier.semantic, Tier.core})


def next_tier(tier: Tier) -> Tier | None:
    """One step toward core: below semantic → semantic, semantic → core, core → nowhere."""
    if tier is Tier.core:
        return None
    return Tier.core if tier is Tier.semantic else Tier.semantic


def higher(a: Tier, b: Tier) -> Tier:
    return a if RANK[a] >= RANK[b] else b


def promotion_change(memory: Memory, to: Tier, *, by: str, note: str) -> Change:
    return Change(
        at=utcnow(), action="promoted", by=by, note=note, changes={"tier": [memory.tier.value, to.value]}
    )


def move(store: MemoryStore, memory: Memory, to: Tier, *, by: str, note: str, **fields: object) -> Memory:
    """Move `memory` to tier `to`, recording who moved it and why; `fields` are written in the same update."""
    if memory.tier is to and not fields:
        return memory
    update: dict[str, object] = dict(fields)
    if memory.tier is not to:
        update |= {"tier": to, "history": [*memory.history, promotion_change(memory, to, by=by, note=note)]}
    store.update(memory.id, update)
    return memory.model_copy(update=update)
