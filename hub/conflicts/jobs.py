"""Enqueueing the write-time review (workers.review.review_memories) by dotted path, with JSON arguments."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from redis.client import Pipeline
from rq import Queue

from hub.queue import retry_policy

REVIEW_JOB = "workers.review.review_memories"


def enqueue_review(
    queue: Queue, events_by_memory: Mapping[str, Sequence[str]], *, pipeline: Pipeline | None = None
) -> None:
    """Review these freshly written memories soon; each maps to the events that wrote it.

    With `pipeline` (in MULTI mode), the job is enqueued in the caller's transaction: the ingest
    acknowledges a batch and enqueues its review atomically, so no stored memory goes unreviewed.
    """
    if events_by_memory:
        payload = {memory_id: sorted(set(events)) for memory_id, events in sorted(events_by_memory.items())}
        queue.enqueue(
            REVIEW_JOB,
            payload,
            job_timeout=600,
            result_ttl=60,
            failure_ttl=24 * 3600,
            retry=retry_policy(),
            pipeline=pipeline,
        )
