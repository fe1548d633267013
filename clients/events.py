"""Building events on the client side, with the agent's defaults filled in."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from hub.models import EventCreate


def build_event(text: str, *, agent: str, channel: str | None, **fields: Any) -> EventCreate:
    """An event for this agent; raises pydantic's ValidationError naming the field at fault."""
    data: dict[str, Any] = {"text": text, "agent": agent, **fields}
    if channel is not None:
        data.setdefault("channel", channel)
    return EventCreate.model_validate({k: v for k, v in data.items() if v is not None})


def with_ids(events: Iterable[EventCreate]) -> list[EventCreate]:
    """The events, each with an id: the caller's, else a new one made here, before the first try.

    A publish whose answer is lost (a timeout, a dropped connection) may have reached the hub; sent
    again with the same ids, it still stores each event once.
    """
    return [e if e.id else e.model_copy(update={"id": uuid.uuid4().hex}) for e in events]


class NotAcknowledged(RuntimeError):
    """A publish that got no answer after its last try: it may have reached the hub, or not.

    `events` carry the ids they were given before the first try: publish them again
    (`publish_many(error.events)`) and each is stored once, whether or not a try got through.
    Publishing the same text again instead gives it a new id, and a second sighting wherever the
    first had arrived.
    """

    def __init__(self, events: list[EventCreate], cause: BaseException) -> None:
        self.events = events
        self.event_ids = [event.id for event in events]
        shown = ", ".join(str(i) for i in self.event_ids[:3]) + (", ..." if len(events) > 3 else "")
        super().__init__(
            f"no answer for {len(events)} event(s) ({shown}) after every try ({cause}); they may be "
            "stored: publish error.events again, with these ids, to store each once"
        )
