"""Building events on the client side, with the agent's defaults filled in."""

from __future__ import annotations

from typing import Any

from hub.models import EventCreate


def build_event(text: str, *, agent: str, channel: str | None, **fields: Any) -> EventCreate:
    """An event for this agent; raises pydantic's ValidationError naming the field at fault."""
    data: dict[str, Any] = {"text": text, "agent": agent, **fields}
    if channel is not None:
        data.setdefault("channel", channel)
    return EventCreate.model_validate({k: v for k, v in data.items() if v is not None})
