"""The drain job: take waiting events off the stream in batches, embed them, write them, acknowledge.

Each stored batch is then reviewed (reinforcement, conflicts) by a job on the background queue.

Delivery is at least once (a crashed worker's entries are claimed by another after `claim_idle_ms`)
and the write is idempotent (the memory id derives from the event id, and a memory already in the
store is not written again), so every acknowledged event is stored exactly once. A stored event is
acknowledged once the store has made it durable (`Store.when_durable`): the embedded store's
periodic flush covers every batch written since the last, and until then the event stays on the
stream, where Redis keeps it.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from collections.abc import Container, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from pydantic import ValidationError
from redis import Redis
from redis.exceptions import RedisError
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from hub.conflicts.jobs import enqueue_review
from hub.connections import as_text
from hub.errors import describe_validation_error
from hub.forgetting import gone_why, tombstones
from hub.keys import Keys
from hub.metrics import RejectReason
from hub.models import EventCreate, Memory, check_time, memory_id_for
from hub.nature import nature_of
from hub.queue import schedule_drain
from hub.reembed.intake import may_take_events
from hub.screening import redact_raw, screen
from hub.secrets import SecretError, find_secrets, redact
from hub.services import Services
from hub.status import EventState, dead_letter, mark_stored, refuse
from hub.store.indexing import request_indexing
from hub.vectors import memory_points
from workers.context import JobContext

Entry = tuple[bytes, dict[bytes, bytes] | None]

log = logging.getLogger(__name__)


@dataclass
class DrainReport:
    batches: int = 0
    stored: int = 0
    already_stored: int = 0
    rejected: int = 0
    failed: int = 0
    batch_sizes: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class Accepted:
    entry_id: bytes
    event_id: str
    memory: Memory
    raw: str


def consumer_name() -> str:
    """One stream consumer per worker thread, so a crash leaves its entries attributable."""
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"


def drain(ctx: JobContext) -> dict[str, Any]:
    """RQ job: drain the stream with this worker's services, then have the store indexed if enough
    new memories wait for it."""
    services = ctx.services
    report = drain_stream(services, consumer=consumer_name(), stopping=ctx.stopping)
    if report.stored:
        request_indexing(
            services.redis,
            services.background_queue,
            services.keys,
            services.store,
            threshold=services.settings.store_index_threshold,
        )
    return report.as_dict()


def drain_stream(
    services: Services,
    *,
    consumer: str,
    max_batches: int | None = None,
    stopping: threading.Event | None = None,
) -> DrainReport:
    settings, keys, redis = services.settings, services.keys, services.redis
    # Cleared before reading: an event appended after this point schedules a new drain.
    redis.delete(keys.drain_scheduled)
    report = DrainReport()
    size = settings.ingest_batch_size
    model = services.embedder.identity.sha256
    for _ in range(max_batches or settings.ingest_batches_per_job):
        if stopping is not None and stopping.is_set():  # what is left waits on the stream for the next start
            break
        if not may_take_events(redis, keys, settings.collection, model_sha256=model):
            # A reembed runs, or switched the store to another model: events wait on the stream, and the
            # sweeper schedules another drain while they do.
            log.info("events wait on the stream: the store is being re-embedded or holds another model")
            return report
        entries, deliveries = take_batch(
            redis,
            keys,
            consumer,
            size=size,
            claim_idle_ms=settings.claim_idle_ms,
            held=services.unacknowledged,
        )
        if not entries:
            return report
        if len(entries) == size:
            # A backlog: let an idle worker start draining beside this one.
            schedule_drain(redis, services.queue, keys)
        ingest_with_backoff(services, entries, deliveries=deliveries, report=report)
    schedule_drain(redis, services.queue, keys)
    return report


def ingest_with_backoff(
    services: Services, entries: Sequence[Entry], *, deliveries: dict[bytes, int], report: DrainReport
) -> None:
    """`ingest_batch`, retried with jittered exponential backoff while the store (or model) fails.

    A store that is down for a while costs time, not events: nothing is acknowledged until the
    batch is written, and when the retries run out the job fails with the entries still pending,
    for the next drain to claim. Redis errors are not retried here: without Redis there is no batch.
    """

    def log_retry(state: RetryCallState) -> None:
        failure = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        log.warning(
            "batch of %d failed (%s: %s); retrying in %.1f s",
            len(entries),
            type(failure).__name__,
            failure,
            wait,
        )

    retrying = Retrying(
        stop=stop_after_attempt(services.settings.store_retries + 1),
        # Full jitter, a random wait up to 0.5 s, 1 s, 2 s ... 30 s: workers whose batches failed
        # on one outage of the store do not all come back to it at the same instant.
        wait=wait_random_exponential(multiplier=0.5, max=30),
        # The store's and the model's errors are many kinds; all are retried, but not Redis's, nor a
        # BaseException such as a stop request.
        retry=retry_if_exception(lambda e: isinstance(e, Exception) and not isinstance(e, RedisError)),
        before_sleep=log_retry,
        reraise=True,  # the last try's own error ends the job, not tenacity's RetryError
    )
    retrying(ingest_batch, services, entries, deliveries=deliveries, report=report)


def take_batch(
    redis: Redis,
    keys: Keys,
    consumer: str,
    *,
    size: int,
    claim_idle_ms: int,
    held: Container[bytes] = frozenset(),
) -> tuple[list[Entry], dict[bytes, int]]:
    """Up to `size` entries: first those a dead or stuck consumer left unacknowledged (but none of
    `held`, stored here and waiting for the store's flush), then new ones."""
    entries: list[Entry] = []
    deliveries: dict[bytes, int] = {}
    pending: Any = redis.xpending_range(
        keys.stream, keys.group, min="-", max="+", count=size, idle=claim_idle_ms
    )
    stale = [p for p in pending if p["message_id"] not in held]
    if stale:
        ids = [p["message_id"] for p in stale]
        deliveries = {p["message_id"]: int(p["times_delivered"]) + 1 for p in stale}
        claimed: Any = redis.xclaim(keys.stream, keys.group, consumer, claim_idle_ms, ids)
        entries += claimed
    if len(entries) < size:
        fresh: Any = redis.xreadgroup(keys.group, consumer, {keys.stream: ">"}, count=size - len(entries))
        for _stream, items in fresh or []:
            entries += items
    return entries, deliveries


def release_abandoned(redis: Redis, keys: Keys, *, claim_idle_ms: int) -> int:
    """Make every entry taken but not acknowledged claimable at once; returns how many there were.

    Only for a hub that owns its Redis alone (`memhub up` holding its data directory): at its start
    nobody can still be working on them. The delivery count is left as it is (JUSTID), so the drain
    that claims them still counts toward dead-lettering an event that crashes every try.
    """
    released, start = 0, "-"
    while True:
        page: Any = redis.xpending_range(keys.stream, keys.group, min=start, max="+", count=1000)
        if not page:
            return released
        ids = [p["message_id"] for p in page]
        redis.xclaim(keys.stream, keys.group, "released", 0, ids, idle=claim_idle_ms, justid=True)
        released += len(ids)
        start = f"({as_text(ids[-1])}"


def ingest_batch(
    services: Services, entries: Sequence[Entry], *, deliveries: dict[bytes, int], report: DrainReport
) -> None:
    """Validate, embed, write, then mark and enqueue the review, all for one batch; acknowledge the
    refused events at once and the stored ones when the store has made them durable.

    The review (reinforcement, conflicts) is a job of its own on the background queue, enqueued in
    the same transaction as the statuses: at a backlog, workers store first and review after.
    """
    settings, keys = services.settings, services.keys
    started = time.perf_counter()
    pipe = services.redis.pipeline(transaction=True)
    pipe.multi()  # explicit, so that RQ enqueues the review job inside this transaction
    accepted: list[Accepted] = []
    rejected: list[RejectReason] = []
    written = already_written(services, entries, deliveries)
    for entry_id, fields in entries:
        if fields is None:  # deleted from the stream after delivery: nothing left to store
            continue
        raw = fields.get(b"event", b"").decode("utf-8", "replace")
        event_id = fields.get(b"id", entry_id).decode("utf-8", "replace")
        if secret := find_secrets(event_id):
            # Written to the stream by hand, past the SDK's and the API's screen: the id would become a
            # Redis key and the memory's event_id. Refused under its redacted form, the only one kept.
            error = f"id: {SecretError(secret)}"
            dead_letter(
                pipe,
                keys,
                event_id=redact(event_id, secret),
                status=EventState.rejected,
                error=error,
                raw=redact_raw(raw),
            )
            report.rejected += 1
            rejected.append("secret")
            continue
        if deliveries.get(entry_id, 0) > settings.max_deliveries and event_id not in written:
            error = (
                f"delivered {deliveries[entry_id]} times without being stored "
                "(a worker crashed or the store failed on each try); replay it with `memhub dlq replay`"
            )
            # Dead letters keep the raw event for replay, but never a secret it held.
            dead_letter(
                pipe, keys, event_id=event_id, status=EventState.failed, error=error, raw=redact_raw(raw)
            )
            report.failed += 1
            rejected.append("undeliverable")
            continue
        try:
            memory = parse_entry(event_id, raw, redact_secrets=settings.secrets_policy == "redact")
        # parse_entry reads this entry alone: whatever it raises is the entry's fault, not the batch's.
        except Exception as exc:
            if isinstance(exc, ValueError):
                error = str(exc)
            else:  # a check parse_entry lacks: the entry is still refused alone, with the real cause
                log.warning("event %s rejected: unexpected %s", event_id, type(exc).__name__)
                error = f"event: could not be read ({type(exc).__name__}: {exc})"
            error = redact(error)  # a cause may quote the event: an unknown field's name, say
            dead_letter(
                pipe, keys, event_id=event_id, status=EventState.rejected, error=error, raw=redact_raw(raw)
            )
            report.rejected += 1
            rejected.append("secret" if isinstance(exc, SecretError) else "invalid")
            continue
        accepted.append(Accepted(entry_id, event_id, memory, raw))

    # A redelivered event whose memory was already written is not written again, only reviewed again.
    unique = {a.memory.id: a.memory for a in accepted}
    existing = {m.id: m.agent for m in services.store.get(list(unique))} if unique else {}
    # Once its status expired, an id is free to publish again; if another agent's memory holds it, the
    # event is refused here, or it would be acknowledged as stored without being stored.
    for a in [a for a in accepted if existing.get(a.memory.id, a.memory.agent) != a.memory.agent]:
        accepted.remove(a)
        error = f"id: {a.event_id!r} is already the id of another agent's memory; publish with another id"
        raw = redact_raw(a.raw)
        dead_letter(pipe, keys, event_id=a.event_id, status=EventState.rejected, error=error, raw=raw)
        report.rejected += 1
        rejected.append("id_taken")
    # Looked up after the store: a redelivery racing the owner's forget finds the memory still stored
    # (and writes nothing) or its tombstone, which `hub.forgetting` writes before deleting the memory.
    gone = tombstones(services.redis, keys, [m for m in unique if m not in existing])
    for a in [a for a in accepted if a.memory.id in gone]:
        accepted.remove(a)
        refuse(pipe, keys, event_id=a.event_id, error=gone_why(gone[a.memory.id]))
        pipe.expire(keys.status(a.event_id), settings.status_ttl_seconds)
        report.rejected += 1
        rejected.append("forgotten")
    fresh = [m for m in unique.values() if m.id not in existing and m.id not in gone]
    write_memories(services, fresh)  # an exception leaves the batch unacknowledged, for a retry
    events_by_memory: dict[str, list[str]] = {}
    for a in accepted:
        mark_stored(pipe, keys, a.event_id, a.memory.id)
        pipe.expire(keys.status(a.event_id), settings.status_ttl_seconds)
        events_by_memory.setdefault(a.memory.id, []).append(a.event_id)
    enqueue_review(services.background_queue, events_by_memory, pipeline=pipe)
    held = {a.entry_id for a in accepted}
    refused = [entry_id for entry_id, _ in entries if entry_id not in held]
    if refused:  # their dead letters and statuses are written in this transaction
        pipe.xack(keys.stream, keys.group, *refused)
        pipe.xdel(keys.stream, *refused)
    pipe.execute()
    if held:
        # A flush holds the interpreter for tens of milliseconds, so batches share the store's next
        # one rather than each making its own: searches stop for one flush a second, not one a batch.
        services.unacknowledged.update(held)
        services.store.when_durable(
            partial(acknowledge, services.redis, keys, sorted(held), services.unacknowledged)
        )
    metrics = services.metrics
    metrics.ingest_batch_size.observe(len(entries))
    metrics.events_stored.inc(len(accepted))
    for reason in rejected:
        metrics.reject(reason)
    took = (time.perf_counter() - started) * 1000
    # One line a batch; its request id is the drain job's (`workers.worker.MemhubWorker.perform_job`).
    log.info(
        "batch of %d events: %d stored, %d refused, %.0f ms",
        len(entries),
        len(accepted),
        len(rejected),
        took,
        extra={
            "events": len(entries),
            "stored": len(accepted),
            "rejected": len(rejected),
            "duration_ms": round(took, 1),
        },
    )
    report.batches += 1
    report.batch_sizes.append(len(entries))
    report.stored += len(fresh)
    report.already_stored += len(accepted) - len(fresh)


def acknowledge(redis: Redis, keys: Keys, entry_ids: Sequence[bytes], held: set[bytes]) -> None:
    """Acknowledge and delete stored events' entries, and stop holding them; ones that fail stay
    pending, to be claimed again after `claim_idle_ms` and found already stored."""
    try:
        pipe = redis.pipeline(transaction=True)
        pipe.xack(keys.stream, keys.group, *entry_ids)
        pipe.xdel(keys.stream, *entry_ids)
        pipe.execute()
    finally:
        held.difference_update(entry_ids)


def already_written(services: Services, entries: Sequence[Entry], deliveries: dict[bytes, int]) -> set[str]:
    """The event ids, among entries delivered too often, whose memory is in the store already.

    Such an event was written by a try whose acknowledgement then failed (Redis went away between the
    store's write and the transaction): it is stored, and goes through as such, not dead-lettered as
    failed. Looked up by the id the memory derives from, before reading the entry, which may be what
    crashed the tries before; one whose memory is found was read once already.
    """
    limit = services.settings.max_deliveries
    over = [
        memory_id_for(fields.get(b"id", entry_id).decode("utf-8", "replace"))
        for entry_id, fields in entries
        if fields is not None and deliveries.get(entry_id, 0) > limit
    ]
    return {m.event_id for m in services.store.get(over)} if over else set()


def write_memories(services: Services, memories: Sequence[Memory]) -> None:
    """Embed `memories` (dense, sentences and BM25) and upsert them into the store, in one model call."""
    if not memories:
        return
    with services.metrics.embed_seconds.time():
        points = memory_points(
            memories, services.embedder, services.sparse, batch_size=services.settings.encode_batch_size
        )
    services.store.upsert(points)


def parse_entry(event_id: str, raw: str, *, redact_secrets: bool = False) -> Memory:
    """The memory a stream entry describes; ValueError naming what is wrong otherwise."""
    try:
        envelope = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"event: not valid JSON ({exc.msg} at position {exc.pos})") from exc
    except RecursionError as exc:
        raise ValueError("event: nested too deeply to read; an event is an object of plain fields") from exc
    if not isinstance(envelope, dict) or not isinstance(envelope.get("event"), dict):
        raise ValueError('event: expected {"received_at": ..., "event": {...}}')
    try:
        event = EventCreate.model_validate(envelope["event"])
    except ValidationError as exc:
        raise ValueError(describe_validation_error(exc)) from exc
    event = screen(event, redact_secrets=redact_secrets)  # publishers that bypass the SDK are screened here
    try:
        received_at = datetime.fromisoformat(str(envelope.get("received_at")))
    except ValueError as exc:
        raise ValueError("received_at: expected an ISO 8601 time with a timezone") from exc
    # A naive time could not be compared with the others (searches failed); one near year 9999 overflowed.
    check_time("received_at", received_at)
    memory = Memory.from_event(event, event_id=event_id, received_at=received_at)
    return memory.model_copy(update={"nature": nature_of(memory)})
