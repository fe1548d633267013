"""The core block: the memory an agent loads at the start of every session."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from hub.api.deps import ServicesDep
from hub.api.schemas import ChatType
from hub.compaction.core_block import CoreBlock, read_core
from hub.compaction.jobs import request_compaction
from hub.models import utcnow

router = APIRouter(prefix="/v1/core", tags=["core"])

NameQuery = Annotated[str, Query(min_length=1, max_length=200)]


@router.get("", summary="Load an agent's core block", response_model=CoreBlock)
def core_block(
    agent: NameQuery,
    services: ServicesDep,
    person: NameQuery | None = None,
    project: NameQuery | None = None,
    chat_type: Annotated[
        ChatType | None,
        Query(
            description="Where the session is. In a `group` chat, memories marked `private` "
            "(to direct conversations) are left out of the block."
        ),
    ] = None,
) -> CoreBlock:
    """The agent's core memory as markdown (Identity, User, Active Context, Quick Reference), within budget.

    The core-tier memories this agent published: global ones, plus the named person's and project's,
    and for a session in a group chat none private to direct conversations. A memory in an open conflict
    is marked `(disputed: open conflict c-…)` on its line, and listed in `conflicts`, until the owner
    decides: do not state it as settled. Should they not fit, the
    block shows the most important and points to the rest, and a compaction is queued to move the rest
    to archival.
    """
    budget = services.settings.core_budget(agent)
    block = read_core(
        services.store,
        services.redis,
        services.keys,
        budget,
        agent=agent,
        now=utcnow(),
        person=person,
        project=project,
        exclude_private=chat_type == "group",
    )
    if block.left_out:
        request_compaction(services.redis, services.queue, services.keys, agent, reason="core over budget")
    return block
