"""Building events on the client side, with the agent's defaults filled in."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from memhub_client.models import EventCreate, SessionSummary

E = TypeVar("E", bound=BaseModel)


def event_fields(text: str, *, agent: str, channel: str | None, **fields: Any) -> dict[str, Any]:
    """An event's fields for this agent: its channel unless `fields` name one, and no None."""
    data: dict[str, Any] = {"text": text, "agent": agent, **fields}
    if channel is not None:
        data.setdefault("channel", channel)
    return {k: v for k, v in data.items() if v is not None}


def build_event(text: str, *, agent: str, channel: str | None, **fields: Any) -> EventCreate:
    """An event for this agent; raises pydantic's ValidationError naming the field at fault.

    The client checks what the OpenAPI document says (types, lengths, patterns); the rules that
    tie fields together (a `deduced` event's evidence, a project scope's project) are the hub's,
    and come back as its 422.
    """
    # As JSON first: a field given as another model with the same fields (the server's own
    # SessionSummary, say) is then read as this client's.
    return EventCreate.model_validate(
        to_jsonable_python(event_fields(text, agent=agent, channel=channel, **fields))
    )


def as_event(event: EventCreate | BaseModel | Mapping[str, Any]) -> EventCreate:
    """An event of this client's model, from a dict or another model with the same fields (the
    server's own `EventCreate`, which its importer builds)."""
    if isinstance(event, EventCreate):
        return event
    if isinstance(event, BaseModel):
        event = event.model_dump(mode="json", exclude_none=True, warnings=False)
    return EventCreate.model_validate(event)


def with_ids(events: Iterable[E]) -> list[E]:
    """The events, each with an id: the caller's, else a new one made here, before the first try.

    A publish whose answer is lost (a timeout, a dropped connection) may have reached the hub; sent
    again with the same ids, it still stores each event once.
    """
    return [e if getattr(e, "id", None) else e.model_copy(update={"id": uuid.uuid4().hex}) for e in events]


def describe(summary: SessionSummary, *, session: str) -> str:
    """A plain-words summary, for a `summary` event whose agent gave no text of its own."""
    parts = [
        ("decided", [d.text for d in summary.decisions]),
        ("done", summary.tasks_completed),
        ("noticed", [p.text for p in summary.patterns]),
        ("still open", summary.open_loops),
        ("to keep", summary.promote),
    ]
    said = "; ".join(f"{label}: {', '.join(items)}" for label, items in parts if items)
    return f"Session {session}: {said or 'nothing settled'}."


class NotAcknowledged(RuntimeError, Generic[E]):
    """A publish that got no answer after its last try: it may have reached the hub, or not.

    `events` carry the ids they were given before the first try: publish them again
    (`publish_many(error.events)`) and each is stored once, whether or not a try got through.
    Publishing the same text again instead gives it a new id, and a second sighting wherever the
    first had arrived.
    """

    def __init__(self, events: Sequence[E], cause: BaseException) -> None:
        self.events = list(events)
        self.event_ids: list[str] = [getattr(event, "id", None) or "" for event in events]
        shown = ", ".join(self.event_ids[:3]) + (", ..." if len(events) > 3 else "")
        super().__init__(
            f"no answer for {len(events)} event(s) ({shown}) after every try ({cause}); they may be "
            "stored: publish error.events again, with these ids, to store each once"
        )
