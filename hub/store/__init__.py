"""Where memories live: one protocol, two Qdrant backends (embedded qdrant-edge, Qdrant server)."""

from __future__ import annotations

from hub.embedding import DIMENSIONS
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
from hub.store.current import current_name, open_generation
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


def open_store(settings: Settings, *, dimensions: int = DIMENSIONS) -> MemoryStore:
    """The hub's store now: a collection on the Qdrant server when `qdrant_url` is set, else the embedded
    shard under `data_dir`; created with `dimensions` if missing (`hub.store.current` says which one)."""
    return open_generation(settings, current_name(settings), dimensions=dimensions)
