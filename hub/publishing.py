"""Publishing: events become durable entries on the Redis stream, atomically and idempotently."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from redis import Redis

from hub.connections import as_text
from hub.keys import Keys
from hub.models import EventCreate, utcnow
from hub.screening import screen_all
from hub.summaries import expand, summary_event_id

# One script per batch: for each event not seen before, record its status (with the agent that
# published it) and append it to the stream. Running as a script makes the batch all-or-nothing and
# makes an id its agent publishes again a no-op; an id another agent holds refuses the whole batch,
# before anything is written, so that no agent can take (and drop) another's event.
_PUBLISH = """
local status_prefix = ARGV[1]
local ttl = tonumber(ARGV[2])
local queued_at = ARGV[3]
local owners = {}
for i = 4, #ARGV, 3 do
  local owner = owners[ARGV[i]] or redis.call('HGET', status_prefix .. ARGV[i], 'agent')
  if owner and owner ~= ARGV[i + 1] then
    return {'taken', ARGV[i]}
  end
  owners[ARGV[i]] = ARGV[i + 1]
end
local added = 0
for i = 4, #ARGV, 3 do
  local key = status_prefix .. ARGV[i]
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'status', 'queued', 'queued_at', queued_at, 'agent', ARGV[i + 1])
    redis.call('EXPIRE', key, ttl)
    redis.call('XADD', KEYS[1], '*', 'id', ARGV[i], 'event', ARGV[i + 2])
    added = added + 1
  end
end
return {'added', added}
"""


class EventIdTaken(ValueError):
    """An event's id is held by another agent's event; the message names it and says what to do."""

    def __init__(self, index: int, event_id: str) -> None:
        super().__init__(
            f"{index}.id: {event_id!r} is already the id of another agent's event; publish with another id"
        )
        self.index, self.event_id = index, event_id

    def __reduce__(self) -> tuple[object, ...]:
        return (EventIdTaken, (self.index, self.event_id))


@dataclass(frozen=True)
class Envelope:
    """An event as it travels on the stream: its id, when the hub received it, and the event."""

    id: str
    received_at: str
    event: dict[str, object]

    def encode(self) -> str:
        return json.dumps({"received_at": self.received_at, "event": self.event}, separators=(",", ":"))


def event_id(event: EventCreate) -> str:
    """The client's id when given (idempotency), else a fresh one."""
    return event.id or uuid.uuid4().hex


def publish(
    redis: Redis,
    events: Sequence[EventCreate],
    *,
    keys: Keys,
    status_ttl_seconds: int,
    redact_secrets: bool = False,
) -> list[str]:
    """Append validated events to the stream; returns their ids once Redis holds them.

    Ids this agent already published are not appended again, so publishing twice stores one memory;
    an id another agent published raises `EventIdTaken`. An event holding a secret raises
    `SecretInEvent`, one that redacting would leave invalid `hub.errors.InvalidEvent`: in each case nothing of the batch is published.
    """
    # Refused (or redacted) before anything reaches Redis: a secret is never stored, even queued.
    events = screen_all(list(events), redact_secrets=redact_secrets)
    received_at = utcnow().isoformat()
    envelopes = [
        Envelope(id=event_id(e), received_at=received_at, event=e.model_dump(mode="json", exclude_none=True))
        for e in events
    ]
    # A session summary travels with one event per item it lists, derived from its id (hub.summaries).
    derived = [
        (Envelope(id=i, received_at=received_at, event=d.model_dump(mode="json", exclude_none=True)), e.agent)
        for envelope, e in zip(envelopes, events, strict=True)
        for i, d in expand(envelope.id, e)
    ]
    argv: list[str] = [keys.status_prefix, str(status_ttl_seconds), received_at]
    for envelope, agent in [*zip(envelopes, (e.agent for e in events), strict=True), *derived]:
        argv += [envelope.id, agent, envelope.encode()]
    outcome, value = redis.eval(_PUBLISH, 1, keys.stream, *argv)
    if as_text(outcome) == "taken":
        taken = as_text(value)
        # A summary's item is taken along with the summary: name the id the caller gave.
        given = summary_event_id(taken) or taken
        raise EventIdTaken(next(i for i, e in enumerate(envelopes) if e.id == given), given)
    return [envelope.id for envelope in envelopes]
