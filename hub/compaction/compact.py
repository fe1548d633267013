"""One agent's compaction: make the plan, then carry it out unless it is a dry run."""

from __future__ import annotations

from datetime import datetime

from hub.compaction.apply import apply_plan
from hub.compaction.duplicates import Progress
from hub.compaction.plan import Compaction, make_plan
from hub.models import utcnow
from hub.services import Services


def compact(
    services: Services,
    agent: str,
    *,
    dry_run: bool = False,
    now: datetime | None = None,
    progress: Progress | None = None,
) -> Compaction:
    """Purge expired memories, merge near-duplicates, mark stale ones, demote core over budget."""
    plan = make_plan(
        store=services.store,
        redis=services.redis,
        keys=services.keys,
        embedder=services.embedder,
        judge=services.judge,
        settings=services.settings,
        agent=agent,
        now=now or utcnow(),
        progress=progress,
    )
    if dry_run:
        return plan
    return apply_plan(
        plan,
        store=services.store,
        redis=services.redis,
        keys=services.keys,
        now=now or utcnow(),
        progress=progress,
    )
