"""Resolving a conflict: the loser is superseded and linked to the winner, or both are kept."""

from __future__ import annotations

from datetime import datetime

from redis import Redis

from hub.conflicts.ledger import Conflict, ConflictStatus, Resolution, get, open_conflicts_of, save
from hub.keys import Keys
from hub.locks import claimed
from hub.models import Change, Memory, State, utcnow
from hub.store.base import MemoryStore


class ResolutionError(ValueError):
    """The decision names a memory the conflict is not about."""


class ConflictDecided(Exception):
    """The conflict was decided meanwhile, or the memory to keep no longer stands: nothing was changed."""


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
    """Keep one memory (the other is superseded) or `both` (the conflict is dismissed).

    One decision per conflict: two at once (the owner answering on two channels) cannot both apply,
    and a memory superseded, expired or removed since the conflict was recorded cannot be kept.
    Either raises ConflictDecided and changes nothing.
    """
    if keep != "both" and keep not in conflict.memory_ids:
        raise ResolutionError(f"keep: expected one of {conflict.memory_ids} or 'both', got {keep!r}")
    with claimed(redis, keys.conflict_claim(conflict.id), by=by) as mine:
        if not mine:
            raise ConflictDecided(f"conflict {conflict.id} is being decided by another request")
        current = get(redis, keys, conflict.id) or conflict
        if not current.open:
            raise ConflictDecided(already_decided(current))
        if keep == "both":
            status = ConflictStatus.dismissed
        else:
            _still_standing(store, keep)
            loser = next(m for m in current.memory_ids if m != keep)
            # The loser's history names the conflict, whatever the note: it is how one finds the decision.
            said = f"conflict {conflict.id}" + (f": {note}" if note else "")
            supersede(store, loser=loser, winner=keep, by=by, note=said)
        current.status = status
        current.resolution = Resolution(keep=keep, by=by, note=note, at=utcnow())
        save(redis, keys, current)
        if keep != "both":
            settle_moot(redis, keys, loser, why=f"superseded by {keep} (conflict {conflict.id})", by=by)
        return current


def already_decided(conflict: Conflict) -> str:
    """Why a decision is refused: the conflict's own, so whoever answered second can tell the owner."""
    done = conflict.resolution
    if done is None:
        return f"conflict {conflict.id} is already {conflict.status.value}"
    kept = "both" if done.keep == "both" else f"memory {done.keep}"
    return f"conflict {conflict.id} is already {conflict.status.value}: {done.by} kept {kept} at {done.at.isoformat()}"


def settle_moot(redis: Redis, keys: Keys, memory_id: str, *, why: str, by: str) -> list[Conflict]:
    """Close the open conflicts `memory_id` still sits in, now that it no longer stands (`why`): the
    other side stands, and nobody is asked about a memory already replaced. Changes no memory; a
    conflict being decided meanwhile is left to that decision."""
    settled = []
    for cid in open_conflicts_of(redis, keys, [memory_id])[memory_id]:
        with claimed(redis, keys.conflict_claim(cid), by=by) as mine:
            conflict = get(redis, keys, cid) if mine else None
            if conflict is None or not conflict.open:
                continue
            other = next(m for m in conflict.memory_ids if m != memory_id)
            conflict.status = ConflictStatus.auto_resolved
            conflict.resolution = Resolution(
                keep=other, by=by, note=f"memory {memory_id} was {why}", at=utcnow()
            )
            save(redis, keys, conflict)
            settled.append(conflict)
    return settled


def cannot_keep(memory_id: str, memory: Memory | None, now: datetime) -> str | None:
    """Why a conflict's side can no longer be kept (gone, superseded, expired), or None if it can. The
    resolve route refuses such a side, and no agent is asked to offer it to the owner."""
    if memory is None:
        return f"memory {memory_id} no longer exists (merged, expired or forgotten)"
    if memory.state is State.superseded:
        return f"memory {memory_id} was superseded by {memory.superseded_by} since"
    # An expired memory stays in the store until it is purged, but no one finds it: kept, it would
    # leave the other side superseded by a memory no search returns.
    if memory.expires_at is not None and memory.expired(now):
        return f"memory {memory_id} expired at {memory.expires_at.isoformat()}"
    return None


def _still_standing(store: MemoryStore, memory_id: str) -> None:
    found = store.get([memory_id])
    why = cannot_keep(memory_id, found[0] if found else None, utcnow())
    if why is not None:
        raise ConflictDecided(f"keep: {why}; keep the other or 'both'")
