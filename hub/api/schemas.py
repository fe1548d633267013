"""Request and response bodies of the read API (the OpenAPI document is built from these)."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    computed_field,
)

from hub.conflicts.ledger import Conflict
from hub.models import Confidence, EventCreate, Kind, Memory, Scope, State, Tier
from hub.secrets import ensure_no_secrets
from hub.status import EventState
from hub.store.base import Hit, SearchMode

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


def _iso_day(value: object) -> object:
    # Lax parsing would read `20260115` as seconds since 1970; a day in a path is written one way only.
    if isinstance(value, str) and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError(f"write the day as YYYY-MM-DD, e.g. 2026-01-15, not {value!r}")
    return value


def _day_in_range(value: date) -> date:
    # A day's page spans the day and its neighbours' edges in the owner's zone: the calendar's first
    # and last days have no neighbour to reach.
    if not date.min < value < date.max:
        raise ValueError(f"day: from {date.min + timedelta(days=1)} to {date.max - timedelta(days=1)}")
    return value


# A calendar day written YYYY-MM-DD.
IsoDay = Annotated[date, BeforeValidator(_iso_day), AfterValidator(_day_in_range)]


def _no_secrets(value: str) -> str:
    # SecretError is a ValueError: a 422 naming the field and the kind, not the value.
    ensure_no_secrets(value, said=True)
    return value


# Free text a decision keeps (its note, who made it) in the ledger and the memory's history: screened
# like an event's text, since a note is stored as surely as a memory is ("done, the new PIN is 4821").
DecisionText = Annotated[str, AfterValidator(_no_secrets)]

MAX_BATCH_EVENTS = 500


class EventsCreate(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "events": [
                        {
                            "text": "Netanel works until 20:00",
                            "agent": "wa-assistant",
                            "channel": "whatsapp",
                            "source": "wa:msg:1841",
                        }
                    ]
                },
                {
                    "events": [
                        {
                            "text": "Dana's son starts school on 1 September",
                            "agent": "tg-assistant",
                            "channel": "telegram",
                            "scope": "person",
                            "person": "Dana",
                            "kind": "fact",
                            "confidence": "high",
                        }
                    ]
                },
            ]
        },
    )

    events: list[EventCreate] = Field(min_length=1, max_length=MAX_BATCH_EVENTS)


class EventsAccepted(BaseModel):
    ids: list[str] = Field(description="One id per event, in order; poll `GET /v1/events/{id}`.")


class EventStatusPublic(BaseModel):
    id: str
    status: EventState
    memory_id: str | None = Field(
        None,
        description="The memory it was stored as; once reviewed, the one it was folded into if it restated one.",
    )
    error: str | None = Field(None, description="Why it was rejected or failed, naming what to fix.")
    reviewed: bool = Field(
        False,
        description="The write-time review (reinforcement, conflicts) has run: `memory_id` is final.",
    )

    # In the answer, so that clients read the hub's decision rather than repeat it.
    @computed_field(description="Nothing more happens to it: rejected, failed, or stored and reviewed.")  # type: ignore[prop-decorator]
    @property
    def settled(self) -> bool:
        """Nothing more happens to it: rejected, failed, or stored and reviewed."""
        return self.status in (EventState.rejected, EventState.failed) or self.reviewed


# Where an agent is talking: from a `group` chat, memories `private` to direct conversations stay out.
ChatType = Literal["dm", "group"]


class SearchRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"query": "when does Netanel finish work?", "agent": "tg-assistant", "channel": "telegram"},
                {
                    "query": "school",
                    "agent": "wa-assistant",
                    "person": "Dana",
                    "chat_type": "group",
                    "recency": 30,
                    "limit": 5,
                },
            ]
        },
    )

    query: str = Field(
        min_length=1,
        max_length=2_000,
        description=(
            "What to find, in words. A day it names ('on 5 January 2024', 'el 5 de enero') or a day, week"
            " or month it names from today ('yesterday', 'la semana pasada') ranks what happened then and"
            " the day after higher in hybrid mode; it filters nothing."
        ),
    )
    agent: Name = Field(description="The agent asking.")
    channel: Name | None = Field(None, description="The channel the question comes from.")
    project: Name | None = Field(
        None,
        description="See this project's memories (scope `project`) too; global and temporary ones that "
        "name a project are found without it.",
    )
    person: Name | None = Field(
        None,
        description="See this person's memories (scope `person`) too; global and temporary ones that "
        "name a person are found without it.",
    )
    everywhere: bool = Field(
        False,
        description="See every project's and every person's memories too (those the key may read), without "
        "naming them: for a question that may be about any of them.",
    )
    scopes: list[Scope] | None = Field(None, description="Only these scopes (visibility still applies).")
    kinds: list[Kind] | None = None
    limit: int = Field(10, ge=1, le=100)
    mode: SearchMode = Field(SearchMode.hybrid, description="hybrid (dense + BM25, fused), dense or sparse.")
    include_superseded: bool = Field(False, description="Also return memories a newer one superseded.")
    chat_type: ChatType | None = Field(
        None,
        description="Where the question is asked. From a `group` chat, memories marked `private` "
        "(to direct conversations) are never returned.",
    )
    agents: list[Name] | None = Field(
        None, max_length=50, description="Only memories these agents published."
    )
    channels: list[Name] | None = Field(None, max_length=50, description="Only memories from these channels.")
    tiers: list[Tier] | None = None
    states: list[State] | None = Field(
        None,
        description="Only these states; default every state but superseded (overrides `include_superseded`).",
    )
    confidences: list[Confidence] | None = None
    occurred_after: AwareDatetime | None = Field(
        None, description="Only memories of things that happened then or later."
    )
    occurred_before: AwareDatetime | None = Field(
        None, description="Only memories of things that happened before."
    )
    related: list[Name] | None = Field(
        None, max_length=50, description="Only memories naming at least one of these in `related`."
    )
    recency: float | None = Field(
        None,
        ge=0.01,
        le=36_500,
        description="Favour newer memories: a half-life in days. A memory that old counts half as new as one "
        "from today; scores are multiplied by up to 2.",
    )
    diversity: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Maximal marginal relevance: 0 ranks by relevance alone, higher values keep near-identical "
        "memories from crowding out the rest (0.3 is a good start).",
    )


class SearchHit(BaseModel):
    id: str
    text: str
    context: str | None = Field(
        None,
        description="What the publisher gave as context (the message before a chat message); not part of the memory.",
    )
    score: float = Field(
        description="Relevance as the store scored it. Hits come in rank order, which the newest-version "
        "rule and `diversity` may set apart from the scores."
    )
    kind: Kind
    scope: Scope
    project: str | None
    person: str | None
    agent: str
    channel: str | None
    state: State
    tier: Tier
    confidence: Confidence
    created_at: datetime
    source: str | None
    superseded_by: str | None = None
    conflict_ids: list[str] = Field(default_factory=list, description="Open conflicts this memory sits in.")
    occurred_at: datetime | None = Field(None, description="When what it says happened.")
    stale: bool = Field(False, description="The hub marked it stale: true once, maybe not any more.")
    private: bool = Field(False, description="Private to direct conversations.")

    @classmethod
    def from_hit(cls, hit: Hit, *, conflict_ids: list[str]) -> SearchHit:
        fields = hit.memory.model_dump(include=set(cls.model_fields) - {"score", "conflict_ids", "stale"})
        return cls(
            score=hit.score, conflict_ids=conflict_ids, stale=hit.memory.state is State.stale, **fields
        )


class SearchResponse(BaseModel):
    hits: list[SearchHit]


class MemoryPublic(Memory):
    """A stored memory, every field."""


class ClosedMemory(MemoryPublic):
    """An open loop or task just closed, and the older ones it answered, closed with it."""

    answered: list[str] = Field(
        default_factory=list,
        description="Ids of the older open loops and tasks, any agent's, that this one answered and closed.",
    )


class MemoryPage(BaseModel):
    memories: list[MemoryPublic]
    next_offset: str | None = Field(description="Pass as `offset` for the next page; null on the last page.")


class EventStatusesRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"ids": ["8d4f8a36-5c0e-4a51-9a8e-2f6f3b1f0c11"]}]}
    )

    ids: list[Annotated[str, StringConstraints(min_length=1, max_length=200)]] = Field(
        min_length=1, max_length=MAX_BATCH_EVENTS
    )


class EventStatuses(BaseModel):
    statuses: list[EventStatusPublic | None] = Field(description="One per id, in order; null when unknown.")


class Health(BaseModel):
    status: str = Field(description="`ok` when Redis and the store answer.")
    memories: int
    events_waiting: int = Field(description="Events on the stream not yet acknowledged by a worker.")
    workers: int


class Alive(BaseModel):
    status: str = Field(description="`ok`: the process answers (nothing else is checked).")


class Question(BaseModel):
    """An open conflict the owner is to decide, as the agent should ask it."""

    conflict_id: str
    ask_in: str | None = Field(
        description="The channel this agent should ask in (where it learned its side)."
    )
    question: str
    options: dict[str, str] = Field(description="Answer -> the `keep` value to send to the resolve route.")


class QuestionPage(BaseModel):
    questions: list[Question]
    next_offset: str | None = Field(description="Pass as `offset` for the next page; null on the last page.")


class ConflictPage(BaseModel):
    conflicts: list[Conflict]
    next_offset: str | None = Field(description="Pass as `offset` for the next page; null on the last page.")


class ErrorBody(BaseModel):
    detail: str = Field(description="What went wrong, naming what to fix.")


class ValidationIssue(BaseModel):
    loc: list[str | int] = Field(
        description="Where: `body`, `query` or `path`, then the field (`body.events.0.text`)."
    )
    msg: str
    type: str


class InvalidRequest(BaseModel):
    """A 422: the request failed validation, or a check made after it."""

    detail: list[ValidationIssue] | str = Field(
        description="Each problem and where it is; or, for a check made after validation (a credential in "
        "an event, a choice the conflict does not offer), one sentence that starts with the field to fix."
    )
    message: str | None = Field(None, description="The problems as one line: `field: problem; ...`.")
