"""Prometheus metrics: the counters a process moves as it works, and the hub's gauges read at scrape time.

Each process builds one `Metrics` (with its `Services`) on a registry of its own; nothing is global.
Labels come from fixed sets (a tier, a severity, a reason class), never from an agent, a project, a
person or a memory's words, so a scrape shows nothing about what the owner's memory holds.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from redis import Redis
from rq import Queue

from hub.conflicts import ledger
from hub.conflicts.judge import Severity
from hub.conflicts.resolve import cannot_keep
from hub.keys import Keys
from hub.models import Tier, utcnow
from hub.settings import Settings
from hub.store import MemoryStore
from hub.store.base import MemoryFilter

log = logging.getLogger(__name__)

# Why an event was not stored, in classes an operator can alert on; the full cause is on its status.
RejectReason = Literal["invalid", "secret", "id_taken", "forgotten", "undeliverable"]
REJECT_REASONS: tuple[RejectReason, ...] = ("invalid", "secret", "id_taken", "forgotten", "undeliverable")

# A batch holds 1 to MEMHUB_INGEST_BATCH_SIZE (at most 4096) events.
BATCH_SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
# One model call per batch: ~10 ms for one event, seconds for a full batch on a small CPU.
EMBED_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
# A search encodes the query and runs one fused store query: tens of milliseconds.
SEARCH_BUCKETS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5)


@dataclass
class Metrics:
    """What this process counts; `registry` is what its `/metrics` serves."""

    registry: CollectorRegistry = field(default_factory=lambda: CollectorRegistry(auto_describe=True))
    events_published: Counter = field(init=False)
    events_stored: Counter = field(init=False)
    events_rejected: Counter = field(init=False)
    ingest_batch_size: Histogram = field(init=False)
    embed_seconds: Histogram = field(init=False)
    search_seconds: Histogram = field(init=False)
    hub_gauges: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        r = self.registry
        ProcessCollector(registry=r)  # resident memory and CPU, to size the pods' requests by
        self.events_published = Counter(
            "memhub_events_published", "Events accepted by POST /v1/events.", registry=r
        )
        self.events_stored = Counter(
            "memhub_events_stored", "Events a worker stored (searchable) and acknowledged.", registry=r
        )
        self.events_rejected = Counter(
            "memhub_events_rejected",
            "Events refused, when published or by a worker, by reason class.",
            ["reason"],
            registry=r,
        )
        for reason in REJECT_REASONS:
            self.events_rejected.labels(reason)  # every class is exported from the start, at 0
        self.ingest_batch_size = Histogram(
            "memhub_ingest_batch_size",
            "Events a worker took off the stream in one batch.",
            buckets=BATCH_SIZE_BUCKETS,
            registry=r,
        )
        self.embed_seconds = Histogram(
            "memhub_embed_seconds",
            "Seconds the model took to embed one ingest batch.",
            buckets=EMBED_BUCKETS,
            registry=r,
        )
        self.search_seconds = Histogram(
            "memhub_search_seconds",
            "Seconds POST /v1/search took, from the query to the hits.",
            buckets=SEARCH_BUCKETS,
            registry=r,
        )

    def reject(self, reason: RejectReason, count: int = 1) -> None:
        self.events_rejected.labels(reason).inc(count)

    def watch_hub(self, *, redis: Redis, keys: Keys, store: MemoryStore, settings: Settings) -> None:
        """Also export the hub-wide gauges (read at scrape time); once per registry, by the API."""
        if not self.hub_gauges:
            self.registry.register(HubGauges(redis=redis, keys=keys, store=store, settings=settings))
            self.hub_gauges = True


@dataclass(frozen=True, eq=False)
class HubGauges(Collector):
    """The hub's state, read from Redis and the store when Prometheus scrapes, never per request."""

    redis: Redis
    keys: Keys
    store: MemoryStore
    settings: Settings

    def describe(self) -> Iterator[GaugeMetricFamily]:
        # The names, without reading anything: registering must not touch Redis or the store.
        return iter(hub_gauge_families())

    def collect(self) -> Iterator[GaugeMetricFamily]:
        for read in (self._stream, self._queues, self._conflicts, self._memories):
            try:
                families = read()
            except Exception:  # one source down leaves its gauges out of this scrape, not the others
                log.warning("metrics: reading %s failed", read.__name__.strip("_"), exc_info=True)
                continue
            yield from families

    def _stream(self) -> list[GaugeMetricFamily]:
        waiting, taken = stream_backlog(self.redis, self.keys)
        return [stream_lag(waiting), stream_pending(taken)]

    def _queues(self) -> list[GaugeMetricFamily]:
        background = Queue(self.settings.background_queue_name, connection=self.redis)
        letters = int(self.redis.llen(self.keys.dead_letters))
        return [review_backlog(background.count), dead_letters(letters)]

    def _conflicts(self) -> list[GaugeMetricFamily]:
        counts = dict.fromkeys(Severity, 0)
        asked = []
        for batch in ledger.open_batches(self.redis, self.keys):
            for conflict in batch:
                counts[conflict.severity] += 1
                if conflict.severity.value in self.settings.conflict_ask_owner:
                    asked.append(conflict)
        # As GET /v1/questions: a side gone, superseded or expired is no question to ask.
        now = utcnow()
        stored = {m.id: m for m in self.store.get([m for c in asked for m in c.memory_ids])} if asked else {}
        standing = [c for c in asked if not any(cannot_keep(m, stored.get(m), now) for m in c.memory_ids)]
        by_severity = conflicts_open()
        for severity, count in counts.items():
            by_severity.add_metric([severity.value], count)
        return [by_severity, questions_open(len(standing))]

    def _memories(self) -> list[GaugeMetricFamily]:
        now, by_tier = utcnow(), memories()
        for tier in Tier:
            in_force = MemoryFilter(now=now, tiers=frozenset({tier}), all_scopes=True)
            by_tier.add_metric([tier.value], self.store.count(in_force))
        return [by_tier]


