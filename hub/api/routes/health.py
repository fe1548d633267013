"""Liveness and a glance at the backlog."""

from __future__ import annotations

from fastapi import APIRouter
from rq import Worker

from hub.api.deps import ServicesDep
from hub.api.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="Health and backlog", response_model=Health)
def healthz(services: ServicesDep) -> Health:
    """No key needed: the readiness check of compose and Kubernetes. Counts memories, waiting events and
    workers; a Redis or store that does not answer makes it fail."""
    redis = services.redis
    return Health(
        status="ok",
        memories=services.store.count(),
        events_waiting=int(redis.xlen(services.keys.stream)),
        workers=len(Worker.all(queue=services.queue)),
    )
