"""Maintenance run by hand: queue an agent's compaction and follow its progress.

The CLI comes through here rather than opening the store: the embedded store has one owning process
(the running hub), and the hub's Redis may be an embedded one with no address outside it.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, HTTPException, Path, status

from hub.api.deps import ServicesDep
from hub.api.schemas import ErrorBody
from hub.compaction.jobs import CompactionJob, CompactionRequest, enqueue_compaction, read_job
from hub.compaction.scan import unknown_agent

router = APIRouter(prefix="/v1/maintenance", tags=["maintenance"])


@router.post(
    "/compactions",
    summary="Start an agent's compaction",
    response_model=CompactionJob,
    status_code=status.HTTP_202_ACCEPTED,
    responses={
        404: {
            "model": ErrorBody,
            "description": "The agent has no memories (a mistyped name?): the agents that have are named.",
        }
    },
)
def start_compaction(
    body: Annotated[CompactionRequest, Body(examples=[{"agent": "wa-assistant", "dry_run": True}])],
    services: ServicesDep,
) -> CompactionJob:
    """Queue one agent's compaction (a dry run reports the plan and changes nothing)."""
    # A mistyped name would otherwise run, find nothing and report "0 changes", as if all were well.
    missing = unknown_agent(services.store, body.agent)
    if missing is not None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, missing)
    job = enqueue_compaction(services.queue, body, reason="manual")
    return _found(services, job.id)


@router.get(
    "/compactions/{job_id}",
    summary="Follow a compaction",
    response_model=CompactionJob,
    responses={404: {"model": ErrorBody}},
)
def compaction(
    job_id: Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]+$")], services: ServicesDep
) -> CompactionJob:
    """A compaction's state and progress; its report once finished."""
    return _found(services, job_id)


def _found(services: ServicesDep, job_id: str) -> CompactionJob:
    found = read_job(services.redis, job_id)
    if found is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no compaction job with id {job_id!r}")
    return found
