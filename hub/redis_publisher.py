"""Publishing straight to Redis, for agents inside the trusted deployment (no HTTP hop)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from hub.keys import Keys
from hub.models import EventCreate
from hub.publishing import publish
from hub.queue import make_queue, schedule_drain
from memhub_client.events import NotAcknowledged, event_fields, with_ids
from memhub_client.retry import retried

DEFAULT_STATUS_TTL = 7 * 24 * 3600


def build_event(text: str, *, agent: str, channel: str | None, **fields: Any) -> EventCreate:
    """An event for this agent, held to every rule the hub holds events to (ValidationError naming the
    field): nothing between here and the stream checks it."""
    return EventCreate.model_validate(event_fields(text, agent=agent, channel=channel, **fields))


def revalidated(events: Iterable[EventCreate], *, agent: str) -> list[EventCreate]:
    """The events validated again, each this agent's. Over HTTP the hub validates what it receives; here
    nothing does before the stream, and an event changed with `model_copy(update=...)` (never
    validated) would be queued, to be rejected later by a worker, its id already handed back."""
    checked = []
    for index, event in enumerate(events):
        if event.agent != agent:
            raise ValueError(f"{index}.agent: this publisher publishes as {agent!r}, not {event.agent!r}")
        # As the HTTP SDK sends it; a field set without validation is what is checked, so no warning.
        sent = event.model_dump(mode="json", exclude_none=True, warnings=False)
        checked.append(EventCreate.model_validate(sent))
    return checked


class RedisPublisher:
    """Publishes one agent's events onto the hub's stream; an id returned is durable in Redis.

    A publish that loses its connection or times out is tried again, up to `retries` times (waiting
    `backoff`, then twice as long, ...), with the same event ids: stored once, whether or not the
    first try reached Redis. An id another agent's event already holds raises
    `hub.publishing.EventIdTaken`, naming it: nothing of that batch is published.
    """

    def __init__(
        self,
        redis: Redis,
        *,
        agent: str,
        channel: str | None = None,
        prefix: str = "memhub",
        queue_name: str = "memhub",
        status_ttl_seconds: int = DEFAULT_STATUS_TTL,
        retries: int = 3,
        backoff: float = 0.5,
    ) -> None:
        self.redis = redis
        self.agent = agent
        self.channel = channel
        self.keys = Keys(prefix)
        self.queue = make_queue(redis, queue_name)
        self.status_ttl_seconds = status_ttl_seconds
        self.retries = retries
        self.backoff = backoff
        self._owned = False

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> RedisPublisher:
        """A publisher over its own connection, which `close()` (or leaving a `with` block) closes."""
        publisher = cls(Redis.from_url(url), **kwargs)
        publisher._owned = True
        return publisher

    def __enter__(self) -> RedisPublisher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection `from_url` opened; a Redis given is the caller's and stays open, as
        `Memhub` leaves a client given open."""
        if self._owned:
            self.redis.close()

    def publish(self, text: str, **fields: Any) -> str:
        """Validate and publish one memory; returns its event id. `channel=` overrides the publisher's."""
        channel = fields.pop("channel", self.channel)
        return self.publish_many([build_event(text, agent=self.agent, channel=channel, **fields)])[0]

    def publish_many(self, events: Iterable[EventCreate]) -> list[str]:
        """Validate and publish events; their ids. NotAcknowledged when no try got an answer (publish its
        `events` again).

        Refused before anything is sent, as over HTTP: an event that is not valid (pydantic's
        ValidationError naming the field) or not this publisher's agent's (ValueError).
        """
        batch = with_ids(revalidated(events, agent=self.agent))
        try:
            ids = retried(
                lambda: publish(
                    self.redis, batch, keys=self.keys, status_ttl_seconds=self.status_ttl_seconds
                ),
                retries=self.retries,
                backoff=self.backoff,
                transient=(RedisConnectionError, RedisTimeoutError),
            )
            schedule_drain(self.redis, self.queue, self.keys)
        except (RedisConnectionError, RedisTimeoutError) as exc:
            raise NotAcknowledged(batch, exc) from exc
        return ids
