"""Promotion proposals waiting for the owner, kept in Redis beside the conflict ledger.

A proposal's id derives from the memory and the tier it would move to, so scoring a memory again
refreshes its proposal instead of adding another, and a proposal the owner rejected stays rejected.
A proposal is decided once: whoever decides it (the owner, or the hub withdrawing it) claims it first,
and a refresh never writes over a decision made since it read the proposal.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from enum import StrEnum
from typing import cast

from pydantic import BaseModel, Field
from redis import Redis
from redis.client import Pipeline

from hub.keys import Keys
from hub.models import Memory, Scope, State, Tier, utcnow
from hub.promotion.score import Assessment
from hub.promotion.signals import Signal


class ProposalStatus(StrEnum):
    pending = "pending"
    approved = "approved"
    rejected = "rejected"
    withdrawn = "withdrawn"  # by the hub: the memory was superseded or moved another way


class Proposal(BaseModel):
    id: str
    memory_id: str
    text: str
    agent: str
    scope: Scope
    project: str | None = None
    person: str | None = None
    from_tier: Tier
    to_tier: Tier
    score: float
    signals: list[Signal] = Field(
        description="Every signal that produced the proposal, with what was observed."
    )
    reason: str = Field(description="Which rule the signals met.")
    status: ProposalStatus = ProposalStatus.pending
    decided_by: str | None = None
    note: str | None = None
    created_at: datetime
    updated_at: datetime
    decided_at: datetime | None = None

    @property
    def pending(self) -> bool:
        return self.status is ProposalStatus.pending


class ProposalView(Proposal):
    """A proposal with its memory as it stands now."""

    memory: Memory | None = Field(description="Null when the memory was deleted since.")


def unpromotable(memory: Memory | None, now: datetime) -> str | None:
    """Why `memory` can no longer be promoted (deleted, not active, expired), or None when it can.

    An expired temporary memory is still active until compaction purges it, but searched by no one:
    promoted, it would only be purged from its new tier.
    """
    if memory is None:
        return "the memory is deleted"
    if memory.state is not State.active:
        by = f" by {memory.superseded_by}" if memory.superseded_by else ""
        return f"the memory is {memory.state.value}{by}"
    if memory.expires_at is not None and memory.expired(now):
        return f"the memory expired at {memory.expires_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
    return None


def as_it_stands(view: ProposalView, *, now: datetime) -> ProposalView:
    """Withdrawn, when pending but its memory can no longer be promoted (`unpromotable`): approving it is refused.

    The hub withdraws on a correction; a conflict settled against the memory leaves the proposal pending.
    """
    why = unpromotable(view.memory, now) if view.pending else None
    if why is None:
        return view
    return view.model_copy(update={"status": ProposalStatus.withdrawn, "note": why})


def proposal_id(memory_id: str, to_tier: Tier) -> str:
    return "p-" + hashlib.sha256(f"{memory_id}|{to_tier.value}".encode()).hexdigest()[:20]


def get(redis: Redis, keys: Keys, pid: str) -> Proposal | None:
    raw = redis.get(keys.proposal(pid))
    return Proposal.model_validate_json(raw) if raw else None


def _write(pipe: Pipeline, keys: Keys, proposal: Proposal) -> None:
    proposal.updated_at = utcnow()
    pipe.set(keys.proposal(proposal.id), proposal.model_dump_json())
    pipe.zadd(keys.proposals, {proposal.id: proposal.created_at.timestamp()})


def save(redis: Redis, keys: Keys, proposal: Proposal) -> None:
    pipe = redis.pipeline(transaction=True)
    _write(pipe, keys, proposal)
    pipe.execute()


def propose(redis: Redis, keys: Keys, memory: Memory, assessment: Assessment) -> Proposal:
    """Record a pending proposal, or refresh the score and signals of one already pending.

    A decided proposal is left as decided: the owner's answer stands for that memory and tier.
    """
    if assessment.target is None:
        raise ValueError("a proposal needs a target tier")
    pid = proposal_id(memory.id, assessment.target)
    key = keys.proposal(pid)

    def refresh(pipe: Pipeline) -> Proposal:
        raw = pipe.get(key)
        found = Proposal.model_validate_json(raw) if raw else None
        if found is not None and not found.pending:
            return found
        now = utcnow()
        proposal = Proposal(
            id=pid,
            memory_id=memory.id,
            text=memory.text,
            agent=memory.agent,
            scope=memory.scope,
            project=memory.project,
            person=memory.person,
            from_tier=memory.tier,
            to_tier=assessment.target,
            score=assessment.score,
            signals=assessment.signals,
            reason=assessment.reason,
            created_at=found.created_at if found else now,
            updated_at=now,
        )
        if found is None or found.model_dump(exclude={"updated_at"}) != proposal.model_dump(
            exclude={"updated_at"}
        ):
            pipe.multi()
            _write(pipe, keys, proposal)
        return proposal

    # Read and written in one transaction (redis-py runs it again when the proposal changed in
    # between), so a decision saved meanwhile is never turned back into a pending proposal. Its stub
    # wants a callable returning None, though value_from_callable returns what the callable returns.
    found = redis.transaction(refresh, key, value_from_callable=True)  # type: ignore[arg-type]
    return cast(Proposal, found)


def remove(redis: Redis, keys: Keys, pid: str) -> bool:
    """Delete a proposal, whatever its status (its memory was forgotten); False when there was none."""
    pipe = redis.pipeline(transaction=True)
    pipe.delete(keys.proposal(pid))
    pipe.zrem(keys.proposals, pid)
    return bool(pipe.execute()[0])


def decide(proposal: Proposal, status: ProposalStatus, *, by: str, note: str | None) -> Proposal:
    return proposal.model_copy(
        update={"status": status, "decided_by": by, "note": note, "decided_at": utcnow()}
    )


def pending_for(redis: Redis, keys: Keys, memory_id: str) -> list[Proposal]:
    """The memory's proposals still waiting, whatever tier they aim at: one read for every tier (the
    promoter asks after each memory it scores, and most have none)."""
    names = [keys.proposal(proposal_id(memory_id, tier)) for tier in Tier]
    raws = cast(list[bytes | None], redis.mget(names))
    found = [Proposal.model_validate_json(raw) for raw in raws if raw]
    return [p for p in found if p.pending]


def all_proposals(redis: Redis, keys: Keys) -> list[Proposal]:
    """Every proposal, newest first (the list route filters by status as each stands, `as_it_stands`)."""
    ids = [i.decode() for i in cast(list[bytes], redis.zrevrange(keys.proposals, 0, -1))]
    raws = redis.mget([keys.proposal(i) for i in ids]) if ids else []
    return [Proposal.model_validate_json(r) for r in raws if r]
