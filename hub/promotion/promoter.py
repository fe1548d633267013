"""Applying assessments: store the score, keep the weekly list, promote or propose; the owner's answers.

By default the hub proposes and the owner decides. `auto_promote` (or a scope named in
`auto_promote_scopes`) promotes at once instead; `promote_at_once` lets corrections and confirmed
deductions move without waiting. Every move is recorded in the memory's history with its signals.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from redis import Redis

from hub.keys import Keys
from hub.locks import claimed, writing
from hub.models import Memory, utcnow
from hub.promotion import proposals, tiers, weekly
from hub.promotion.context import ContextLoader
from hub.promotion.proposals import Proposal, ProposalStatus, ProposalView
from hub.promotion.score import Assessment, Decision, assess
from hub.promotion.signals import Context, Signal
from hub.settings import Settings
from hub.store.base import MemoryStore

if TYPE_CHECKING:
    from hub.services import Services


class ProposalNotFound(LookupError):
    pass


class ProposalClosed(ValueError):
    """The proposal cannot be decided (any more): already decided, or its memory moved on."""


def explain(reason: str, signals: Sequence[Signal]) -> str:
    return f"{reason}; signals: " + "; ".join(f"{s.name.value} ({s.detail})" for s in signals)


def correction_evidence(corrected: Memory) -> str:
    when = f"{corrected.occurred_at:%Y-%m-%d}"
    return f"corrects «{corrected.text}» ({corrected.agent}, {when}, memory {corrected.id})"


@dataclass
class Promoter:
    store: MemoryStore
    redis: Redis
    keys: Keys
    settings: Settings

    @classmethod
    def of(cls, services: Services) -> Promoter:
        return cls(store=services.store, redis=services.redis, keys=services.keys, settings=services.settings)

    def score(self, memory_ids: Sequence[str]) -> list[Assessment]:
        """Assess these memories and act on each assessment; memories gone since are skipped."""
        memories = self.store.get(list(dict.fromkeys(memory_ids)))
        contexts = ContextLoader(
            store=self.store, redis=self.redis, keys=self.keys, settings=self.settings
        ).load(memories)
        return [self._apply(memory, contexts[memory.id]) for memory in memories]

    def automatic(self, memory: Memory) -> bool:
        return self.settings.auto_promote or memory.scope.value in self.settings.auto_promote_scopes

    def _apply(self, memory: Memory, context: Context) -> Assessment:
        assessment = assess(memory, context, self.settings)
        for corrected in context.corrects:
            self._withdraw(corrected, note=f"superseded by the correction {memory.id}")
        if assessment.decision is Decision.weekly_review:
            weekly.add(self.redis, self.keys, assessment, last_stated=max(s.at for s in memory.sightings))
        else:
            weekly.remove(self.redis, self.keys, memory.id)
        moves = assessment.decision is Decision.propose and self.automatic(memory)
        moves |= assessment.decision is Decision.at_once and (
            self.settings.promote_at_once or self.automatic(memory)
        )
        target = assessment.target if moves else None  # where the hub moves it now, if anywhere
        # Written from the memory as it is now, among the other writers (`hub.locks`): a review may have
        # added a sighting or a history entry since it was read for the assessment.
        with writing(self.redis, self.keys):
            current = self.store.get([memory.id])
            if not current:
                return assessment  # folded into another, or purged, meanwhile
            memory = current[0]
            fields: dict[str, Any] = {}
            if memory.promotion_score != assessment.score:
                fields["promotion_score"] = assessment.score
            # A correction carries what it corrected, so the evidence survives the superseded memory.
            carried = [e for e in map(correction_evidence, context.corrects) if e not in memory.evidence]
            if carried:
                fields["evidence"] = [*memory.evidence, *carried]
            if target is not None:
                memory = tiers.move(
                    self.store,
                    memory,
                    target,
                    by="hub",
                    note=explain(assessment.reason, assessment.signals),
                    **fields,
                )
            elif fields:
                self.store.update(memory.id, fields)
                memory = memory.model_copy(update=fields)
        if target is None and assessment.decision in (Decision.propose, Decision.at_once):
            proposals.propose(self.redis, self.keys, memory, assessment)
        self._withdraw(memory, note=f"the memory is {memory.tier.value} now")
        return assessment

    def _withdraw(self, memory: Memory, *, note: str) -> None:
        """Close pending proposals that no longer apply: the memory was superseded or already got there."""
        for proposal in proposals.pending_for(self.redis, self.keys, memory.id):
            moot = proposals.unpromotable(memory, utcnow()) is not None
            if moot or tiers.RANK[memory.tier] >= tiers.RANK[proposal.to_tier]:
                # The owner decided it meanwhile, or is deciding it now: that answer stands.
                with suppress(ProposalClosed), self._deciding(proposal.id, by="hub") as pending:
                    closed = proposals.decide(pending, ProposalStatus.withdrawn, by="hub", note=note)
                    proposals.save(self.redis, self.keys, closed)

    @contextmanager
    def _deciding(self, proposal_id: str, *, by: str) -> Iterator[Proposal]:
        """The pending proposal, claimed: until the block ends, nothing else may decide it.

        Read only once claimed, so of two decisions at once (approve and reject from two devices)
        the second finds the proposal claimed, or already decided, and raises ProposalClosed.
        """
        with claimed(self.redis, self.keys.proposal_claim(proposal_id), by=by) as mine:
            if not mine:
                raise ProposalClosed(f"proposal {proposal_id} is being decided by another request")
            proposal = proposals.get(self.redis, self.keys, proposal_id)
            if proposal is None:
                raise ProposalNotFound(f"no proposal with id {proposal_id!r}")
            if not proposal.pending:
                raise ProposalClosed(f"proposal {proposal_id} is already {proposal.status.value}")
            yield proposal

    def approve(self, proposal_id: str, *, by: str, note: str | None = None) -> Proposal:
        """Move the memory to the proposed tier, recording the approval and the signals in its history."""
        with self._deciding(proposal_id, by=by) as proposal, writing(self.redis, self.keys):
            found = self.store.get([proposal.memory_id])
            memory = found[0] if found else None
            if (closed := proposals.unpromotable(memory, utcnow())) is not None:
                raise ProposalClosed(f"memory {proposal.memory_id}: {closed}; there is nothing to promote")
            assert memory is not None
            if tiers.RANK[memory.tier] < tiers.RANK[proposal.to_tier]:
                why = f"approved proposal {proposal.id}: " + explain(proposal.reason, proposal.signals)
                tiers.move(
                    self.store, memory, proposal.to_tier, by=by, note=why + (f"; {note}" if note else "")
                )
            decided = proposals.decide(proposal, ProposalStatus.approved, by=by, note=note)
            proposals.save(self.redis, self.keys, decided)
        return decided

    def reject(self, proposal_id: str, *, by: str, note: str | None = None) -> Proposal:
        """The memory stays where it is; the same proposal is not made again."""
        with self._deciding(proposal_id, by=by) as proposal:
            decided = proposals.decide(proposal, ProposalStatus.rejected, by=by, note=note)
            proposals.save(self.redis, self.keys, decided)
        return decided

    def views(self, found: Sequence[Proposal]) -> list[ProposalView]:
        """Proposals with their memories as they stand now."""
        memories = {m.id: m for m in self.store.get(list({p.memory_id for p in found}))}
        return [ProposalView(**p.model_dump(), memory=memories.get(p.memory_id)) for p in found]
