"""Prometheus metrics: this process's counters and the hub's gauges."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4, choose_encoder, generate_latest

from hub.api.deps import ServicesDep

router = APIRouter(tags=["metrics"])


@router.get(
    "/metrics",
    summary="Prometheus metrics",
    response_class=Response,
    responses={
        200: {
            "content": {CONTENT_TYPE_PLAIN_0_0_4: {"schema": {"type": "string"}}},
            "description": "The metrics in Prometheus' text format (OpenMetrics when asked for).",
        }
    },
)
def metrics(request: Request, services: ServicesDep) -> Response:
    """Counts only: labels are tiers, severities and reason classes, never an agent or a memory's words.
    The open conflicts, questions and memories it counts are the owner's view, so with keys on it
    takes an owner-level key, as the ledger does (Prometheus sends it as a bearer token)."""
    # The format Prometheus asks for, as prometheus-client's own server chooses it (the workers').
    try:
        encode, content_type = choose_encoder(request.headers.get("accept", ""))
    except (TypeError, ValueError):  # a version it cannot read ("version=abc") raised: the classic format
        encode, content_type = generate_latest, CONTENT_TYPE_PLAIN_0_0_4
    return Response(encode(services.metrics.registry), media_type=content_type)
