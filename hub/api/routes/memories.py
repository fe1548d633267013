"""Reading memories: one by id, or an agent's memories page by page; reporting one used; forgetting one."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, HTTPException, Query, status

from hub.api.deps import CallerDep, ServicesDep
from hub.api.schemas import DecisionText, ErrorBody, MemoryPage, MemoryPublic
from hub.auth.principal import Principal
from hub.forgetting import Forgotten, forget, gone_why, tombstones
from hub.locks import writing
from hub.models import Kind, Memory, Scope, State, Tier, utcnow
from hub.promotion.jobs import enqueue_scoring
from hub.promotion.usage import UseRecorded, record_use
from hub.services import Services
from hub.store.base import MemoryFilter

router = APIRouter(prefix="/v1/memories", tags=["memories"])


@router.get(
    "", summary="List an agent's memories", response_model=MemoryPage, responses={403: {"model": ErrorBody}}
)
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


def _readable(services: Services, caller: Principal, memory_id: str) -> Memory:
    """The memory, if the caller may see it: outside its grants, or expired, a memory does not exist
    (rather than being forbidden), as in search."""
    found = services.store.get([memory_id])
    if not found or found[0].expired(utcnow()) or not caller.may_read(found[0]):
        raise _not_found(services, caller, memory_id)
    return found[0]


def _not_found(services: Services, caller: Principal, memory_id: str) -> HTTPException:
    """The 404 for a memory the caller cannot have; the owner is told when it was forgotten, and by whom."""
    stone = (
        tombstones(services.redis, services.keys, [memory_id]).get(memory_id) if caller.owner_level else None
    )
    return HTTPException(
        status.HTTP_404_NOT_FOUND, gone_why(stone) if stone else f"no memory with id {memory_id!r}"
    )


@router.get(
    "/{memory_id}",
    summary="Get one memory",
    response_model=MemoryPublic,
    responses={404: {"model": ErrorBody}},
)
def get_memory(memory_id: str, services: ServicesDep, caller: CallerDep) -> MemoryPublic:
    """A memory with every field, its history included. Outside the key's grants, or expired: 404."""
    return MemoryPublic.model_validate(_readable(services, caller, memory_id).model_dump())


@router.delete(
    "/{memory_id}",
    summary="Forget a memory",
    response_model=Forgotten,
    responses={403: {"model": ErrorBody}, 404: {"model": ErrorBody}},
)
def forget_memory(
    memory_id: str,
    services: ServicesDep,
    caller: CallerDep,
    by: Annotated[
        DecisionText, Query(max_length=200, description="Who asked: `owner` or an agent's name.")
    ] = "owner",
) -> Forgotten:
    """Forget a memory for good, at the owner's request: the memory, the near-duplicates merged into
    it, and its words wherever the hub kept them (conflicts, proposals, other memories' history).
    What it superseded stays superseded. Its id is kept, with who asked and when, so that the event
    delivered again is refused. Needs an unrestricted key that may write."""
    caller.require_owner_write()
    # The memories linked to it are rewritten from what is read of them: the other writers wait.
    with writing(services.redis, services.keys):
        found = services.store.get([memory_id])  # expired too: the owner need not wait for the purge
        if not found:
            raise _not_found(services, caller, memory_id)
        return forget(
            services.redis, services.keys, services.store, services.queue, found[0], by=caller.decided_by(by)
        )


@router.post(
    "/{memory_id}/used",
    summary="Report a memory used",
    response_model=UseRecorded,
    responses={403: {"model": ErrorBody}, 404: {"model": ErrorBody}},
)
def report_use(memory_id: str, services: ServicesDep, caller: CallerDep) -> UseRecorded:
    """An agent used a memory it retrieved (the owner referred back to it): a promotion signal.
    Any key that may read the memory and write may report it."""
    memory = _readable(services, caller, memory_id)
    caller.require_write()
    count = record_use(services.redis, services.keys, memory.id)
    enqueue_scoring(services.background_queue, [memory.id])
    return UseRecorded(memory_id=memory.id, used_count=count)
