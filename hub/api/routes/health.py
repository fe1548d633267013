"""Liveness and a glance at the backlog."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from rq import Worker

from hub.api.deps import ServicesDep
from hub.api.schemas import Alive, ErrorBody, Health

router = APIRouter(tags=["health"])


@router.get(
    "/healthz",
    summary="Health and backlog",
    response_model=Health,
    responses={503: {"model": ErrorBody, "description": "Redis or the store does not answer (named)."}},
)
def healthz(services: ServicesDep) -> Health:
    """No key needed: the readiness check of compose and Kubernetes. Counts memories, waiting events and
    workers; a Redis or store that does not answer makes it 503, naming which."""
    try:
        events_waiting = int(services.redis.xlen(services.keys.stream))
        workers = len(Worker.all(queue=services.queue))
    except Exception as exc:  # whatever the client raises, the probe's answer is the same
        raise HTTPException(503, f"Redis does not answer: {exc}") from exc
    try:
        memories = services.store.count()
    except Exception as exc:
        raise HTTPException(503, f"the store does not answer: {exc}") from exc
    return Health(status="ok", memories=memories, events_waiting=events_waiting, workers=workers)


@router.get("/livez", summary="Liveness", response_model=Alive)
def livez() -> Alive:
    """No key needed, nothing read: the process answers. Kubernetes' liveness probe, which restarts a pod
    that fails it; /healthz, which fails while Redis or the store does, is the readiness probe, so an
    outage of either takes pods out of the Service without restarting every one of them."""
    return Alive(status="ok")
