"""Reading memories: one by id, or an agent's memories page by page."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, HTTPException, Query, status

from hub.api.deps import CallerDep, ServicesDep
from hub.api.schemas import ErrorBody, MemoryPage, MemoryPublic
from hub.models import Kind, Scope, State, Tier, utcnow
from hub.store.base import MemoryFilter

router = APIRouter(prefix="/v1/memories", tags=["memories"])


@router.get("", response_model=MemoryPage, responses={403: {"model": ErrorBody}})
def list_memories(
    agent: str,
    services: ServicesDep,
    caller: CallerDep,
    tier: Annotated[list[Tier] | None, Query()] = None,
    kind: Annotated[list[Kind] | None, Query()] = None,
    scope: Annotated[list[Scope] | None, Query()] = None,
    state: Annotated[list[State] | None, Query(description="Default: every state but superseded.")] = None,
    limit: Annotated[int, Query(ge=1, le=1_000)] = 500,
    offset: Annotated[UUID | None, Query(description="`next_offset` of the previous page.")] = None,
) -> MemoryPage:
    """Every memory an agent published, in every scope, page by page (backups, export)."""
    caller.require_owner_level()
    flt = MemoryFilter(
        now=utcnow(),
        agents=frozenset({agent}),
        tiers=frozenset(tier) if tier else None,
        kinds=frozenset(kind) if kind else None,
        scopes=frozenset(scope) if scope else None,
        states=frozenset(state) if state else None,
        all_scopes=True,
    )
    page = services.store.scroll(flt, limit=limit, offset=str(offset) if offset else None)
    return MemoryPage(
        memories=[MemoryPublic.model_validate(m.model_dump()) for m in page.memories],
        next_offset=page.next_offset,
    )


@router.get("/{memory_id}", response_model=MemoryPublic, responses={404: {"model": ErrorBody}})
def get_memory(memory_id: str, services: ServicesDep, caller: CallerDep) -> MemoryPublic:
    found = services.store.get([memory_id])
    # Outside the caller's grants a memory does not exist, rather than being forbidden.
    if not found or not caller.may_read(found[0]):
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no memory with id {memory_id!r}")
    return MemoryPublic.model_validate(found[0].model_dump())
