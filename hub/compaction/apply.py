"""Carrying out a compaction plan, each change recorded in the memory's history so it can be undone.

Merged copies are marked superseded (linked to the canonical memory) rather than deleted: search and
the core block leave them out all the same, and undoing a merge is then a matter of reading both
histories, since nothing was thrown away. Purged memories are the exception: an expired temporary
memory is meant to go, and the report lists what was purged. What it had superseded is not left
linked to a memory that no longer exists: it goes back to active, or, when the temporary memory was
itself superseded since, to the memory that replaced it.

Each change is made only if the memory is still as the plan saw it, so a plan applied while agents
keep writing never undoes their newer changes; what moved on is reported as skipped.
"""

from __future__ import annotations

from datetime import datetime

from redis import Redis

from hub.compaction.duplicates import Progress
from hub.compaction.plan import Compaction, MergePlan
from hub.compaction.scan import LIVE, expired_memories, superseded_by_winner
from hub.conflicts.ledger import open_conflicts_of
from hub.conflicts.resolve import settle_moot
from hub.keys import Keys
from hub.locks import writing
from hub.models import Change, Memory, State, Tier
from hub.store.base import MemoryStore

BY = "compaction"
# Merges reach into other agents' memories, so compactions write one at a time, and take turns with
# the review and with decisions on conflicts (`hub.locks`); writing is the short part (planning, which
# embeds and searches, runs in parallel).


def _one(store: MemoryStore, memory_id: str) -> Memory | None:
    found = store.get([memory_id])
    return found[0] if found else None


def _record(memory: Memory, change: Change) -> list[Change]:
    return [*memory.history, change]


def _reinstate(
    store: MemoryStore, loser: Memory, *, expired: str, successor: str | None, now: datetime, by: str
) -> None:
    """`loser` was superseded by `expired`: link it to what superseded that memory, or make it active again."""
    note = f"the temporary memory that superseded it expired: {expired}"
    if successor is None:
        fields: dict[str, object] = {"state": State.active, "superseded_by": None}
        changes = {"state": [loser.state.value, State.active.value], "superseded_by": [expired, None]}
        change = Change(at=now, action="restored", by=by, note=note, changes=changes)
    else:
        fields = {"superseded_by": successor}
        changes = {"superseded_by": [expired, successor]}
        note += f", and {successor} had superseded that"
        change = Change(at=now, action="superseded", by=by, note=note, changes=changes)
    store.update(loser.id, {**fields, "history": _record(loser, change)})


def purge(
    store: MemoryStore, memory_id: str, *, now: datetime, losers: dict[str, list[str]], by: str = BY
) -> bool:
    """Delete an expired memory, first reinstating what it superseded (`losers`: ids by their winner's id)."""
    memory = _one(store, memory_id)
    if memory is not None and not memory.expired(now):
        return False
    later = _one(store, memory.superseded_by) if memory is not None and memory.superseded_by else None
    for loser in store.get(losers.pop(memory_id, [])):
        if loser.state is not State.superseded or loser.superseded_by != memory_id:
            continue  # it moved on since
        successor = later.id if later is not None and later.id != loser.id else None
        _reinstate(store, loser, expired=memory_id, successor=successor, now=now, by=by)
        if successor is not None:  # should that one be purged later in this plan, the loser moves on again
            losers.setdefault(successor, []).append(loser.id)
    # Deleted last: if this stops half-way, the next compaction finds the expired memory and finishes.
    store.delete([memory_id])
    return True


def purge_and_settle(
    store: MemoryStore,
    redis: Redis,
    keys: Keys,
    memory_id: str,
    *,
    now: datetime,
    losers: dict[str, list[str]],
    by: str = BY,
) -> bool:
    """`purge`, then settle the open conflicts the memory sat in for their other side."""
    purged = purge(store, memory_id, now=now, losers=losers, by=by)
    if purged:  # nobody is asked about a memory that expired: the other side stands
        settle_moot(redis, keys, memory_id, why="expired and purged", by=by)
    return purged


def purge_expired(*, store: MemoryStore, redis: Redis, keys: Keys, now: datetime, by: str) -> list[str]:
    """Purge every agent's expired temporary memories, as their compactions would; the ids purged."""
    expired = expired_memories(store, now)
    if not expired:
        return []
    with writing(redis, keys) as lock:
        losers = superseded_by_winner(store)
        purged = []
        for memory_id in expired:
            lock.reacquire()  # still writing: the writers' lock is held afresh for a while
            if purge_and_settle(store, redis, keys, memory_id, now=now, losers=losers, by=by):
                purged.append(memory_id)
    return purged


