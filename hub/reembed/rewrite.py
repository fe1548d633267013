"""`memhub reembed`: rewrite every memory's vectors with another model (or sparse encoder), in place.

The rewrite fills a new generation of the store beside the current one, page by page, while the hub
keeps answering searches from the current one with the old model. Workers leave events on the stream
meanwhile (`hub.reembed.intake`); the other writers (reviews, decisions, forgetting) go on, so a last
pass holding the writers' lock brings over whatever they changed, and the switch to the new
generation (`hub.store.current`) happens inside it. Killed at any point before the switch, the hub is
whole with the old model and a rerun takes up where it stopped; after it, whole with the new one.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from redis import Redis
from redis.exceptions import ResponseError

from hub.embedding import Embedder
from hub.keys import Keys
from hub.locks import writing
from hub.models import Memory
from hub.reembed import intake
from hub.settings import Settings
from hub.sparse import SparseEncoder
from hub.store import current
from hub.store.base import MemoryStore, from_payload
from hub.vectors import memory_points

log = logging.getLogger(__name__)

PAGE_SIZE = 256


@dataclass
class Progress:
    """Where a reembed stands; `total` is the count when it started."""

    total: int = 0
    read: int = 0
    embedded: int = 0
    deleted: int = 0
    stage: str = "copy"  # "copy", then "catch-up" holding the writers' lock, then "switched"
    seconds: float = 0.0


def reembed(
    settings: Settings,
    redis: Redis,
    *,
    embedder: Embedder,
    sparse: SparseEncoder,
    progress: Callable[[Progress], None] = lambda _: None,
    page_size: int = PAGE_SIZE,
) -> Progress:
    """Rewrite the hub's store with `embedder` and `sparse`, then switch the hub to it."""
    keys, collection = Keys(settings.redis_prefix), settings.collection
    started, done = time.perf_counter(), Progress()
    by = f"{socket.gethostname()}:{os.getpid()}"
    intake.hold(redis, keys, collection, by=by)
    source_name = current.current_name(settings)
    target_name = current.generation_name(collection, current.generation_of(collection, source_name) + 1)
    for dropped in current.drop_leftovers(settings, keep={target_name}):
        log.info("reembed: dropped %s, left by an earlier run", dropped)
    source = current.open_generation(settings, source_name)
    target = current.open_generation(settings, target_name, dimensions=embedder.dimensions)
    try:
        if target.dimensions != embedder.dimensions:  # left by a run with another model of another size
            target.close()
            current.drop_generation(settings, target_name)
            target = current.open_generation(settings, target_name, dimensions=embedder.dimensions)
        done.total = source.count()

        def step() -> None:
            intake.hold(redis, keys, collection, by=by)
            done.seconds = time.perf_counter() - started
            progress(done)

        _copy(source, target, embedder, sparse, done=done, page_size=page_size, step=step)
        _wait_for_batches_in_hand(redis, keys, timeout=settings.claim_idle_ms / 1000)
        with writing(redis, keys) as lock:
            done.stage = "catch-up"
            done.read = 0

            def locked_step() -> None:
                lock.reacquire()  # a long pass outlives the lock's hold otherwise
                step()

            _copy(source, target, embedder, sparse, done=done, page_size=page_size, step=locked_step)
            _drop_gone(source, target, done=done, page_size=page_size)
            target.record_model(embedder.identity)
            target.flush()
            source.close()
            target.close()
            current.switch_to(settings, target_name)
            redis.set(keys.store_model(collection), embedder.identity.sha256)
        done.stage = "switched"
        step()
    finally:
        source.close()
        target.close()
        intake.release(redis, keys, collection)
    return done


def _copy(
    source: MemoryStore,
    target: MemoryStore,
    embedder: Embedder,
    sparse: SparseEncoder,
    *,
    done: Progress,
    page_size: int,
    step: Callable[[], None],
) -> None:
    """Bring every memory of `source` into `target` with new vectors, skipping those already there as
    they are (a rerun's, or the first pass's when catching up)."""
    offset: str | None = None
    while True:
        page = source.scroll_payloads(limit=page_size, offset=offset)
        memories = [from_payload(payload) for payload in page.payloads.values()]
        there = {m.id: m for m in target.get([m.id for m in memories])}
        stale = [m for m in memories if there.get(m.id) != m]
        _write(target, stale, embedder, sparse)
        done.read += len(memories)
        done.embedded += len(stale)
        step()
        if page.next_offset is None:
            return
        offset = page.next_offset


def _write(
    target: MemoryStore, memories: Sequence[Memory], embedder: Embedder, sparse: SparseEncoder
) -> None:
    # The same vectors the ingest job writes (`workers.ingest.write_memories`), from the memory as it is now.
    if not memories:
        return
    target.upsert(memory_points(memories, embedder, sparse))


def _drop_gone(source: MemoryStore, target: MemoryStore, *, done: Progress, page_size: int) -> None:
    """Delete from `target` the memories forgotten or merged away in `source` since they were copied."""
    offset: str | None = None
    while True:
        page = target.scroll_payloads(limit=page_size, offset=offset)
        ids = list(page.payloads)
        kept = {m.id for m in source.get(ids)}
        gone = [i for i in ids if i not in kept]
        target.delete(gone)
        done.deleted += len(gone)
        if page.next_offset is None:
            return
        offset = page.next_offset


def _wait_for_batches_in_hand(redis: Redis, keys: Keys, *, timeout: float) -> None:
    """Wait until no worker holds a batch taken before intake was held, so the catch-up sees its write.

    A batch's events stay pending until it is written and acknowledged; those of a worker that died
    stay pending for good, and were never written: past `timeout` they are not waited for.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            summary = redis.xpending(keys.stream, keys.group)
        except ResponseError:  # no stream yet: no worker ever took a batch
            return
        if not summary or not summary["pending"]:
            return
        time.sleep(0.2)
