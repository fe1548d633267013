"""Where memories live: one protocol, two Qdrant backends (embedded qdrant-edge, Qdrant server)."""

from __future__ import annotations

from hub.settings import Settings
from hub.store.base import (
    Hit,
    MemoryFilter,
    MemoryPoint,
    MemoryStore,
    Page,
    SearchMode,
    SearchQuery,
    SparseVec,
)
from hub.store.edge import EdgeStore

__all__ = [
    "EdgeStore",
    "Hit",
    "MemoryFilter",
    "MemoryPoint",
    "MemoryStore",
    "Page",
    "SearchMode",
    "SearchQuery",
    "SparseVec",
    "open_store",
]


def open_store(settings: Settings) -> MemoryStore:
    """The Qdrant server when `qdrant_url` is set, else the embedded shard under `data_dir`."""
    if settings.qdrant_url:
        # qdrant-client takes most of a second to import; the embedded hub never needs it.
        from hub.store.server import ServerStore

        return ServerStore(
            settings.qdrant_url, api_key=settings.qdrant_api_key, collection=settings.collection
        )
    return EdgeStore(settings.data_dir / "store" / settings.collection)
