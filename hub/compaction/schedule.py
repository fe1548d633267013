"""The hub's schedules, on RQ's built-in cron scheduler, at the owner's local times.

- a midday and a nightly review: the conflict sweep over the day (and promotion, where installed),
  then a compaction for each agent whose core went over budget;
- a weekly compaction of every agent, one job per agent.

Run one scheduler per hub (`memhub cron`, or the thread `memhub up` starts): two would enqueue
every run twice.
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from croniter import croniter
from redis import Redis
from rq import cron_job_registry
from rq.cron import CronJob, CronScheduler
from rq.defaults import DEFAULT_CRON_JOB_HISTORY_LIMIT, DEFAULT_CRON_JOB_HISTORY_TTL
from rq.job import Job
from rq.utils import now as rq_now

from hub.queue import make_queue
from hub.settings import Settings

log = logging.getLogger(__name__)

REVIEW_JOB = "workers.review.review_day"
WEEKLY_JOB = "workers.compaction.compact_every_agent"
JOB_TIMEOUT = 3600
RESULT_TTL = 7 * 24 * 3600


class ZonedCronJob(CronJob):
    """A cron job whose fields are read in the owner's zone, enqueued by dotted path as JSON.

    RQ's CronJob reads cron fields in the process's local zone, and enqueues with RQ's default
    (pickle) serializer, which memhub's workers do not accept: both are changed here.
    """

    def __init__(self, *, zone: ZoneInfo, **kwargs: Any) -> None:
        self.zone = zone  # before CronJob.__init__, which computes the first run time
        super().__init__(**kwargs)

    def get_next_enqueue_time(self) -> datetime:
        if not self.cron:
            return super().get_next_enqueue_time()
        base = self.latest_enqueue_time or rq_now()
        # Cron fields are wall-clock times, walked here without a zone: croniter walking the zone's
        # own times gave 02:30 twice on the night the clocks go back (Europe/Berlin, the last Sunday
        # of October), and the nightly review ran twice. A repeated wall time is taken at its first
        # occurrence (fold=0) and skipped if that has passed; a skipped one (spring) runs an hour on.
        walk = croniter(self.cron, base.astimezone(self.zone).replace(tzinfo=None))
        while True:
            wall: datetime = walk.get_next(datetime)
            upcoming = wall.replace(tzinfo=self.zone, fold=0).astimezone(UTC)
            if upcoming > base:
                return upcoming

    def enqueue(self, connection: Redis) -> Job:
        """Enqueue the job and record it in the cron job's history, in one round trip (as RQ does)."""
        queue = make_queue(connection, self.queue_name)
        with connection.pipeline() as pipeline:
            job = queue.enqueue(
                self.func_name, args=self.args, kwargs=self.kwargs, **self.job_options, pipeline=pipeline
            )
            assert job.enqueued_at is not None
            stamp = job.enqueued_at.timestamp()
            pipeline.zadd(self.job_history_key, {job.id: stamp})
            pipeline.zremrangebyrank(self.job_history_key, 0, -(DEFAULT_CRON_JOB_HISTORY_LIMIT + 1))
            pipeline.expire(self.job_history_key, DEFAULT_CRON_JOB_HISTORY_TTL)
            cron_job_registry.add(self.name, pipeline, enqueue_timestamp=stamp)
            pipeline.execute()
        log.info("enqueued %s (%s) on %s", self.name, self.func_name, self.queue_name)
        return job


class HubCronScheduler(CronScheduler):
    """RQ's cron scheduler, able to run in a thread of `memhub up` and to stop promptly there."""

    def add(self, job: CronJob) -> CronJob:
        self._cron_jobs.append(job)
        return job

    def _install_signal_handlers(self) -> None:
        if threading.current_thread() is threading.main_thread():
            super()._install_signal_handlers()  # type: ignore[no-untyped-call]

    def run_until(self, stopped: threading.Event) -> None:
        """RQ's `start()` loop, sleeping on `stopped` instead of `time.sleep` so a stop is prompt."""
        self.register_birth()
        try:
            while not stopped.is_set():
                if self.enqueue_jobs():
                    self.save()
                self.heartbeat()
                stopped.wait(self.calculate_sleep_interval())
        finally:
            self.register_death()


def build_scheduler(settings: Settings, redis: Redis) -> HubCronScheduler:
    zone = ZoneInfo(settings.timezone)
    scheduler = HubCronScheduler(connection=redis, logging_level=logging.WARNING)
    for name, cron, func in (
        ("midday-review", settings.midday_review_cron, REVIEW_JOB),
        ("nightly-review", settings.nightly_review_cron, REVIEW_JOB),
        ("weekly-compaction", settings.weekly_compaction_cron, WEEKLY_JOB),
    ):
        scheduler.add(
            ZonedCronJob(
                zone=zone,
                name=f"{settings.queue_name}:{name}",
                queue_name=settings.queue_name,
                func_name=func,
                cron=cron,
                job_timeout=JOB_TIMEOUT,
                result_ttl=RESULT_TTL,
                failure_ttl=RESULT_TTL,
            )
        )
    return scheduler


class CronThread:
    """The schedules inside `memhub up`, stopped with the hub."""

    def __init__(self, settings: Settings, redis: Redis) -> None:
        self.scheduler = build_scheduler(settings, redis)
        self.stopped = threading.Event()
        self.thread = threading.Thread(
            target=self.scheduler.run_until, args=(self.stopped,), name="memhub-cron", daemon=True
        )

    def start(self) -> CronThread:
        self.thread.start()
        return self

    def stop(self, *, timeout: float = 10.0) -> None:
        self.stopped.set()
        self.thread.join(timeout)
