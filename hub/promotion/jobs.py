"""Enqueueing the scoring job (workers.promotion.score_memories) by dotted path, with JSON arguments."""

from __future__ import annotations

from collections.abc import Iterable

from rq import Queue

from hub.queue import retry_policy

SCORE_JOB = "workers.promotion.score_memories"


def enqueue_scoring(queue: Queue, memory_ids: Iterable[str]) -> None:
    """Score these memories soon, in a job of their own; nothing is enqueued for no memories."""
    ids = sorted(set(memory_ids))
    if ids:
        queue.enqueue(
            SCORE_JOB, ids, job_timeout=300, result_ttl=60, failure_ttl=24 * 3600, retry=retry_policy()
        )
