"""The conflict ledger: list, inspect and resolve contradictions; questions for the owner."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, status
from pydantic import BaseModel, ConfigDict, Field

from hub.api.deps import CallerDep, ServicesDep
from hub.api.schemas import DecisionText, ErrorBody, InvalidRequest, Question, QuestionList
from hub.conflicts import ledger
from hub.conflicts.judge import Severity
from hub.conflicts.ledger import Conflict, ConflictStatus
from hub.conflicts.resolve import ConflictDecided, ResolutionError, already_decided, cannot_keep, resolve
from hub.locks import writing
from hub.models import Memory, Scope, utcnow

router = APIRouter(tags=["conflicts"])


class ConflictList(BaseModel):
    conflicts: list[Conflict]


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


@router.get("/v1/conflicts", summary="List the conflict ledger", response_model=ConflictList)
def list_conflicts(
    services: ServicesDep,
    status_: Annotated[ConflictStatus | None, Query(alias="status")] = None,
    severity: Severity | None = None,
    scope: Scope | None = None,
    project: str | None = None,
    person: str | None = None,
    agent: str | None = None,
) -> ConflictList:
    """Contradictions the hub found, newest first."""
    everything = ledger.all_conflicts(services.redis, services.keys)
    picked = ledger.matching(
        everything,
        status=status_,
        severity=severity,
        scope=scope,
        project=project,
        person=person,
        agent=agent,
    )
    return ConflictList(conflicts=picked)


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


@router.get("/v1/questions", summary="Questions an agent should ask the owner", response_model=QuestionList)
def questions(agent: str, services: ServicesDep) -> QuestionList:
    """What this agent should ask the owner, in its own channel: open conflicts the policy puts to the
    owner, between memories that still stand."""
    ask = set(services.settings.conflict_ask_owner)
    put = [
        c
        for c in ledger.matching(
            ledger.all_conflicts(services.redis, services.keys), status=ConflictStatus.open, agent=agent
        )
        if c.severity.value in ask
    ]
    stored = {m.id: m for m in services.store.get([m for c in put for m in c.memory_ids])}
    # A side gone, superseded or expired (the compaction that purges it settles the conflict) cannot
    # be kept: nobody is asked to choose it meanwhile.
    now = utcnow()
    asked = [c for c in put if not any(cannot_keep(m, stored.get(m), now) for m in c.memory_ids)]
    return QuestionList(questions=[_question(c, agent, _said(c, stored)) for c in asked])


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
