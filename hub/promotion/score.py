"""From signals to a decision: promote at once, propose, put on the weekly review, or leave alone.

The rules, with thresholds from the settings:
- a correction takes over the tier of the long-term memory (or deduction) it corrects, and a
  deduction seen in several sessions becomes long-term: at once, when the owner allows it;
- mentioned often within a week: one step toward core (the only way from semantic to core);
- named for promotion in a session summary, 2+ strong signals, or 1 strong and 2+ supporting: propose;
- any other signal (supporting only, or one strong alone): the weekly review list.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from hub.models import Kind, Memory, State, Tier, utcnow
from hub.promotion.signals import Context, Signal, SignalName, Strength, compute, sessions
from hub.promotion.tiers import LONG_TERM, RANK, next_tier
from hub.settings import Settings


class Decision(StrEnum):
    none = "none"
    weekly_review = "weekly_review"
    propose = "propose"
    at_once = "at_once"


class Assessment(BaseModel):
    """One scoring of one memory: the signals, their weighted sum and what follows from them."""

    memory_id: str
    tier: Tier
    score: float = Field(
        description="The sum of the signals' weights; stored as the memory's promotion_score."
    )
    signals: list[Signal]
    decision: Decision
    target: Tier | None = Field(None, description="The tier a promotion would move the memory to.")
    reason: str
    at: datetime


def takes_over(context: Context) -> Tier | None:
    """The tier a correction inherits: a corrected long-term memory's, or semantic for a deduction."""
    tiers = [m.tier for m in context.corrects if m.tier in LONG_TERM]
    tiers += [Tier.semantic for m in context.corrects if m.kind is Kind.deduced]
    return max(tiers, key=RANK.__getitem__) if tiers else None


def assess(memory: Memory, context: Context, settings: Settings) -> Assessment:
    signals = compute(memory, context, settings)
    score = round(sum(s.weight for s in signals), 3)

    def decide(decision: Decision, reason: str, target: Tier | None = None) -> Assessment:
        return Assessment(
            memory_id=memory.id,
            tier=memory.tier,
            score=score,
            signals=signals,
            decision=decision,
            target=target,
            reason=reason,
            at=utcnow(),
        )

    if memory.state is not State.active:
        return decide(Decision.none, f"a {memory.state.value} memory does not move")
    if memory.expired(utcnow()):  # searched by no one, and purged at the next compaction
        return decide(Decision.none, "an expired memory does not move")
    inherited = takes_over(context)
    if inherited is not None and RANK[inherited] > RANK[memory.tier]:
        return decide(Decision.at_once, f"corrects a {inherited.value} memory and takes its place", inherited)
    seen_in = sessions(memory.sightings)
    if (
        memory.kind is Kind.deduced
        and len(seen_in) >= settings.promotion_deduction_sessions
        and RANK[memory.tier] < RANK[Tier.semantic]
    ):
        return decide(Decision.at_once, f"a deduction borne out in {len(seen_in)} sessions", Tier.semantic)
    target = next_tier(memory.tier)
    names = {s.name for s in signals}
    strong = [s for s in signals if s.strength is Strength.strong]
    supporting = len(signals) - len(strong)
    if target is None:
        return decide(Decision.none, "already in core")
    frequent = "mentioned often within a week: one step toward core"
    if target is Tier.core:
        if SignalName.frequent in names:
            return decide(Decision.propose, frequent, target)
        return decide(Decision.none, "long-term already; only frequent mentions move it toward core")
    if len(strong) >= settings.promotion_min_strong:
        return decide(Decision.propose, f"{len(strong)} strong signals", target)
    if strong and supporting >= settings.promotion_min_supporting:
        return decide(Decision.propose, f"1 strong and {supporting} supporting signals", target)
    if SignalName.nominated in names:
        return decide(Decision.propose, "named for long-term memory in a session summary", target)
    if SignalName.frequent in names:
        return decide(Decision.propose, frequent, target)
    if strong:
        return decide(Decision.weekly_review, "one strong signal, short of a proposal")
    if supporting:
        return decide(Decision.weekly_review, "supporting signals only")
    return decide(Decision.none, "no signal yet")
