"""The memory vocabulary: events agents publish and the memories the hub keeps."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

# Memory ids are UUIDs derived from the event id, so that delivering an event twice writes one memory.
MEMORY_NAMESPACE = uuid.UUID("5b1f6a1e-6c57-4b8e-9a51-6d656d687562")

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


class Kind(StrEnum):
    fact = "fact"
    deduced = "deduced"
    preference = "preference"
    decision = "decision"
    correction = "correction"
    summary = "summary"
    task = "task"
    open_loop = "open_loop"
    status = "status"


# What is done one day and then closed (`resolved`): an open loop, and a task.
CLOSABLE = frozenset({Kind.open_loop, Kind.task})


class Nature(StrEnum):
    """What a memory records, which decides what it can contradict."""

    state = "state"  # holds until it changes: a fact, a preference, a status, a standing decision, a plan
    event = "event"  # happened at a time: a log line, a task done, a session's summary, a loop to close
    message = "message"  # a chat message: said at a time; it contradicts a state only by reporting a change


class Scope(StrEnum):
    global_ = "global"
    project = "project"
    person = "person"
    temporary = "temporary"


class Confidence(StrEnum):
    high = "high"
    medium = "medium"
    low = "low"


class State(StrEnum):
    active = "active"
    stale = "stale"
    superseded = "superseded"
    resolved = "resolved"


class Tier(StrEnum):
    working = "working"
    episodic = "episodic"
    semantic = "semantic"
    core = "core"
    archival = "archival"


# Which tier is held higher: a merge keeps the highest, and nothing is folded into a lower one.
TIER_RANK = {Tier.core: 0, Tier.semantic: 1, Tier.episodic: 2, Tier.working: 3, Tier.archival: 4}


def utcnow() -> datetime:
    return datetime.now(UTC)


# Times the hub keeps must survive conversion to any timezone and a few years of arithmetic (TTLs,
# recency decay): far from datetime's limits of years 1 and 9999.
EARLIEST, LATEST = datetime(1900, 1, 1, tzinfo=UTC), datetime(9001, 1, 1, tzinfo=UTC)


def check_time(name: str, moment: datetime) -> datetime:
    """`moment` when it has a timezone and falls in years 1900-9000 (UTC); else ValueError naming `name`."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{name}: give a time with a timezone, e.g. 2026-11-29T10:00:00Z")
    # The year is checked first: converting year 1 or 9999 to UTC can overflow.
    if not (EARLIEST.year - 1 <= moment.year <= LATEST.year) or not (EARLIEST <= moment < LATEST):
        raise ValueError(
            f"{name}: give a time between the years 1900 and 9000 (UTC), e.g. 2026-11-29T10:00:00Z"
        )
    return moment


def memory_id_for(event_id: str) -> str:
    """The memory id an event is stored under: stable across redeliveries."""
    return str(uuid.uuid5(MEMORY_NAMESPACE, event_id))


SummaryText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2_000)]
# Why a memory was kept; a summary's decision becomes an event whose `why` is its own, so one limit.
Why = Annotated[str, StringConstraints(strip_whitespace=True, max_length=1_000)]


class DecisionMade(BaseModel):
    """A decision a session settled, and why."""

    model_config = ConfigDict(extra="forbid")

    text: SummaryText
    why: Annotated[Why, StringConstraints(min_length=1)] | None = None


class Pattern(BaseModel):
    """Something the agent deduced during the session, with what it deduced it from."""

    model_config = ConfigDict(extra="forbid")

    text: SummaryText
    evidence: list[SummaryText] = Field(min_length=1, max_length=50)


class SessionSummary(BaseModel):
    """What a session settled; the hub keeps each item as a memory linked to the session."""

    model_config = ConfigDict(extra="forbid")

    decisions: list[DecisionMade] = Field(default_factory=list, max_length=100)
    tasks_completed: list[SummaryText] = Field(default_factory=list, max_length=100)
    patterns: list[Pattern] = Field(default_factory=list, max_length=100, description="Deductions.")
    open_loops: list[SummaryText] = Field(default_factory=list, max_length=100, description="Left to do.")
    promote: list[SummaryText] = Field(
        default_factory=list, max_length=100, description="Facts the agent asks to keep long-term (proposed)."
    )


