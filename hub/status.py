"""Event status records and the dead-letter list."""

from __future__ import annotations

import json
from enum import StrEnum

from pydantic import BaseModel
from redis import Redis
from redis.client import Pipeline

from hub.connections import as_text
from hub.keys import Keys
from hub.models import utcnow


class EventState(StrEnum):
    queued = "queued"
    stored = "stored"
    rejected = "rejected"
    failed = "failed"


class EventStatus(BaseModel):
    id: str
    status: EventState
    memory_id: str | None = None
    error: str | None = None
    reviewed: bool = False
    agent: str | None = None  # who published it; None for an entry written straight to the stream

    @classmethod
    def from_fields(cls, event_id: str, fields: dict[str, str]) -> EventStatus:
        status = EventState(fields["status"])
        # Records written before the review ran as a job of its own were reviewed when stored.
        default = "1" if status is EventState.stored else "0"
        return cls(
            id=event_id,
            status=status,
            memory_id=fields.get("memory_id"),
            error=fields.get("error"),
            reviewed=fields.get("reviewed", default) == "1",
            agent=fields.get("agent"),
        )


class DeadLetter(BaseModel):
    id: str
    status: EventState
    error: str
    raw: str
    at: str


def read_status(redis: Redis, keys: Keys, event_id: str) -> EventStatus | None:
    raw = redis.hgetall(keys.status(event_id))
    if not raw:
        return None
    return EventStatus.from_fields(event_id, {as_text(k): as_text(v) for k, v in raw.items()})


def read_statuses(redis: Redis, keys: Keys, event_ids: list[str]) -> list[EventStatus | None]:
    """Many statuses in one round trip; None where an id is unknown (or its status expired)."""
    pipe = redis.pipeline(transaction=False)
    for event_id in event_ids:
        pipe.hgetall(keys.status(event_id))
    found: list[EventStatus | None] = []
    for event_id, raw in zip(event_ids, pipe.execute(), strict=True):
        fields = {as_text(k): as_text(v) for k, v in raw.items()}
        found.append(EventStatus.from_fields(event_id, fields) if fields else None)
    return found


def mark_stored(pipe: Pipeline, keys: Keys, event_id: str, memory_id: str) -> None:
    """Stored and searchable; the review that may fold it into an older memory is still to come."""
    pipe.hset(
        keys.status(event_id),
        mapping={"status": EventState.stored.value, "memory_id": memory_id, "reviewed": "0"},
    )


def mark_reviewed(redis: Redis, keys: Keys, memory_by_event: dict[str, str | None]) -> None:
    """Reviewed: each event's memory id is final (the memory it was folded into, if it was; None
    leaves the id as it is). Only records that still exist are touched: an expired one stays gone.
    """
    ids = list(memory_by_event)
    check = redis.pipeline(transaction=False)
    for event_id in ids:
        check.exists(keys.status(event_id))
    pipe = redis.pipeline(transaction=False)
    for event_id, present in zip(ids, check.execute(), strict=True):
        if present:
            memory_id = memory_by_event[event_id]
            if memory_id is None:
                pipe.hset(keys.status(event_id), "reviewed", "1")
            else:
                pipe.hset(keys.status(event_id), mapping={"memory_id": memory_id, "reviewed": "1"})
    pipe.execute()


def dead_letter(
    pipe: Pipeline, keys: Keys, *, event_id: str, status: EventState, error: str, raw: str
) -> None:
    """Record why an event was not stored, on its status and in the dead-letter list."""
    pipe.hset(keys.status(event_id), mapping={"status": status.value, "error": error})
    letter = DeadLetter(id=event_id, status=status, error=error, raw=raw, at=utcnow().isoformat())
    pipe.rpush(keys.dead_letters, letter.model_dump_json())


def refuse(pipe: Pipeline, keys: Keys, *, event_id: str, error: str) -> None:
    """Record why an event was not stored, on its status only: no dead letter keeps its words, as it
    names a memory the owner had the hub forget, and replaying it would be refused again."""
    pipe.hset(keys.status(event_id), mapping={"status": EventState.rejected.value, "error": error})


def list_dead_letters(redis: Redis, keys: Keys, *, limit: int = 100) -> list[DeadLetter]:
    return [DeadLetter.model_validate(json.loads(x)) for x in redis.lrange(keys.dead_letters, 0, limit - 1)]


def replay_dead_letters(
    redis: Redis, keys: Keys, *, status_ttl_seconds: int, event_id: str | None = None
) -> list[str]:
    """Put dead-lettered events (all, or one) back on the stream as they were received.

    A status record that expired since is made again as publishing makes it: with the event's agent
    (so that the agent's key can read it) and the status lifetime.
    """
    replayed = []
    for raw in redis.lrange(keys.dead_letters, 0, -1):
        letter = DeadLetter.model_validate(json.loads(raw))
        if event_id is not None and letter.id != event_id:
            continue
        status = keys.status(letter.id)
        expired = not redis.exists(status)
        pipe = redis.pipeline(transaction=True)
        pipe.lrem(keys.dead_letters, 1, as_text(raw))
        pipe.hset(status, "status", EventState.queued.value)
        pipe.hdel(status, "error")
        if expired:
            if agent := _agent_of(letter.raw):
                pipe.hset(status, "agent", agent)
            pipe.expire(status, status_ttl_seconds)
        pipe.xadd(keys.stream, {"id": letter.id, "event": letter.raw})
        pipe.execute()
        replayed.append(letter.id)
    return replayed


def _agent_of(raw: str) -> str | None:
    """The agent a dead letter's event names, if it can be read (a rejected one may be malformed)."""
    try:
        agent = json.loads(raw)["event"]["agent"]
    except (ValueError, KeyError, TypeError):
        return None
    return agent if isinstance(agent, str) else None
