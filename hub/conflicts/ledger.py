"""The conflict ledger: every contradiction found, with both statements, kept in Redis.

Redis is the hub's durable log (append-only file on in every mode), so the ledger survives restarts
of the embedded hub like the events do. One JSON document per conflict, a time index of them all and
one per agent (to page what an agent is a side of), one of the open conflicts (to page those without
reading the decided ones, which pile up for good), and for each memory the set of its open conflicts (to
mark search hits cheaply) and the set of all of them (to find, in forgetting it, the conflicts that quote it).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from itertools import dropwhile

from pydantic import BaseModel, Field
from redis import Redis
from redis.exceptions import WatchError

from hub.conflicts.judge import Severity
from hub.connections import as_text
from hub.keys import Keys
from hub.models import Scope, utcnow


class ConflictStatus(StrEnum):
    open = "open"
    resolved = "resolved"
    auto_resolved = "auto_resolved"
    dismissed = "dismissed"


class Side(BaseModel):
    """One of the two memories in a conflict, as it stood when the conflict was found."""

    memory_id: str
    text: str
    agent: str
    channel: str | None = None
    source: str | None = None
    occurred_at: datetime


class Resolution(BaseModel):
    keep: str = Field(description="The memory id kept, or `both`.")
    by: str = Field(description="`owner`, an agent, or `hub` for automatic resolutions.")
    note: str | None = None
    at: datetime


class Conflict(BaseModel):
    id: str
    memory_ids: list[str] = Field(description="[older, newer]")
    statements: list[str]
    agents: list[str]
    channels: list[str | None]
    sources: list[str | None]
    severity: Severity
    reason: str = Field(description="Why the judge called it a conflict.")
    inferred: bool = Field(
        False,
        description="Read from a change the newer memory reports ('quit', 'from now on') rather than from "
        "values compared; never resolved automatically.",
    )
    scope: Scope
    project: str | None = None
    person: str | None = None
    status: ConflictStatus = ConflictStatus.open
    proposal: str | None = Field(None, description="The memory id the hub proposes to keep.")
    resolution: Resolution | None = None
    created_at: datetime
    updated_at: datetime

    @property
    def open(self) -> bool:
        return self.status is ConflictStatus.open


def conflict_id(memory_a: str, memory_b: str) -> str:
    """The same pair always gets the same id, so finding it twice records it once."""
    low, high = sorted((memory_a, memory_b))
    return "c-" + hashlib.sha256(f"{low}|{high}".encode()).hexdigest()[:20]


def record(redis: Redis, keys: Keys, conflict: Conflict) -> bool:
    """Add a conflict unless its pair is already in the ledger; True when it was new.

    The document and its indexes are written in one transaction: a worker killed between them would
    leave a conflict that its review, run again, finds by id and never indexes (never listed, asked
    or marked on search hits).
    """
    key = keys.conflict(conflict.id)
    with redis.pipeline(transaction=True) as pipe:
        try:
            pipe.watch(key)  # type: ignore[no-untyped-call]
            if pipe.exists(key):
                return False
            pipe.multi()
            pipe.set(key, conflict.model_dump_json())
            pipe.zadd(keys.conflicts, {conflict.id: conflict.created_at.timestamp()})
            for agent in set(conflict.agents):
                pipe.zadd(keys.agent_conflicts(agent), {conflict.id: conflict.created_at.timestamp()})
            for memory_id in conflict.memory_ids:
                pipe.sadd(keys.memory_conflicts(memory_id), conflict.id)
            if conflict.open:
                pipe.zadd(keys.open_conflicts, {conflict.id: conflict.created_at.timestamp()})
                for memory_id in conflict.memory_ids:
                    pipe.sadd(keys.memory_open_conflicts(memory_id), conflict.id)
            pipe.execute()
        except WatchError:  # recorded meanwhile by another review of the pair
            return False
    return True


def save(redis: Redis, keys: Keys, conflict: Conflict) -> None:
    """Write back a changed conflict and keep the open-conflict index and sets in step."""
    conflict.updated_at = utcnow()
    pipe = redis.pipeline(transaction=True)
    pipe.set(keys.conflict(conflict.id), conflict.model_dump_json())
    if conflict.open:
        pipe.zadd(keys.open_conflicts, {conflict.id: conflict.created_at.timestamp()})
    else:
        pipe.zrem(keys.open_conflicts, conflict.id)
    for memory_id in conflict.memory_ids:
        if conflict.open:
            pipe.sadd(keys.memory_open_conflicts(memory_id), conflict.id)
        else:
            pipe.srem(keys.memory_open_conflicts(memory_id), conflict.id)
    pipe.execute()


def get(redis: Redis, keys: Keys, cid: str) -> Conflict | None:
    raw = redis.get(keys.conflict(cid))
    return Conflict.model_validate_json(raw) if raw else None


def all_conflicts(redis: Redis, keys: Keys) -> list[Conflict]:
    """Every conflict, newest first."""
    members: list[bytes] = redis.zrevrange(keys.conflicts, 0, -1)  # type: ignore[assignment]
    return _load(redis, keys, [as_text(i) for i in members])


@dataclass(frozen=True, order=True)
class Position:
    """A conflict's place in the ledger's order: its score in the time index (when it was recorded), then
    its id, which orders conflicts recorded at the same instant as Redis does. The ledger is read from
    the greatest position down (newest first)."""

    score: float
    conflict_id: str

    @classmethod
    def of(cls, conflict: Conflict) -> Position:
        # `record` scores the index with `created_at`, which nothing changes after: the document says
        # its own place, and reading the index without scores costs a quarter (redis-py parses each).
        return cls(conflict.created_at.timestamp(), conflict.id)

    def __str__(self) -> str:
        # repr: the shortest text that reads back as the same float, so Redis finds the same score.
        return f"{self.score!r}:{self.conflict_id}"

    @classmethod
    def parse(cls, text: str) -> Position:
        """The position `str()` wrote; ValueError for anything else."""
        score, _, conflict_id = text.partition(":")
        if not conflict_id or not math.isfinite(float(score)):
            raise ValueError(f"not a place in the ledger: {text!r}")
        return cls(float(score), conflict_id)


# Where a page starts, as the routes take it: a `Position` written out ("1767225600.123456:c-…").
# Exponents of two digits at most: every finite score fits, and no text reads as infinity.
POSITION_PATTERN = r"^-?\d{1,20}(\.\d{1,20})?(e[+-]?\d{1,2})?:\S{1,200}$"

# A filtered page reads the ledger this many conflicts at a time until it has its fill.
SCAN_CHUNK = 500


def agent_index(redis: Redis, keys: Keys, agent: str) -> str:
    """The time index of the conflicts `agent` is a side of (`record` keeps it). A ledger recorded before
    these indexes existed is indexed here once, from its documents; doing it twice does no harm."""
    _build_once(redis, keys, keys.agent_conflicts_built, _index_agents)
    return keys.agent_conflicts(agent)


def _index_agents(redis: Redis, keys: Keys, ids: Sequence[str]) -> None:
    pipe = redis.pipeline(transaction=False)
    for conflict in _load(redis, keys, ids):
        for side in set(conflict.agents):
            pipe.zadd(keys.agent_conflicts(side), {conflict.id: conflict.created_at.timestamp()})
    pipe.execute()


def open_index(redis: Redis, keys: Keys) -> str:
    """The time index of the open conflicts (`record` and `save` keep it). A ledger recorded before it
    existed is indexed here once, from its documents; doing it twice does no harm.

    A conflict recorded meanwhile is safe: `record` indexes it whether or not this has run. One decided
    meanwhile is not by itself: read open here, then saved decided (and taken out of the index, where it
    was not yet), then added here, it would stay listed as open. Each read is watched, and done again if
    a document read changed before its conflicts were added. None is ever opened again once decided.
    """
    _build_once(redis, keys, keys.open_conflicts_built, _index_open)
    return keys.open_conflicts


def _build_once(
    redis: Redis, keys: Keys, built: str, index: Callable[[Redis, Keys, Sequence[str]], None]
) -> None:
    """Unless the marker `built` is set: `index` the whole ledger, SCAN_CHUNK conflicts at a time, then set it."""
    if redis.exists(built):
        return
    ids: list[bytes] = redis.zrange(keys.conflicts, 0, -1)  # type: ignore[assignment]
    for chunk in range(0, len(ids), SCAN_CHUNK):
        index(redis, keys, [as_text(i) for i in ids[chunk : chunk + SCAN_CHUNK]])
    redis.set(built, b"1")


def open_batches(redis: Redis, keys: Keys) -> Iterator[list[Conflict]]:
    """Every open conflict, SCAN_CHUNK at a time, in no particular order (the gauges of `hub.metrics`)."""
    ids: list[bytes] = redis.zrange(open_index(redis, keys), 0, -1)  # type: ignore[assignment]
    for chunk in range(0, len(ids), SCAN_CHUNK):
        # One decided since the index was read is left out, as `page` leaves it out.
        yield [c for c in _load(redis, keys, [as_text(i) for i in ids[chunk : chunk + SCAN_CHUNK]]) if c.open]


def _index_open(redis: Redis, keys: Keys, ids: Sequence[str]) -> None:
    """Add those of `ids` that are open to the open index, as their documents stand when it is done."""
    with redis.pipeline(transaction=True) as pipe:
        while True:
            try:
                pipe.watch(*[keys.conflict(i) for i in ids])  # type: ignore[no-untyped-call]
                opened = [c for c in _load(pipe, keys, ids) if c.open]
                pipe.multi()
                for conflict in opened:
                    pipe.zadd(keys.open_conflicts, {conflict.id: conflict.created_at.timestamp()})
                pipe.execute()
                return
            except WatchError:  # one was decided meanwhile: read them again
                continue


def _batches(
    redis: Redis, keys: Keys, start: Position | None, chunk: int, index: str
) -> Iterator[list[Conflict]]:
    """The ledger (or the part of it `index` holds) from `start` (included) down, newest first, `chunk`
    conflicts a read.

    Every read starts below the last conflict read, by score and id, never at a count of entries: a
    conflict recorded meanwhile (newer than `start`, or a worker's clock behind among the rest) moves
    none from one read, or page, to the next, so none is read twice or skipped.
    """
    bound, included = start, True
    while True:
        want = chunk
        while True:
            top = "+inf" if bound is None else repr(bound.score)
            ids: list[bytes] = redis.zrevrangebyscore(index, top, "-inf", start=0, num=want)  # type: ignore[assignment]
            read = _load(redis, keys, [as_text(i) for i in ids])
            below = _below(read, bound, included)
            if below or len(ids) < want:
                break
            want *= 2  # a whole read tied with the bound, before it, or gone since: read further
        if below:
            yield below
        if len(ids) < want:
            return
        bound, included = Position.of(below[-1]), False


def _below(read: list[Conflict], bound: Position | None, included: bool) -> list[Conflict]:
    """Those of `read` below `bound` (or at it, `included`). The score bound also takes in conflicts of
    the bound's instant that come before it, which are read first: left out."""
    if bound is None:
        return read

    def above(conflict: Conflict) -> bool:
        at = Position.of(conflict)
        return at > bound or (at == bound and not included)

    return list(dropwhile(above, read))


def page(
    redis: Redis,
    keys: Keys,
    *,
    limit: int,
    start: Position | None = None,
    agent: str | None = None,
    open_only: bool = False,
    where: Callable[[list[Conflict]], list[Conflict]] | None = None,
) -> tuple[list[Conflict], Position | None]:
    """Up to `limit` conflicts from `start` down, newest first, and where the next page starts (None
    on the last page). `where` keeps those of a batch it wants, in their order.

    Unfiltered, a page is one read of `limit + 1` index entries and their documents; with `agent`, of
    that agent's index (every SDK read names its agent); `open_only`, of the open conflicts' (an agent
    polling its questions), and with both, of the smaller of the two, the other checked on the documents.
    The other filters are fields of the documents, which have no index of their own, so a page `where`
    filters reads on in batches until it has `limit + 1` kept: all the conflicts in its index, at worst,
    for a filter few of them pass.
    """
    index, sifted = _index_for(redis, keys, agent=agent, open_only=open_only)
    chunk = limit + 1 if where is None and not sifted else max(limit + 1, SCAN_CHUNK)
    kept: list[Conflict] = []
    for batch in _batches(redis, keys, start, chunk, index):
        if open_only:  # also leaves out one decided between the read of the index and of its document
            batch = [c for c in batch if c.open and (agent is None or agent in c.agents)]
        kept += batch if where is None else where(batch)
        if len(kept) > limit:
            break
    return kept[:limit], (Position.of(kept[limit]) if len(kept) > limit else None)


def _index_for(redis: Redis, keys: Keys, *, agent: str | None, open_only: bool) -> tuple[str, bool]:
    """The index to page for these, and whether it holds others too (to be sifted from its documents)."""
    if not open_only:
        return (keys.conflicts if agent is None else agent_index(redis, keys, agent)), False
    opened = open_index(redis, keys)
    if agent is None:
        return opened, False
    mine = agent_index(redis, keys, agent)
    # The open ones are few unless the owner leaves questions unanswered; an agent's may be fewer still.
    pipe = redis.pipeline(transaction=False)
    pipe.zcard(opened)
    pipe.zcard(mine)
    open_count, my_count = pipe.execute()
    return (opened if open_count <= my_count else mine), True


def _load(redis: Redis, keys: Keys, ids: Sequence[str]) -> list[Conflict]:
    """These conflicts, in one read; an id no longer stored is left out."""
    raws = redis.mget([keys.conflict(i) for i in ids]) if ids else []
    return [Conflict.model_validate_json(r) for r in raws if r]


def open_conflicts_of(redis: Redis, keys: Keys, memory_ids: Sequence[str]) -> dict[str, list[str]]:
    """For each memory, the ids of the open conflicts it sits in."""
    pipe = redis.pipeline(transaction=False)
    for memory_id in memory_ids:
        pipe.smembers(keys.memory_open_conflicts(memory_id))
    return {m: sorted(x.decode() for x in ids) for m, ids in zip(memory_ids, pipe.execute(), strict=True)}


def conflicts_about(redis: Redis, keys: Keys, memory_ids: Sequence[str]) -> list[Conflict]:
    """Every conflict, open or decided, that one of `memory_ids` is a side of, newest first: read from
    the memories' own sets, whatever the size of the ledger. A ledger recorded before those sets existed
    is indexed once, from its documents; a conflict's sides never change, so no write can race that."""
    _build_once(redis, keys, keys.memory_conflicts_built, _index_memories)
    pipe = redis.pipeline(transaction=False)
    for memory_id in memory_ids:
        pipe.smembers(keys.memory_conflicts(memory_id))
    ids = sorted({as_text(i) for found in pipe.execute() for i in found})
    return sorted(_load(redis, keys, ids), key=Position.of, reverse=True)


def _index_memories(redis: Redis, keys: Keys, ids: Sequence[str]) -> None:
    pipe = redis.pipeline(transaction=False)
    for conflict in _load(redis, keys, ids):
        for memory_id in conflict.memory_ids:
            pipe.sadd(keys.memory_conflicts(memory_id), conflict.id)
    pipe.execute()


def proposed_over(redis: Redis, keys: Keys, memory_ids: Sequence[str]) -> dict[str, str]:
    """For each memory that is the side an open conflict does not propose, the side it proposes (of
    its latest such conflict): the memory that, until the owner decides, may have replaced it. That is
    the newer side, unless it repeats what the older, a correction, denied (`hub.conflicts.review`)."""
    found = {m: cids for m, cids in open_conflicts_of(redis, keys, memory_ids).items() if cids}
    conflicts = _load(redis, keys, sorted({cid for cids in found.values() for cid in cids}))
    proposed: dict[str, str] = {}
    for conflict in sorted(conflicts, key=lambda c: c.created_at):
        keep = conflict.proposal if conflict.proposal in conflict.memory_ids else conflict.memory_ids[-1]
        for other in conflict.memory_ids:
            if other != keep and other in found and conflict.open:
                proposed[other] = keep
    return proposed


def matching(
    conflicts: Iterable[Conflict],
    *,
    status: ConflictStatus | None = None,
    severity: Severity | None = None,
    scope: Scope | None = None,
    project: str | None = None,
    person: str | None = None,
    agent: str | None = None,
) -> list[Conflict]:
    return [
        c
        for c in conflicts
        if (status is None or c.status is status)
        and (severity is None or c.severity is severity)
        and (scope is None or c.scope is scope)
        and (project is None or c.project == project)
        and (person is None or c.person == person)
        and (agent is None or agent in c.agents)
    ]
