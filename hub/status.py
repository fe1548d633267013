"""Event status records and the dead-letter list."""

from __future__ import annotations

import json
from enum import StrEnum

from pydantic import BaseModel
from redis import Redis
from redis.client import Pipeline

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
    fields = {k.decode(): v.decode() for k, v in raw.items()}
    return EventStatus(
        id=event_id,
        status=EventState(fields["status"]),
        memory_id=fields.get("memory_id"),
        error=fields.get("error"),
    )


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
