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
from hub.auth.principal import Principal
from hub.errors import InvalidEvent
from hub.publishing import EventIdTaken, publish
from hub.queue import schedule_drain
from hub.screening import SecretInEvent
from hub.status import EventStatus, read_status, read_statuses

router = APIRouter(prefix="/v1/events", tags=["events"])


@router.post(
    "",
    summary="Publish events",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=EventsAccepted,
    responses={403: {"model": ErrorBody}, 409: {"model": ErrorBody}, 422: {"model": InvalidRequest}},
)
def publish_events(body: EventsCreate, services: ServicesDep, caller: CallerDep) -> EventsAccepted:
    """Queue 1 to 500 events. Once this returns their ids, the events are durable in Redis.

    The whole batch is validated first: one invalid event rejects the batch (422, naming the field)
    and nothing of it is stored. An event whose `id` its agent published before is not queued again;
    an `id` another agent's event holds is refused (409) and nothing of the batch is stored.
    An event holding a credential is refused naming the kind of secret (or redacted, if configured).
    """
    caller.check_publish(body.events)
    caller.check_corrections(body.events, services.store.get)
    settings, metrics = services.settings, services.metrics
    try:
        ids = publish(
            services.redis,
            body.events,
            keys=services.keys,
            status_ttl_seconds=settings.status_ttl_seconds,
            redact_secrets=settings.secrets_policy == "redact",
        )
    except (SecretInEvent, InvalidEvent) as exc:
        # The whole batch is refused, so every event of it counts.
        metrics.reject("secret" if isinstance(exc, SecretInEvent) else "invalid", len(body.events))
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, f"events.{exc}") from exc
    except EventIdTaken as exc:
        metrics.reject("id_taken", len(body.events))
        raise HTTPException(status.HTTP_409_CONFLICT, f"events.{exc}") from exc
    metrics.events_published.inc(len(ids))
    schedule_drain(services.redis, services.queue, services.keys)
    return EventsAccepted(ids=ids)


def visible(found: EventStatus | None, caller: Principal) -> EventStatus | None:
    """The status if the caller may see it: its own agent's events, or any at owner level."""
    if found is None or caller.owner_level or (caller.agent is not None and found.agent == caller.agent):
        return found
    return None


@router.get(
    "/{event_id}",
    summary="Get an event's status",
    response_model=EventStatusPublic,
    responses={404: {"model": ErrorBody}},
)
def event_status(event_id: str, services: ServicesDep, caller: CallerDep) -> EventStatusPublic:
    """Where an event is: queued, stored (with its memory id), rejected or failed (with the reason).

    A key limited to some scopes, projects or persons sees its own agent's events only; another's are
    404, as if unknown. A key without limits is at the owner's level, and sees any.
    """
    found = visible(read_status(services.redis, services.keys, event_id), caller)
    if found is None:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND, f"no event with id {event_id!r} (or its status expired)"
        )
    return EventStatusPublic.model_validate(found.model_dump())


@router.post("/statuses", summary="Get many events' statuses", response_model=EventStatuses)
def event_statuses(body: EventStatusesRequest, services: ServicesDep, caller: CallerDep) -> EventStatuses:
    """The statuses of up to 500 events in one call (importers waiting for a batch); null when unknown
    (or another agent's, for a key bound to an agent)."""
    found = [visible(s, caller) for s in read_statuses(services.redis, services.keys, body.ids)]
    return EventStatuses(
        statuses=[None if s is None else EventStatusPublic.model_validate(s.model_dump()) for s in found]
    )
