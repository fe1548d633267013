"""The conflict ledger: list, inspect and resolve contradictions; questions for the owner."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, status
from pydantic import BaseModel, ConfigDict, Field

from hub.api.deps import CallerDep, ServicesDep
from hub.api.schemas import ConflictPage, DecisionText, ErrorBody, InvalidRequest, Question, QuestionPage
from hub.conflicts import ledger
from hub.conflicts.judge import Severity
from hub.conflicts.ledger import POSITION_PATTERN, Conflict, ConflictStatus, Position
from hub.conflicts.resolve import ConflictDecided, ResolutionError, already_decided, cannot_keep, resolve
from hub.locks import writing
from hub.models import Memory, Scope, utcnow

router = APIRouter(tags=["conflicts"])


# As `GET /v1/memories` pages: `limit`, and `offset` from the previous page's `next_offset`.
PageLimit = Annotated[int, Query(ge=1, le=1_000)]
PageOffset = Annotated[
    str | None,
    Query(
        pattern=POSITION_PATTERN,
        max_length=300,
        description="`next_offset` of the previous page: where it starts in the ledger's newest-first "
        "order, so conflicts recorded meanwhile move nothing between pages.",
    ),
]


def _start(offset: str | None) -> Position | None:
    return Position.parse(offset) if offset else None  # the pattern let only a position through


def _offset(next_at: Position | None) -> str | None:
    return str(next_at) if next_at else None


class ResolveRequest(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"keep": "edc4b4f6-8b37-5b71-8128-576bbb45778b", "note": "He changed jobs in May"},
                {"keep": "both", "by": "owner", "note": "Both are right: 18:00 on Fridays"},
            ]
        }
    )

    keep: str = Field(description="The memory id to keep (the other is superseded), or `both` to dismiss.")
    note: DecisionText | None = Field(None, max_length=2_000)
    by: DecisionText = Field("owner", max_length=200, description="Who decided: `owner` or an agent's name.")


def _found(services: ServicesDep, conflict_id: str) -> Conflict:
    found = ledger.get(services.redis, services.keys, conflict_id)
    if found is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no conflict with id {conflict_id!r}")
    return found


@router.get(
    "/v1/conflicts",
    summary="List the conflict ledger",
    response_model=ConflictPage,
    responses={422: {"model": InvalidRequest}},
)
def list_conflicts(
    services: ServicesDep,
    status_: Annotated[ConflictStatus | None, Query(alias="status")] = None,
    severity: Severity | None = None,
    scope: Scope | None = None,
    project: str | None = None,
    person: str | None = None,
    agent: str | None = None,
    limit: PageLimit = 500,
    offset: PageOffset = None,
) -> ConflictPage:
    """Contradictions the hub found, newest first, page by page."""
    # The open conflicts have an index of their own: their documents need no filter for it.
    open_only = status_ is ConflictStatus.open
    status_of_document = None if open_only else status_
    where = None
    if any(v is not None for v in (status_of_document, severity, scope, project, person)):
        where = partial(
            ledger.matching,
            status=status_of_document,
            severity=severity,
            scope=scope,
            project=project,
            person=person,
        )
    found, next_at = ledger.page(
        services.redis,
        services.keys,
        limit=limit,
        start=_start(offset),
        agent=agent,
        open_only=open_only,
        where=where,
    )
    return ConflictPage(conflicts=found, next_offset=_offset(next_at))


@router.get(
    "/v1/conflicts/{conflict_id}",
    summary="Get one conflict",
    response_model=Conflict,
    responses={404: {"model": ErrorBody}},
)
def get_conflict(conflict_id: str, services: ServicesDep) -> Conflict:
    """Both statements, their memories, agents, channels and sources, the severity and any decision."""
    return _found(services, conflict_id)


@router.post(
    "/v1/conflicts/{conflict_id}/resolve",
    summary="Decide a conflict",
    response_model=Conflict,
    responses={404: {"model": ErrorBody}, 409: {"model": ErrorBody}, 422: {"model": InvalidRequest}},
)
def resolve_conflict(
    conflict_id: str, body: ResolveRequest, services: ServicesDep, caller: CallerDep
) -> Conflict:
    """Keep one memory (the other becomes `superseded`, linked to it) or keep `both` (dismissed)."""
    conflict = _found(services, conflict_id)
    if not conflict.open:
        raise HTTPException(status.HTTP_409_CONFLICT, already_decided(conflict))
    try:
        # The loser is rewritten from what was read of it: the hub's other writers wait meanwhile.
        with writing(services.redis, services.keys):
            return resolve(
                services.redis,
                services.keys,
                services.store,
                conflict,
                keep=body.keep,
                by=caller.decided_by(body.by),
                note=body.note,
            )
    except ResolutionError as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(exc)) from exc
    except ConflictDecided as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from exc


@router.get(
    "/v1/questions",
    summary="Questions an agent should ask the owner",
    response_model=QuestionPage,
    responses={422: {"model": InvalidRequest}},
)
def questions(
    agent: str, services: ServicesDep, limit: PageLimit = 500, offset: PageOffset = None
) -> QuestionPage:
    """What this agent should ask the owner, in its own channel: open conflicts the policy puts to the
    owner, between memories that still stand. Newest first, page by page."""
    ask = set(services.settings.conflict_ask_owner)
    now = utcnow()
    stored: dict[str, Memory] = {}

    def asked(batch: list[Conflict]) -> list[Conflict]:
        put = [c for c in batch if c.severity.value in ask]  # the page holds the agent's open ones alone
        stored.update((m.id, m) for m in services.store.get([m for c in put for m in c.memory_ids]))
        # A side gone, superseded or expired (the compaction that purges it settles the conflict) cannot
        # be kept: nobody is asked to choose it meanwhile.
        return [c for c in put if not any(cannot_keep(m, stored.get(m), now) for m in c.memory_ids)]

    found, next_at = ledger.page(
        services.redis,
        services.keys,
        limit=limit,
        start=_start(offset),
        agent=agent,
        open_only=True,
        where=asked,
    )
    return QuestionPage(
        questions=[_question(c, agent, _said(c, stored)) for c in found], next_offset=_offset(next_at)
    )


def _said(conflict: Conflict, stored: Mapping[str, Memory]) -> list[str]:
    """Each side as the owner is asked it: its text, with its structured claim when the text does not
    say the value ("Dana's blood type" twice, A+ against O-), and never the same words twice, since
    the answers are keyed by them."""
    said = []
    for memory_id, text in zip(conflict.memory_ids, conflict.statements, strict=True):
        memory = stored.get(memory_id)
        if memory and memory.attribute and memory.value and memory.value.lower() not in text.lower():
            text = f"{text} ({memory.attribute}: {memory.value})"
        said.append(text)
    if said[0] == said[1]:
        said = [f"{said[0]} (the earlier note)", f"{said[1]} (the later note)"]
    return said


def _question(conflict: Conflict, agent: str, said: list[str]) -> Question:
    first, second = said
    mine = conflict.agents.index(agent)
    if conflict.inferred:  # the newer one reports a change: ask whether it replaces the older one
        asked = (
            f'Earlier I noted "{first}". Now I have "{second}". Does the new note replace the earlier one?'
        )
    else:
        asked = f'I have two notes that disagree: "{first}" and "{second}". Which one is right?'
    return Question(
        conflict_id=conflict.id,
        ask_in=conflict.channels[mine],
        question=asked,
        options={first: conflict.memory_ids[0], second: conflict.memory_ids[1], "both are right": "both"},
    )
