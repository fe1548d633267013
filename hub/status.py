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
    fields = {as_text(k): as_text(v) for k, v in raw.items()}
    return EventStatus(
        id=event_id,
        status=EventState(fields["status"]),
        memory_id=fields.get("memory_id"),
        error=fields.get("error"),
    )


def read_statuses(redis: Redis, keys: Keys, event_ids: list[str]) -> list[EventStatus | None]:
    """Many statuses in one round trip; None where an id is unknown (or its status expired)."""
    pipe = redis.pipeline(transaction=False)
    for event_id in event_ids:
        pipe.hgetall(keys.status(event_id))
    found: list[EventStatus | None] = []
    for event_id, raw in zip(event_ids, pipe.execute(), strict=True):
        fields = {k.decode(): v.decode() for k, v in raw.items()}
        found.append(
            EventStatus(
                id=event_id,
                status=EventState(fields["status"]),
                memory_id=fields.get("memory_id"),
                error=fields.get("error"),
            )
            if fields
            else None
        )
    return found


def mark_stored(pipe: Pipeline, keys: Keys, event_id: str, memory_id: str) -> None:
    pipe.hset(keys.status(event_id), mapping={"status": EventState.stored.value, "memory_id": memory_id})


def dead_letter(
    pipe: Pipeline, keys: Keys, *, event_id: str, status: EventState, error: str, raw: str
) -> None:
    """Record why an event was not stored, on its status and in the dead-letter list."""
    pipe.hset(keys.status(event_id), mapping={"status": status.value, "error": error})
    letter = DeadLetter(id=event_id, status=status, error=error, raw=raw, at=utcnow().isoformat())
    pipe.rpush(keys.dead_letters, letter.model_dump_json())


def list_dead_letters(redis: Redis, keys: Keys, *, limit: int = 100) -> list[DeadLetter]:
    return [DeadLetter.model_validate(json.loads(x)) for x in redis.lrange(keys.dead_letters, 0, limit - 1)]


def replay_dead_letters(redis: Redis, keys: Keys, *, event_id: str | None = None) -> list[str]:
    """Put dead-lettered events (all, or one) back on the stream as they were received."""
    replayed = []
    for raw in redis.lrange(keys.dead_letters, 0, -1):
        letter = DeadLetter.model_validate(json.loads(raw))
        if event_id is not None and letter.id != event_id:
            continue
        pipe = redis.pipeline(transaction=True)
        pipe.lrem(keys.dead_letters, 1, as_text(raw))
        pipe.hset(keys.status(letter.id), "status", EventState.queued.value)
        pipe.hdel(keys.status(letter.id), "error")
        pipe.xadd(keys.stream, {"id": letter.id, "event": letter.raw})
        pipe.execute()
        replayed.append(letter.id)
    return replayed
