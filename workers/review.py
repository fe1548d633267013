"""The midday and nightly review: sweeps over the day, then compaction where a core went over budget."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hub.compaction.core_block import agents_over_budget
from hub.compaction.jobs import request_compaction
from hub.compaction.sweep import day_memories, sweep_conflicts
from hub.models import utcnow
from hub.promotion.promoter import Promoter
from workers import runtime


def review_day(window_hours: float = 24.0) -> dict[str, Any]:
    """RQ job: conflict and promotion sweeps over the last `window_hours`, then over-budget compactions."""
    services = runtime.current()
    now = utcnow()
    day = day_memories(services, since=now - timedelta(hours=window_hours), now=now)
    sweep = sweep_conflicts(services, day)
    # Scored after the conflict sweep, which may have folded some of the day's memories away.
    assessments = Promoter.of(services).score([m.id for m in day])
    # Promotions can push a core over budget: checked last.
    over = agents_over_budget(services.store, services.settings, now=now)
    enqueued = [
        agent
        for agent in over
        if request_compaction(services.redis, services.queue, services.keys, agent, reason="core over budget")
    ]
    return {
        "conflict_sweep": sweep.model_dump(),
        "promotion": {"scored": len(assessments)},
        "over_budget": over,
        "compactions_enqueued": enqueued,
    }
