"""Reading one memory."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, status

from hub.api.deps import ServicesDep
from hub.api.schemas import ErrorBody, MemoryPublic

router = APIRouter(prefix="/v1/memories", tags=["memories"])


@router.get("/{memory_id}", response_model=MemoryPublic, responses={404: {"model": ErrorBody}})
def get_memory(memory_id: str, services: ServicesDep) -> MemoryPublic:
    found = services.store.get([memory_id])
    if not found:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no memory with id {memory_id!r}")
    return MemoryPublic.model_validate(found[0].model_dump())
