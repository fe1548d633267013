"""Publishing over HTTP, for agents that do not speak Redis."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, status

from hub.api.deps import CallerDep, ServicesDep
from hub.api.schemas import (
    ErrorBody,
    EventsAccepted,
    EventsCreate,
    EventStatuses,
    EventStatusesRequest,
    EventStatusPublic,
    InvalidRequest,
)
from hub.publishing import publish
from hub.queue import schedule_drain
from hub.screening import SecretInEvent
from hub.status import read_status, read_statuses

router = APIRouter(prefix="/v1/events", tags=["events"])


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=EventsAccepted,
    responses={403: {"model": ErrorBody}, 422: {"model": InvalidRequest}},
)
def publish_events(body: EventsCreate, services: ServicesDep, caller: CallerDep) -> EventsAccepted:
    """Queue 1 to 500 events. Once this returns their ids, the events are durable in Redis.

    The whole batch is validated first: one invalid event rejects the batch (422, naming the field)
    and nothing of it is stored. An event whose `id` was published before is not queued again.
    An event holding a credential is refused naming the kind of secret (or redacted, if configured).
    """
    caller.check_publish(body.events)
    settings = services.settings
    try:
        ids = publish(
            services.redis,
            body.events,
            keys=services.keys,
            status_ttl_seconds=settings.status_ttl_seconds,
            redact_secrets=settings.secrets_policy == "redact",
        )
    except SecretInEvent as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, f"events.{exc}") from exc
    schedule_drain(services.redis, services.queue, services.keys)
    return EventsAccepted(ids=ids)


@router.get("/{event_id}", response_model=EventStatusPublic, responses={404: {"model": ErrorBody}})
def event_status(event_id: str, services: ServicesDep) -> EventStatusPublic:
    """Where an event is: queued, stored (with its memory id), rejected or failed (with the reason)."""
    found = read_status(services.redis, services.keys, event_id)
    if found is None:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND, f"no event with id {event_id!r} (or its status expired)"
        )
    return EventStatusPublic.model_validate(found.model_dump())


@router.post("/statuses", response_model=EventStatuses)
def event_statuses(body: EventStatusesRequest, services: ServicesDep) -> EventStatuses:
    """The statuses of up to 500 events in one call (importers waiting for a batch); null when unknown."""
    found = read_statuses(services.redis, services.keys, body.ids)
    return EventStatuses(
        statuses=[None if s is None else EventStatusPublic.model_validate(s.model_dump()) for s in found]
    )
