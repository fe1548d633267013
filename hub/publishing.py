"""Publishing: events become durable entries on the Redis stream, atomically and idempotently."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from redis import Redis

from hub.keys import Keys
from hub.models import EventCreate, utcnow
from hub.screening import screen_all
from hub.summaries import expand

# One script per batch: for each event not seen before, record its status and append it to the
# stream. Running as a script makes the batch all-or-nothing and makes a repeated id a no-op.
_PUBLISH = """
local status_prefix = ARGV[1]
local ttl = tonumber(ARGV[2])
local queued_at = ARGV[3]
local added = 0
for i = 4, #ARGV, 2 do
  local key = status_prefix .. ARGV[i]
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'status', 'queued', 'queued_at', queued_at)
    redis.call('EXPIRE', key, ttl)
    redis.call('XADD', KEYS[1], '*', 'id', ARGV[i], 'event', ARGV[i + 1])
    added = added + 1
  end
end
return added
"""


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

    Ids already published are not appended again, so publishing twice stores one memory.
    An event holding a secret raises `SecretInEvent` and nothing of the batch is published.
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
        Envelope(id=i, received_at=received_at, event=d.model_dump(mode="json", exclude_none=True))
        for envelope, e in zip(envelopes, events, strict=True)
        for i, d in expand(envelope.id, e)
    ]
    argv: list[str] = [keys.status_prefix, str(status_ttl_seconds), received_at]
    for envelope in [*envelopes, *derived]:
        argv += [envelope.id, envelope.encode()]
    redis.eval(_PUBLISH, 1, keys.stream, *argv)
    return [envelope.id for envelope in envelopes]
