"""Session summaries: one `summary` event becomes one memory per decision, task, pattern and open loop.

The items are published as events of their own, beside the summary, so they take the ordinary path
(embedded in batches, reviewed, reinforcing what is already known). Their ids derive from the
summary's event id and the item's place in it, so publishing the summary again adds nothing, and a
memory can always tell which part of which summary it came from.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from hub.models import EventCreate, Kind, memory_id_for

# What each item takes from the summary event.
# `private` too: a direct conversation's decisions and loops are as private as its summary.
SHARED_FIELDS = {
    "agent",
    "scope",
    "project",
    "person",
    "ttl_seconds",
    "expires_at",
    "channel",
    "chat",
    "private",
    "session",
    "occurred_at",
    "confidence",
    "source",
}

# `~` never appears in a client's event id (see EventCreate.id), so a derived id cannot collide with one.
SEPARATOR = "~"


class Part(StrEnum):
    """The parts of a summary, as they appear in derived event ids."""

    decision = "decision"
    task = "task"
    pattern = "pattern"
    open_loop = "open_loop"
    promote = "promote"


def derived_id(summary_event_id: str, part: Part, index: int) -> str:
    return f"{summary_event_id}{SEPARATOR}{part}.{index}"


def part_of(event_id: str) -> Part | None:
    """Which part of a session summary an event was derived from; None for an event published as such."""
    _, sep, suffix = event_id.rpartition(SEPARATOR)
    name = suffix.split(".", 1)[0]
    return Part(name) if sep and name in Part.__members__ else None


def summary_event_id(event_id: str) -> str | None:
    """The event id of the summary a derived event came from."""
    head, sep, _ = event_id.rpartition(SEPARATOR)
    return head if sep else None


def expand(event_id: str, event: EventCreate) -> list[tuple[str, EventCreate]]:
    """The events a session summary stands for, with their derived ids (none for other events).

    A valid summary's items make valid events: SessionSummary's limits are the event's (`models.Why`).
    """
    summary = event.summary
    if summary is None:
        return []
    # Each item shares the summary's context (who, where, when, which session) and links back to it.
    shared = event.model_dump(include=SHARED_FIELDS, exclude_none=True)
    shared["related"] = [memory_id_for(event_id)]
    items: list[tuple[Part, dict[str, Any]]] = [
        *((Part.decision, {"text": d.text, "why": d.why, "kind": Kind.decision}) for d in summary.decisions),
        *(
            (Part.task, {"text": t, "kind": Kind.task, "why": "completed in the session"})
            for t in summary.tasks_completed
        ),
        *(
            (Part.pattern, {"text": p.text, "evidence": p.evidence, "kind": Kind.deduced})
            for p in summary.patterns
        ),
        *((Part.open_loop, {"text": o, "kind": Kind.open_loop}) for o in summary.open_loops),
        *(
            (Part.promote, {"text": t, "kind": Kind.fact, "why": "nominated for long-term memory"})
            for t in summary.promote
        ),
    ]
    counters: dict[Part, int] = {}
    derived = []
    for part, fields in items:
        index = counters[part] = counters.get(part, -1) + 1
        data = {**shared, **{k: v for k, v in fields.items() if v is not None}}
        derived.append((derived_id(event_id, part, index), EventCreate.model_validate(data)))
    return derived