def merge(store: MemoryStore, plan: MergePlan, *, now: datetime, stale_before: datetime) -> list[str]:
    """Fold the copies into the canonical memory; the ids skipped because they changed.

    A stale canonical memory that a copy verified since `stale_before` is active again: the fact was
    stated recently, and folded into a stale memory it would be reported stale.
    """
    found = {m.id: m for m in store.get([plan.canonical, *plan.merged])}
    canonical = found.get(plan.canonical)
    if canonical is None or canonical.state not in LIVE:
        return [plan.canonical, *plan.merged]
    copies = [found[i] for i in plan.merged if i in found and found[i].state in LIVE]
    skipped = [i for i in plan.merged if i not in {c.id for c in copies}]
    if not copies:
        return skipped

    sightings = list(canonical.sightings)
    known = {s.event_id for s in sightings}
    for sighting in sorted((s for c in copies for s in c.sightings), key=lambda s: s.at):
        if sighting.event_id not in known:
            known.add(sighting.event_id)
            sightings.append(sighting)
    related = [*canonical.related, *(c.id for c in copies if c.id not in canonical.related)]
    verified = max(m.last_verified for m in (canonical, *copies))
    fields: dict[str, object] = {"sightings": sightings, "related": related, "last_verified": verified}
    changes: dict[str, object] = {
        "sightings": [len(canonical.sightings), len(sightings)],
        "related": [canonical.related, related],
        "last_verified": [canonical.last_verified.isoformat(), verified.isoformat()],
    }
    if canonical.state is State.stale and verified >= stale_before:
        fields["state"] = State.active
        changes["state"] = [State.stale.value, State.active.value]
    change = Change(
        at=now,
        action="merged",
        by=BY,
        changes=changes,
        note="near-duplicates folded in: " + "; ".join(f"{c.id} ({c.agent}): {c.text}" for c in copies),
    )
    store.update(canonical.id, {**fields, "history": _record(canonical, change)})
    for copy in copies:
        change = Change(
            at=now,
            action="merged",
            by=BY,
            note=f"near-duplicate of {canonical.id}: {canonical.text}",
            changes={
                "state": [copy.state.value, State.superseded.value],
                "superseded_by": [copy.superseded_by, canonical.id],
            },
        )
        store.update(
            copy.id,
            {"state": State.superseded, "superseded_by": canonical.id, "history": _record(copy, change)},
        )
    return skipped


def mark_stale(store: MemoryStore, memory_id: str, *, before: datetime, now: datetime) -> bool:
    memory = _one(store, memory_id)
    if memory is None or memory.state is not State.active or memory.last_verified >= before:
        return False
    note = f"last verified {memory.last_verified:%Y-%m-%d}"
    change = Change(
        at=now,
        action="marked_stale",
        by=BY,
        note=note,
        changes={"state": [memory.state.value, State.stale.value]},
    )
    store.update(memory_id, {"state": State.stale, "history": _record(memory, change)})
    return True


def demote(store: MemoryStore, memory_id: str, *, note: str, now: datetime) -> bool:
    memory = _one(store, memory_id)
    if memory is None or memory.tier is not Tier.core or memory.state not in LIVE:
        return False
    change = Change(
        at=now, action="demoted", by=BY, note=note, changes={"tier": [Tier.core.value, Tier.archival.value]}
    )
    store.update(memory_id, {"tier": Tier.archival, "history": _record(memory, change)})
    return True


def apply_plan(
    plan: Compaction,
    *,
    store: MemoryStore,
    redis: Redis,
    keys: Keys,
    now: datetime,
    progress: Progress | None = None,
) -> Compaction:
    """Make the planned changes; the plan back, no longer a dry run, with what was skipped."""
    total, done = plan.changes, 0
    skipped: list[str] = []

    def step(ok: bool, memory_id: str, count: int = 1) -> None:
        nonlocal done
        lock.reacquire()  # still writing: the writers' lock is held afresh for a while
        done += count
        if not ok:
            skipped.append(memory_id)
        if progress:
            progress("applying", done, total)

    size, budget = plan.core_before, plan.budget
    over = f"core over budget: {size.words} words, {size.lines} lines (budget {budget.words}, {budget.lines})"
    with writing(redis, keys) as lock:
        losers = superseded_by_winner(store) if plan.purge else {}
        for memory_id in plan.purge:
            step(purge_and_settle(store, redis, keys, memory_id, now=now, losers=losers), memory_id)
        contested = open_conflicts_of(redis, keys, [m for group in plan.merge for m in group.merged])
        for group in plan.merge:
            # A copy in an open conflict stays itself until the owner decides: merged away, the
            # conflict would be about a memory that no longer stands.
            waiting = [m for m in group.merged if contested[m]]
            free = group.model_copy(update={"merged": [m for m in group.merged if not contested[m]]})
            missed = merge(store, free, now=now, stale_before=plan.stale_before)
            skipped += waiting + missed
            step(True, group.canonical, len(group.merged) + 1)
        for memory_id in plan.mark_stale:
            step(mark_stale(store, memory_id, before=plan.stale_before, now=now), memory_id)
        for memory_id in plan.demote:
            step(demote(store, memory_id, note=f"{over}: one of the least important", now=now), memory_id)
    return plan.model_copy(update={"dry_run": False, "skipped": skipped})