def hub_gauge_families() -> list[GaugeMetricFamily]:
    """The hub-wide gauges, without values."""
    return [
        stream_lag(),
        stream_pending(),
        review_backlog(),
        dead_letters(),
        conflicts_open(),
        questions_open(),
        memories(),
    ]


def stream_lag(value: float | None = None) -> GaugeMetricFamily:
    return GaugeMetricFamily(
        "memhub_stream_lag", "Events on the stream no worker has taken yet (the consumer group's lag).", value
    )


def stream_pending(value: float | None = None) -> GaugeMetricFamily:
    return GaugeMetricFamily(
        "memhub_stream_pending", "Events a worker has taken and is storing (not yet acknowledged).", value
    )


def review_backlog(value: float | None = None) -> GaugeMetricFamily:
    return GaugeMetricFamily(
        "memhub_review_backlog", "Jobs waiting on the background queue: reviews and promotion scoring.", value
    )


def dead_letters(value: float | None = None) -> GaugeMetricFamily:
    return GaugeMetricFamily("memhub_dead_letters", "Events on the dead-letter list.", value)


def conflicts_open() -> GaugeMetricFamily:
    return GaugeMetricFamily("memhub_conflicts_open", "Open conflicts, by severity.", labels=["severity"])


def questions_open(value: float | None = None) -> GaugeMetricFamily:
    return GaugeMetricFamily(
        "memhub_questions_open", "Open conflicts put to the owner whose two sides both still stand.", value
    )


def memories() -> GaugeMetricFamily:
    return GaugeMetricFamily(
        "memhub_memories", "Memories in force (neither superseded nor expired), by tier.", labels=["tier"]
    )


def stream_backlog(redis: Redis, keys: Keys) -> tuple[int, int]:
    """(events no worker has taken yet, events taken and not yet acknowledged) on the event stream.

    Redis 7 reports the group's lag; Redis 6.2 (the embedded one) does not, and the stream's length
    less the pending entries is the same number, as workers delete what they acknowledge.
    """
    groups: Any = redis.xinfo_groups(keys.stream)
    group = next((g for g in groups if _text(g["name"]) == keys.group), None)
    length = int(redis.xlen(keys.stream))
    if group is None:
        return length, 0
    pending = int(group["pending"])
    lag = group.get("lag")
    return (int(lag) if lag is not None else max(length - pending, 0)), pending


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
