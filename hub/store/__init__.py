"""The memory store: one interface, an embedded backend (qdrant-edge) and a server one (qdrant-client)."""

from __future__ import annotations

from hub.settings import Settings
from hub.store.base import MemoryStore


def open_store(settings: Settings) -> MemoryStore:
    """A Qdrant server when MEMHUB_QDRANT_URL is set, else the embedded store in the data directory."""
    if settings.qdrant_url:
        from hub.store.server import ServerStore

        return ServerStore(url=settings.qdrant_url, api_key=settings.qdrant_api_key, collection=settings.collection)
    from hub.store.edge import EdgeStore

    return EdgeStore(settings.data_dir / "store" / settings.collection)


__all__ = ["MemoryStore", "open_store"]
