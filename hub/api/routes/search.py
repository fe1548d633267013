"""Scoped retrieval."""

from __future__ import annotations

import time
from datetime import timedelta

from fastapi import APIRouter
from fastapi.exceptions import RequestValidationError
from starlette.concurrency import run_in_threadpool

from hub.api.deps import CallerDep, ServicesDep
from hub.api.schemas import ErrorBody, SearchHit, SearchRequest, SearchResponse
from hub.conflicts.ledger import open_conflicts_of

router = APIRouter(prefix="/v1/search", tags=["search"])


@router.post(
    "", summary="Search memories", response_model=SearchResponse, responses={403: {"model": ErrorBody}}
)
async def search(body: SearchRequest, services: ServicesDep, caller: CallerDep) -> SearchResponse:
    """Find memories the asker may see: global and temporary ones, plus the named project's and person's.

    A global or temporary memory that names a project or a person is found without naming them, by a
    key that may read them; with `everywhere`, so are every project's and person's memories it may read.
    Temporary memories are never found after expiry.
    Superseded memories are left out unless asked for; hits in an open conflict carry its id, stale
    ones say so. Asked from a group chat, memories private to direct conversations stay out.
    Hybrid by default (MiniLM + BM25, fused in one Qdrant query); the newer version of an updated
    fact ranks above the old one.
    """
    if not body.query.strip():
        # Blank is as empty as "" (refused by min_length): the model would rank every memory by nothing.
        problem = "write the question: blank text asks nothing"
        raise RequestValidationError([{"loc": ("body", "query"), "msg": problem, "type": "value_error"}])
    after, before = body.occurred_after, body.occurred_before
    if after is not None and before is not None and after >= before:
        # Nothing can match a range that ends where it starts (the two swapped, as often as not):
        # a mistake to name, not a question with no answer.
        problem = (
            f"must be later than occurred_after ({after.isoformat()}); after is inclusive, before exclusive"
        )
        raise RequestValidationError(
            [{"loc": ("body", "occurred_before"), "msg": problem, "type": "value_error"}]
        )
    scopes = caller.readable_scopes(
        agent=body.agent, channel=body.channel, project=body.project, person=body.person, scopes=body.scopes
    )
    granted_projects, granted_persons = caller.granted()
    started = time.perf_counter()
    hits = await run_in_threadpool(
        services.retriever.search,
        body.query,
        project=body.project,
        person=body.person,
        granted_projects=granted_projects,
        granted_persons=granted_persons,
        everywhere=body.everywhere,
        scopes=scopes,
        kinds=body.kinds,
        agents=body.agents,
        channels=body.channels,
        tiers=body.tiers,
        states=body.states,
        confidences=body.confidences,
        occurred_after=body.occurred_after,
        occurred_before=body.occurred_before,
        related=body.related,
        exclude_private=body.chat_type == "group",
        limit=body.limit,
        mode=body.mode,
        include_superseded=body.include_superseded,
        recency=timedelta(days=body.recency) if body.recency else None,
        diversity=body.diversity,
    )
    in_conflict = open_conflicts_of(services.redis, services.keys, [h.memory.id for h in hits])
    services.metrics.search_seconds.observe(time.perf_counter() - started)
    return SearchResponse(hits=[SearchHit.from_hit(h, conflict_ids=in_conflict[h.memory.id]) for h in hits])
