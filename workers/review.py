"""The reviews: each batch of stored memories as it is written, and the midday and nightly sweeps."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pydantic import TypeAdapter

from hub.compaction.apply import purge_expired
from hub.compaction.core_block import agents_over_budget
from hub.compaction.jobs import request_compaction
from hub.compaction.sweep import day_memories, sweep_conflicts
from hub.conflicts.jobs import enqueue_review
from hub.models import utcnow
from hub.promotion.jobs import enqueue_scoring
from hub.promotion.promoter import Promoter
from hub.status import mark_reviewed
from workers.context import JobContext

EventsByMemory = TypeAdapter(dict[str, list[str]])


def review_memories(ctx: JobContext, events_by_memory: dict[str, list[str]]) -> dict[str, Any]:
    """RQ job: the write-time review of a stored batch (memory id -> the events that wrote it).

    Reinforcement folds a restatement into the memory it restates, contradictions are recorded in
    the ledger and the policy applies; then every event's status names its final memory and the
    memories kept are scored for promotion. Idempotent: a retried job changes nothing more.
    Asked to stop, the worker ends the job after the memory in hand and enqueues the rest as a review
    job of its own, which the next worker takes.
    """
    services = ctx.services
    wanted = EventsByMemory.validate_python(events_by_memory)
    memories = services.store.get(list(wanted))
    vectors = services.store.vectors([m.id for m in memories])
    outcome = services.reviewer.review(memories, vectors, stop=ctx.stop_requested)
    left = set(outcome.left)
    if left:
        enqueue_review(services.background_queue, {m: wanted[m] for m in outcome.left})
    # A memory no longer in the store was folded away by an earlier try of this job: its events'
    # statuses already name where it went.
    final = {m.id: outcome.merged_into.get(m.id, m.id) for m in memories if m.id not in left}
    holder = {e: final.get(m) for m, events in wanted.items() if m not in left for e in events}
    mark_reviewed(services.redis, services.keys, holder)
    enqueue_scoring(services.background_queue, final.values())
    return {
        "reviewed": len(memories) - len(left),
        "reinforced": len(outcome.merged_into),
        "conflicts": len(outcome.conflicts),
        "left_for_the_next_worker": len(left),
    }


def review_day(ctx: JobContext, window_hours: float = 24.0) -> dict[str, Any]:
    """RQ job: purge what expired, conflict and promotion sweeps over the last `window_hours`, then
    over-budget compactions."""
    services = ctx.services
    now = utcnow()
    # An agent's compaction purges its expired memories, but it runs weekly: meanwhile a conflict about
    # one stayed open, and a memory it had superseded stayed hidden behind one nobody finds.
    purged = purge_expired(
        store=services.store, redis=services.redis, keys=services.keys, now=now, by="review"
    )
    day = day_memories(services, since=now - timedelta(hours=window_hours), now=now)
    sweep = sweep_conflicts(services, day)
    # Scored after the conflict sweep, which may have folded some of the day's memories away.
    assessments = Promoter.of(services).score([m.id for m in day])
    # Promotions can push a core over budget: checked last.
    over = agents_over_budget(services.store, services.redis, services.keys, services.settings, now=now)
    enqueued = [
        agent
        for agent in over
        if request_compaction(services.redis, services.queue, services.keys, agent, reason="core over budget")
    ]
    return {
        "purged": purged,
        "conflict_sweep": sweep.model_dump(),
        "promotion": {"scored": len(assessments)},
        "over_budget": over,
        "compactions_enqueued": enqueued,
    }
