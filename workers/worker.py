"""The memhub worker: an RQ SimpleWorker that hands its jobs the services its process built.

SimpleWorker runs jobs in its own process instead of forking one per job: a fork per job would
throw away the loaded model and cannot share the embedded store, which has a single owning process.
"""

from __future__ import annotations

import logging
import threading
from typing import Any
from wsgiref.simple_server import WSGIServer

from prometheus_client import start_http_server
from redis.exceptions import RedisError
from rq import Queue, SimpleWorker
from rq.exceptions import StopRequested
from rq.executions import Execution
from rq.job import Job
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty

from hub.logs import serving
from hub.queue import schedule_drain
from hub.services import Services
from hub.store.migrations import backfill_at_start
from workers.context import ContextJob, JobContext

log = logging.getLogger(__name__)


class MemhubWorker(SimpleWorker):
    """A SimpleWorker that passes `context` to every job it runs; it can also run in a thread of the embedded hub."""

    job_class = ContextJob

    def __init__(self, queues: list[Queue], *, context: JobContext, **kwargs: Any) -> None:
        super().__init__(queues, **kwargs)
        self.context = context

    def request_stop(self, signum: int, frame: object) -> None:
        # RQ's warm shutdown waits for the job; a drain job then ends after the batch it holds
        # instead of going on through the backlog until the process is killed under it.
        self.context.stopping.set()
        super().request_stop(signum, frame)  # type: ignore[no-untyped-call]

    def perform_job(self, job: Job, queue: Queue, execution: Execution) -> bool:
        if isinstance(job, ContextJob):  # always, as this worker fetches jobs as its job_class
            job.context = self.context
        # Every line a job logs carries the job's id, as a request's lines carry the request's.
        with serving(job.id):
            performed: bool = super().perform_job(job, queue, execution)
        return performed

    def unsubscribe(self) -> None:
        # RQ sends the unsubscribe and then stops its pubsub thread, counting on the reply to wake
        # the thread; when the thread takes the reply first it polls another 60 s, and redis-py's
        # stop() waits that out. Stopping first makes the reply the thread's last message.
        thread = self.pubsub_thread
        if thread is None:
            return
        self.log.info("Worker %s: unsubscribing from channel %s", self.name, self.pubsub_channel_name)
        thread.stop(timeout=0)
        try:
            self.pubsub.unsubscribe()  # the reply wakes the thread, which closes the pubsub as it ends
        except RedisError as exc:
            log.warning("cannot unsubscribe from %s (%s)", self.pubsub_channel_name, exc)
        thread.join(timeout=5)
        if thread.is_alive():  # a daemon, so it cannot hold the process; its socket goes with it
            log.warning("the pubsub thread did not stop within 5 s; leaving it")
        self.pubsub_thread = None

    def stop(self) -> None:
        """Let the job in hand finish what it holds, and take no other."""
        self.context.stopping.set()
        self._stop_requested = True

    def _install_signal_handlers(self) -> None:
        # Signal handlers can only be installed from the main thread; in the embedded hub the
        # process owner handles signals and stops the worker threads itself.
        if threading.current_thread() is threading.main_thread():
            super()._install_signal_handlers()  # type: ignore[no-untyped-call]


class ThreadedWorker(MemhubWorker):
    """A worker thread of the embedded hub, stopped by its owner rather than by a signal."""

    # The default death penalty arms SIGALRM, which only the main thread may do.
    death_penalty_class = TimerDeathPenalty

    def dequeue_job_and_maintain_ttl(
        self, timeout: int | None, max_idle_time: int | None = None
    ) -> tuple[Job, Queue] | None:
        # Wait in one-second slices so that a stop request is noticed promptly.
        while not self._stop_requested:
            found = super().dequeue_job_and_maintain_ttl(1, max_idle_time=1)
            if found is not None or timeout is None:
                return found
        raise StopRequested()


def make_worker(services: Services, *, threaded: bool = False, name: str | None = None) -> MemhubWorker:
    cls = ThreadedWorker if threaded else MemhubWorker
    return cls(
        services.queues,
        context=JobContext(services),
        connection=services.redis,
        serializer=JSONSerializer,
        name=name,
    )


class Sweeper(threading.Thread):
    """Schedules a drain every `interval` seconds while events wait or sit unacknowledged.

    Nothing else would notice entries left behind by a worker that was killed mid-batch when no
    new event arrives to schedule a drain.
    """

    def __init__(self, services: Services, *, interval: float) -> None:
        super().__init__(name="memhub-sweeper", daemon=True)
        self.services = services
        self.interval = interval
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(self.interval):
            try:
                self.sweep()
            except Exception:  # a Redis hiccup must not end the sweeper; the next round retries
                log.exception("sweep failed")

    def sweep(self) -> bool:
        keys, redis = self.services.keys, self.services.redis
        # Acknowledged entries are deleted, so a non-empty stream means events wait or sit unacknowledged.
        if redis.xlen(keys.stream):
            return schedule_drain(redis, self.services.queue, keys)
        return False

    def stop(self) -> None:
        self.stopped.set()


def serve_metrics(services: Services, *, host: str, port: int) -> WSGIServer | None:
    """This worker's counters at http://host:port/metrics, for Prometheus; None when the port is taken.

    A port of its own rather than prometheus-client's multiprocess mode: that mode shares files between
    processes forked on one machine, while workers run in containers and pods of their own, each
    scraped where it runs. Started once the model is loaded, so an answer also says the worker is ready.
    """
    try:
        server, _thread = start_http_server(port, addr=host, registry=services.metrics.registry)
    except OSError as exc:  # the worker's jobs matter more than its metrics
        log.warning("metrics: cannot listen on %s:%d (%s); set MEMHUB_WORKER_METRICS_PORT", host, port, exc)
        return None
    return server


def run_worker(
    services: Services,
    *,
    burst: bool = False,
    sweep_interval: float = 5.0,
    logging_level: str = "INFO",
    metrics_host: str | None = None,
) -> None:
    """Run one worker in this process until stopped (or until the queue is empty, with `burst`)."""
    backfill_at_start(services.store, services.redis, services.keys, collection=services.settings.collection)
    settings = services.settings
    port = settings.worker_metrics_port
    metrics = serve_metrics(services, host=metrics_host or settings.host, port=port) if port else None
    worker = make_worker(services)
    sweeper = Sweeper(services, interval=sweep_interval)
    sweeper.sweep()  # pick up whatever a previous worker left behind
    sweeper.start()
    try:
        worker.work(burst=burst, logging_level=logging_level)
    finally:
        sweeper.stop()
        if metrics is not None:
            metrics.shutdown()
