"""The dead-letter list: events that were rejected or failed, with the cause; replay them."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from hub.api.deps import ServicesDep
from hub.queue import schedule_drain
from hub.status import DeadLetter, list_dead_letters, replay_dead_letters

router = APIRouter(prefix="/v1/dlq", tags=["dead letters"])


class DeadLetterList(BaseModel):
    dead_letters: list[DeadLetter]


class Replayed(BaseModel):
    ids: list[str]


@router.get("", summary="List dead letters", response_model=DeadLetterList)
def list_all(services: ServicesDep, limit: Annotated[int, Query(ge=1, le=10_000)] = 100) -> DeadLetterList:
    """Events rejected (invalid, a secret) or failed (after MEMHUB_MAX_DELIVERIES), each with its cause."""
    return DeadLetterList(dead_letters=list_dead_letters(services.redis, services.keys, limit=limit))


@router.post("/replay", summary="Replay dead letters", response_model=Replayed)
def replay(services: ServicesDep, event_id: str | None = None) -> Replayed:
    """Put dead letters (all, or `event_id`) back on the stream; fix the cause first for rejected ones."""
    ids = replay_dead_letters(
        services.redis,
        services.keys,
        status_ttl_seconds=services.settings.status_ttl_seconds,
        event_id=event_id,
    )
    if ids:
        schedule_drain(services.redis, services.queue, services.keys)
    return Replayed(ids=ids)
