"""Forgetting a memory at the owner's request: the memory, and every copy of its words the hub keeps.

What goes:
- the memory, and the near-duplicates compaction merged into it (the same fact in other words);
- its words in the conflict ledger: its statement, its source and the judge's reason (which may quote
  it) read FORGOTTEN; an open conflict it sits in is settled for the other side;
- its promotion proposals, its weekly review entry, its use count, and the compaction reports that
  quote it (a merge plan lists the texts it merged);
- its words in the history of the memories it is linked to (a correction's text in what it corrected,
  a merged copy's text in the memory that kept it).

What stays, and says so: a memory it superseded stays superseded, with a note naming no words.
Forgetting a correction does not bring back what it corrected, which the owner said was wrong.

Every forgotten id is kept as a tombstone (when, by whom; never the words): an event delivered again
under it is refused instead of stored anew, and reading it says why it is gone. The ids of the events
folded into it as restatements are tombstoned too, as they name the same memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, Field
from redis import Redis
from rq import Queue

from hub.compaction.jobs import drop_reports_quoting
from hub.conflicts import ledger
from hub.conflicts.ledger import Conflict
from hub.conflicts.resolve import settle_moot
from hub.keys import Keys
from hub.models import Change, Memory, State, Tier, memory_id_for, utcnow
from hub.promotion import proposals, usage, weekly
from hub.store.base import MemoryStore

FORGOTTEN = "[forgotten]"
WHY = "forgotten at the owner's request"
FORGOTTEN_REASON = "[forgotten: the reason quoted a memory the owner had the hub forget]"


class Tombstone(BaseModel):
    """What is kept of a forgotten memory: its id, when, and who asked."""

    memory_id: str = Field(
        description="The memory the owner asked to forget (this id may be one merged into it)."
    )
    at: datetime
    by: str


class Forgotten(BaseModel):
    """What forgetting a memory removed and changed."""

    memory_id: str
    forgotten: list[str] = Field(
        description="Memories removed: this one and the near-duplicates merged into it."
    )
    conflicts: list[str] = Field(description="Conflicts whose statement of it now reads `[forgotten]`.")
    settled: list[str] = Field(description="Of those, the ones that were open: settled for the other side.")
    proposals: list[str] = Field(description="Promotion proposals removed.")
    noted: list[str] = Field(
        description="Memories linked to it whose history quoted it (now `[forgotten]`), or that it had "
        "superseded (they stay superseded, with a note)."
    )
    reports: list[str] = Field(description="Compaction jobs whose report quoted it: deleted.")


def tombstones(redis: Redis, keys: Keys, memory_ids: Sequence[str]) -> dict[str, Tombstone]:
    """The forgotten among `memory_ids`, by id."""
    if not memory_ids:
        return {}
    raws = redis.hmget(keys.forgotten, list(memory_ids))
    return {m: Tombstone.model_validate_json(r) for m, r in zip(memory_ids, raws, strict=True) if r}


def gone_why(tombstone: Tombstone) -> str:
    """Why a memory cannot be read or stored again, for an error message."""
    at = tombstone.at.isoformat(timespec="seconds")
    return f"memory {tombstone.memory_id} was forgotten at the owner's request ({tombstone.by}, {at})"


def forget(
    redis: Redis, keys: Keys, store: MemoryStore, queue: Queue, memory: Memory, *, by: str
) -> Forgotten:
    """Forget `memory` (see the module). The caller holds the writers' lock (`hub.locks.writing`): the
    linked memories are rewritten from what is read of them here."""
    family = _with_merged_copies(store, memory)
    ids = {m.id for m in family}
    # Tombstones first: an event delivered again from now on is refused (`workers.ingest` reads them
    # after looking for the memory, so a redelivery either finds it still stored or finds the tombstone).
    stone = Tombstone(memory_id=memory.id, at=utcnow(), by=by).model_dump_json()
    named = ids | {memory_id_for(s.event_id) for m in family for s in m.sightings}
    redis.hset(keys.forgotten, mapping=dict.fromkeys(sorted(named), stone))

    about = ledger.conflicts_about(redis, keys, sorted(ids))
    settled = []
    for mid in sorted(ids):
        settled += [c.id for c in settle_moot(redis, keys, mid, why=WHY, by=by)]
    for conflict in about:
        ledger.save(redis, keys, _redacted(ledger.get(redis, keys, conflict.id) or conflict, ids))

    removed = _drop_promotion_state(redis, keys, ids)
    texts = [m.text for m in family]
    reports = drop_reports_quoting(queue, texts)
    linked = {r for m in family for r in m.related} | {m.superseded_by for m in family if m.superseded_by}
    linked |= {side for c in about for side in c.memory_ids}
    noted = []
    for other in store.get(sorted(linked - ids)):
        successor_gone = other.state is State.superseded and other.superseded_by in ids
        if fields := _scrubbed(other, texts, successor_gone=successor_gone, by=by, forgotten=memory.id):
            store.update(other.id, fields)
            noted.append(other.id)
    store.delete(sorted(ids))
    store.flush()
    return Forgotten(
        memory_id=memory.id,
        forgotten=sorted(ids),
        conflicts=[c.id for c in about],
        settled=settled,
        proposals=removed,
        noted=sorted(noted),
        reports=reports,
    )


def _with_merged_copies(store: MemoryStore, memory: Memory) -> list[Memory]:
    """The memory and the near-duplicates compaction merged into it (it lists them in `related`),
    theirs included."""
    family, todo, seen = [memory], [memory], {memory.id}
    while todo:
        keeper = todo.pop()
        for copy in store.get([r for r in keeper.related if r not in seen]):
            merged = any(change.action == "merged" for change in copy.history)
            if copy.state is State.superseded and copy.superseded_by == keeper.id and merged:
                seen.add(copy.id)
                family.append(copy)
                todo.append(copy)
    return family


def _redacted(conflict: Conflict, ids: set[str]) -> Conflict:
    """The conflict with the forgotten side's words and source replaced, and the judge's reason."""
    sides = [i for i, mid in enumerate(conflict.memory_ids) if mid in ids]
    statements, sources = list(conflict.statements), list(conflict.sources)
    for i in sides:
        statements[i], sources[i] = FORGOTTEN, None
    return conflict.model_copy(
        update={"statements": statements, "sources": sources, "reason": FORGOTTEN_REASON}
    )


def _drop_promotion_state(redis: Redis, keys: Keys, ids: set[str]) -> list[str]:
    """Remove the memories' proposals (which quote them), weekly entries and use counts; the proposal
    ids removed."""
    removed = []
    for mid in sorted(ids):
        for tier in Tier:
            if proposals.remove(redis, keys, proposals.proposal_id(mid, tier)):
                removed.append(proposals.proposal_id(mid, tier))
        weekly.remove(redis, keys, mid)
        usage.forget_uses(redis, keys, mid)
    return removed


def _scrubbed(
    memory: Memory, texts: Sequence[str], *, successor_gone: bool, by: str, forgotten: str
) -> dict[str, object]:
    """The fields to write so `memory`'s history quotes none of `texts`, and records that its successor
    was forgotten; empty when nothing changes."""
    history = []
    for change in memory.history:
        note = change.note
        for text in texts:
            note = note.replace(text, FORGOTTEN) if note else note
        history.append(change if note == change.note else change.model_copy(update={"note": note}))
    if successor_gone:
        history.append(
            Change(
                at=utcnow(),
                action="successor_forgotten",
                by=by,
                note=f"memory {forgotten}, which superseded this one, was forgotten at the "
                "owner's request; this one stays superseded",
            )
        )
    return {"history": history} if history != memory.history else {}
