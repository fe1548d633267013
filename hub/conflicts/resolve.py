"""Resolving a conflict: the loser is superseded and linked to the winner, or both are kept."""

from __future__ import annotations

from redis import Redis

from hub.conflicts.ledger import Conflict, ConflictStatus, Resolution, save
from hub.keys import Keys
from hub.models import Change, State, utcnow
from hub.store.base import MemoryStore


class ResolutionError(ValueError):
    pass


def supersede(store: MemoryStore, *, loser: str, winner: str, by: str, note: str | None) -> bool:
    """Mark `loser` superseded by `winner`, recording the change; False when it is gone already."""
    found = store.get([loser])
    if not found:
        return False
    memory = found[0]
    if memory.state is State.superseded and memory.superseded_by == winner:
        return True
    change = Change(
        at=utcnow(),
        action="superseded",
        by=by,
        note=note,
        changes={
            "state": [memory.state.value, State.superseded.value],
            "superseded_by": [memory.superseded_by, winner],
        },
    )
    store.update(
        loser, {"state": State.superseded, "superseded_by": winner, "history": [*memory.history, change]}
    )
    return True


def resolve(
    redis: Redis,
    keys: Keys,
    store: MemoryStore,
    conflict: Conflict,
    *,
    keep: str,
    by: str,
    note: str | None = None,
    status: ConflictStatus = ConflictStatus.resolved,
) -> Conflict:
    """Keep one memory (the other is superseded) or `both` (the conflict is dismissed)."""
    if keep != "both" and keep not in conflict.memory_ids:
        raise ResolutionError(f"keep: expected one of {conflict.memory_ids} or 'both', got {keep!r}")
    if keep == "both":
        status = ConflictStatus.dismissed
    else:
        loser = next(m for m in conflict.memory_ids if m != keep)
        supersede(store, loser=loser, winner=keep, by=by, note=note or f"conflict {conflict.id}")
    conflict.status = status
    conflict.resolution = Resolution(keep=keep, by=by, note=note, at=utcnow())
    save(redis, keys, conflict)
    return conflict