class Origin(BaseModel):
    """Where an imported memory sat in the agent's files: what export writes it back into."""

    model_config = ConfigDict(extra="forbid")

    path: Annotated[str, StringConstraints(min_length=1, max_length=1_000)]
    section: Annotated[str, StringConstraints(max_length=1_000)] | None = None
    line: int | None = Field(None, ge=1)
    tags: list[Annotated[str, StringConstraints(max_length=100)]] = Field(default_factory=list, max_length=50)
    undated: bool = Field(False, description="The line said no date: when it was said is not known.")


class EventCreate(BaseModel):
    """One memory an agent wants kept, as published."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    text: str = Field(min_length=1, max_length=8_000, description="The memory itself, in plain words.")
    agent: Name = Field(description="The publishing agent, e.g. `whatsapp-assistant`.")
    context: Annotated[str, StringConstraints(max_length=2_000)] | None = Field(
        None,
        description="Words around the memory that help find it but are not part of it: for a chat message, "
        "the messages just before it ('make it 17:30' after 'remind me to collect the dry cleaning'). "
        "Indexed for search with the text; never shown as the memory, never judged as a claim.",
    )
    kind: Kind = Kind.fact
    nature: Nature | None = Field(
        None,
        description="What the memory records: `state` (holds until it changes), `event` (happened at a "
        "time: a log line, a task done) or `message` (a chat message). Two events never contradict each "
        "other; an event or a message contradicts a state only by reporting its change. Left out, the hub "
        "decides from the kind and the text (`hub.nature`).",
    )
    evidence: list[Annotated[str, StringConstraints(min_length=1, max_length=2_000)]] = Field(
        default_factory=list, max_length=50, description="Why a deduction holds; required for `deduced`."
    )
    scope: Scope = Scope.global_
    project: Name | None = None
    person: Name | None = None
    ttl_seconds: int | None = Field(None, gt=0, le=10 * 365 * 24 * 3600)
    expires_at: datetime | None = None
    channel: Name | None = Field(None, description="whatsapp, telegram, cli, web, …")
    chat: Name | None = Field(None, description="Group or DM id within the channel.")
    private: bool = Field(
        False,
        description="Private to direct conversations: never returned to a search made from a group chat.",
    )
    session: Name | None = None
    occurred_at: datetime | None = Field(None, description="When it happened; defaults to publish time.")
    confidence: Confidence = Confidence.medium
    why: Why | None = Field(None, description="What triggered this memory.")
    source: Annotated[str, StringConstraints(max_length=1_000)] | None = Field(
        None, description="A reference back: message id, file and line."
    )
    origin: Origin | None = Field(
        None, description="Where an imported memory sat in the agent's files (`memhub import` sets it)."
    )
    related: list[Name] = Field(default_factory=list, max_length=50)
    tier: Tier = Field(
        Tier.episodic, description="Where the memory starts; importers set it from the file it came from."
    )
    subject: Name | None = None
    attribute: Name | None = None
    value: Annotated[str, StringConstraints(max_length=1_000)] | None = None
    id: Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=r"^[\w.:\-]+$")] | None = (
        Field(None, description="Client id for idempotency: publishing the same id twice stores one memory.")
    )
    summary: SessionSummary | None = Field(
        None, description="For `summary` events: decisions, tasks done, patterns, open loops, nominations."
    )

    @model_validator(mode="after")
    def _check_consistency(self) -> EventCreate:
        if self.kind is Kind.deduced and not self.evidence:
            raise ValueError("evidence: a `deduced` event must carry at least one piece of evidence")
        if self.scope is Scope.project and not self.project:
            raise ValueError("project: a `project`-scoped event must name its project")
        if self.scope is Scope.person and not self.person:
            raise ValueError("person: a `person`-scoped event must name its person")
        if self.scope is Scope.temporary and self.ttl_seconds is None and self.expires_at is None:
            raise ValueError("ttl_seconds: a `temporary` event needs `ttl_seconds` or `expires_at`")
        if self.scope is not Scope.temporary and (
            self.ttl_seconds is not None or self.expires_at is not None
        ):
            raise ValueError("scope: only `temporary` events expire; set scope to `temporary`")
        for name in ("occurred_at", "expires_at"):
            moment = getattr(self, name)
            if moment is not None:
                check_time(name, moment)
        if (self.subject is None) != (self.attribute is None):
            raise ValueError("subject: a structured claim needs both `subject` and `attribute`")
        if self.summary is not None and self.kind is not Kind.summary:
            raise ValueError("summary: only a `summary` event carries a structured summary")
        return self


class Change(BaseModel):
    """One recorded change of a memory: what moved, who moved it, and why (so it can be undone)."""

    at: datetime
    action: str = Field(description="e.g. reinforced, superseded, promoted, demoted, merged, marked_stale")
    by: str = Field(description="An agent, `owner`, or the hub job that made the change.")
    changes: dict[str, Any] = Field(default_factory=dict, description="field -> [before, after]")
    note: str | None = None


class Sighting(BaseModel):
    """One time the fact was stated: the first event, or a later one that reinforced it."""

    event_id: str
    agent: str
    channel: str | None = None
    session: str | None = None
    at: datetime


class Memory(BaseModel):
    """A stored memory: the event plus what the hub knows about it."""

    model_config = ConfigDict(extra="ignore")

    id: str
    event_id: str
    text: str
    agent: str
    context: str | None = None
    kind: Kind
    nature: Nature | None = Field(
        None, description="state, event or message; None in memories written before."
    )
    evidence: list[str] = Field(default_factory=list)
    scope: Scope
    project: str | None = None
    person: str | None = None
    expires_at: datetime | None = None
    channel: str | None = None
    chat: str | None = None
    private: bool = False
    session: str | None = None
    occurred_at: datetime
    confidence: Confidence
    why: str | None = None
    source: str | None = None
    origin: Origin | None = None
    related: list[str] = Field(default_factory=list)
    subject: str | None = None
    attribute: str | None = None
    value: str | None = None
    state: State = State.active
    tier: Tier = Tier.episodic
    created_at: datetime
    last_verified: datetime
    superseded_by: str | None = None
    promotion_score: float = Field(0.0, description="Weighted promotion signals; orders the core block.")
    sightings: list[Sighting] = Field(default_factory=list, description="Every statement of this fact.")
    history: list[Change] = Field(default_factory=list)

    def expired(self, now: datetime) -> bool:
        """Past its expiry at `now`: searched by no one, purged at the next compaction."""
        return self.expires_at is not None and self.expires_at <= now

    @property
    def indexed_text(self) -> str:
        """What the dense model reads: the text, then its context (last, so that a long context is what
        the model's input limit cuts, never the memory). BM25 weighs the two apart (`hub.sparse`)."""
        return f"{self.text}\n{self.context}" if self.context else self.text

    @classmethod
    def from_event(cls, event: EventCreate, *, event_id: str, received_at: datetime) -> Memory:
        """The memory an accepted event becomes."""
        expires_at = event.expires_at
        if event.ttl_seconds is not None:
            ttl_expiry = received_at + timedelta(seconds=event.ttl_seconds)
            expires_at = min(expires_at, ttl_expiry) if expires_at else ttl_expiry
        now = utcnow()
        occurred_at = event.occurred_at or received_at
        data: dict[str, Any] = event.model_dump(exclude={"id", "ttl_seconds", "expires_at", "occurred_at"})
        first = Sighting(
            event_id=event_id, agent=event.agent, channel=event.channel, session=event.session, at=occurred_at
        )
        return cls(
            **data,
            id=memory_id_for(event_id),
            event_id=event_id,
            expires_at=expires_at,
            occurred_at=occurred_at,
            created_at=now,
            last_verified=now,
            sightings=[first],
        )
