"""Compaction jobs: one agent's compaction, and the weekly fan-out to one job per agent."""

from __future__ import annotations

import time
from typing import Any

from rq import get_current_job
from rq.job import Job

from hub.compaction.compact import compact
from hub.compaction.jobs import CompactionRequest, JobProgress, enqueue_compactions
from hub.compaction.scan import known_agents
from hub.promotion.jobs import enqueue_scoring
from workers.context import JobContext

__all__ = ["compact_agent", "compact_every_agent", "enqueue_compactions"]

# Progress is written to the job's meta at most this often, and at every change of stage.
PROGRESS_EVERY_SECONDS = 0.25


class MetaProgress:
    """Reports a job's progress in its meta, where `GET /v1/maintenance/compactions/{id}` reads it."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.stage: str | None = None
        self.saved_at = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage == self.stage and done < total and now - self.saved_at < PROGRESS_EVERY_SECONDS:
            return
        self.stage, self.saved_at = stage, now
        self.job.meta["progress"] = JobProgress(stage=stage, done=done, total=total).model_dump()
        self.job.save_meta()  # type: ignore[no-untyped-call]


def compact_agent(ctx: JobContext, agent: str, dry_run: bool = False) -> dict[str, Any]:
    """RQ job: compact one agent's memories (only plan it, with `dry_run`); the report."""
    request = CompactionRequest(agent=agent, dry_run=dry_run)
    services = ctx.services
    if not request.dry_run:
        # Cleared first: a core that goes over budget while this runs triggers a new compaction. A dry
        # run leaves it: the compaction it stands for still waits, and a second would queue behind it.
        services.redis.delete(services.keys.compaction_scheduled(request.agent))
    job = get_current_job()
    progress = MetaProgress(job) if job is not None else None
    report = compact(services, request.agent, dry_run=request.dry_run, progress=progress)
    if not report.dry_run:
        # A merge gives the kept memory its copies' sightings (days, sessions, agents): scored again, it
        # may now merit a proposal. Nothing else would score it: the reviews score the day's memories.
        skipped = set(report.skipped)
        kept = [group.canonical for group in report.merge if set(group.merged) - skipped]
        enqueue_scoring(services.background_queue, kept)
    return report.model_dump(mode="json")


def compact_every_agent(ctx: JobContext) -> list[str]:
    """RQ job (weekly): one compaction job per agent with memories; their job ids."""
    services = ctx.services
    jobs = enqueue_compactions(services.queue, known_agents(services.store), reason="weekly")
    return [job.id for job in jobs]
