"""The indexing job: build the embedded store's HNSW graph over the memories it searches by brute force."""

from __future__ import annotations

import logging
import time
from typing import Any

from workers.context import JobContext

log = logging.getLogger(__name__)


def index_store(ctx: JobContext) -> dict[str, Any]:
    """RQ job: index what the store searches by brute force (`hub.store.indexing`); the counts before and after."""
    services = ctx.services
    try:
        waiting = services.store.unindexed_count()
        log.info("indexing the store: %d memories searched by brute force", waiting)
        start = time.perf_counter()
        changed = services.store.optimize()
        seconds = time.perf_counter() - start
        left = services.store.unindexed_count()
        log.info("indexed the store in %.1f s: %d memories searched by brute force", seconds, left)
        return {
            "unindexed_before": waiting,
            "unindexed_after": left,
            "changed": changed,
            "seconds": round(seconds, 1),
        }
    finally:
        # Cleared last: while it runs, the memories it indexes still count as waiting.
        services.redis.delete(services.keys.index_scheduled)
