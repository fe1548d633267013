"""The RQ queue memhub's jobs run on (JSON serializer, never pickle) and the drain trigger."""

from __future__ import annotations

from collections.abc import Iterable

from redis import Redis
from rq import Queue, Retry
from rq.serializers import JSONSerializer

from hub.keys import Keys

DRAIN_JOB = "workers.ingest.drain"
# Safety net: if a scheduled drain job were lost, the flag lapses and the next publish schedules anew.
DRAIN_FLAG_SECONDS = 60


def retry_policy() -> Retry:
    """For the idempotent follow-up jobs (review, scoring): a job that raised, or whose worker died
    under it (found abandoned when its heartbeat lapses), runs again before it counts as failed."""
    return Retry(max=3)


def make_queue(redis: Redis, name: str) -> Queue:
    return Queue(name, connection=redis, serializer=JSONSerializer)


def jobs_pending(queues: Iterable[Queue]) -> bool:
    """Whether any of these queues holds a job waiting or running."""
    return any(queue.count or queue.started_job_registry.count for queue in queues)


def schedule_drain(redis: Redis, queue: Queue, keys: Keys) -> bool:
    """Enqueue a drain job unless one is already waiting; True when this call enqueued it.

    Publishers append to the stream *before* calling this, and a drain job clears the flag *before*
    reading, so every appended event is read by a drain that starts after it was appended.
    """
    if not redis.set(keys.drain_scheduled, b"1", nx=True, ex=DRAIN_FLAG_SECONDS):
        return False
    queue.enqueue(DRAIN_JOB, job_timeout=600, result_ttl=60, failure_ttl=24 * 3600)
    return True
