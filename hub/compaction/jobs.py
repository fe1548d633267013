"""Compaction as RQ jobs: one per agent, enqueued by dotted path, followed through the job's meta."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, computed_field
from redis import Redis
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from hub.compaction.plan import Compaction
from hub.keys import Keys

COMPACT_JOB = "workers.compaction.compact_agent"
JOB_TIMEOUT = 3600
RESULT_TTL = 7 * 24 * 3600
# Safety net: were a triggered job lost, the flag lapses and the next check triggers anew.
TRIGGER_FLAG_SECONDS = 3600


class CompactionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    dry_run: bool = Field(default=False, description="Report what would change and change nothing.")


class JobProgress(BaseModel):
    stage: str | None = None
    done: int = 0
    total: int = 0


class CompactionJob(BaseModel):
    id: str
    agent: str
    dry_run: bool
    reason: str | None = None
    status: str = Field(description="queued, started, finished, failed, …")
    progress: JobProgress
    result: Compaction | None = None
    error: str | None = None

    # In the answer, so that clients read the hub's decision rather than repeat it.
    @computed_field(description="Finished, failed, stopped or canceled: nothing more happens to it.")  # type: ignore[prop-decorator]
    @property
    def done(self) -> bool:
        return self.status in (JobStatus.FINISHED, JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED)


def enqueue_compaction(queue: Queue, request: CompactionRequest, *, reason: str = "manual") -> Job:
    meta = {"agent": request.agent, "dry_run": request.dry_run, "reason": reason}
    return queue.enqueue(
        COMPACT_JOB,
        kwargs=request.model_dump(),
        job_timeout=JOB_TIMEOUT,
        result_ttl=RESULT_TTL,
        failure_ttl=RESULT_TTL,
        meta=meta,
        description=f"compaction of {request.agent} ({reason})",
    )


def enqueue_compactions(
    queue: Queue, agents: Iterable[str], *, dry_run: bool = False, reason: str = "scheduled"
) -> list[Job]:
    """One job per agent, so that many agents spread across the workers."""
    requests = [CompactionRequest(agent=agent, dry_run=dry_run) for agent in agents]
    return [enqueue_compaction(queue, request, reason=reason) for request in requests]


def request_compaction(redis: Redis, queue: Queue, keys: Keys, agent: str, *, reason: str) -> Job | None:
    """Enqueue a compaction of `agent` unless a triggered one already waits; the job if this call did."""
    if not redis.set(keys.compaction_scheduled(agent), b"1", nx=True, ex=TRIGGER_FLAG_SECONDS):
        return None
    return enqueue_compaction(queue, CompactionRequest(agent=agent), reason=reason)


def read_job(redis: Redis, job_id: str) -> CompactionJob | None:
    """A compaction job's state, progress and, once finished, its report; None if there is no such job."""
    try:
        job = Job.fetch(job_id, connection=redis, serializer=JSONSerializer)
    except NoSuchJobError:
        return None
    if job.func_name != COMPACT_JOB:
        return None
    status = job.get_status()
    result = job.return_value() if status == JobStatus.FINISHED else None
    latest = job.latest_result() if status == JobStatus.FAILED else None
    return CompactionJob(
        id=job.id,
        agent=job.kwargs.get("agent", ""),
        dry_run=bool(job.kwargs.get("dry_run")),
        reason=job.meta.get("reason"),
        status=str(status.value if status else "unknown"),
        progress=JobProgress.model_validate(job.meta.get("progress", {})),
        result=Compaction.model_validate(result) if result is not None else None,
        error=latest.exc_string if latest is not None else None,
    )


def drop_reports_quoting(queue: Queue, words: Sequence[str]) -> list[str]:
    """Delete the finished compaction jobs whose report quotes any of `words` (a forgotten memory's
    text: a merge plan lists the texts it merges); their ids. Reports are kept a week (RESULT_TTL)."""
    quoted = [
        json.dumps(word, ensure_ascii=False)[1:-1] for word in words if word
    ]  # as the report holds them
    dropped = []
    ids = queue.finished_job_registry.get_job_ids()
    for job in Job.fetch_many(ids, connection=queue.connection, serializer=JSONSerializer):
        if job is None or job.func_name != COMPACT_JOB:  # expired since, or another kind of job
            continue
        report = json.dumps(job.return_value(), ensure_ascii=False)
        if any(word in report for word in quoted):
            job.delete()
            dropped.append(job.id)
    return dropped
