"""Liveness and a glance at the backlog."""

from __future__ import annotations

from fastapi import APIRouter
from rq import Worker

from hub.api.deps import ServicesDep
from hub.api.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health)
def healthz(services: ServicesDep) -> Health:
    redis = services.redis
    return Health(
        status="ok",
        memories=services.store.count(),
        events_waiting=int(redis.xlen(services.keys.stream)),
        workers=len(Worker.all(queue=services.queue)),
    )
