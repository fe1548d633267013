"""Which physical store a hub's collection (MEMHUB_COLLECTION) is now, and switching to another.

`memhub reembed` fills a new generation of the store beside the current one and then switches to it
in one step that a crash cannot cut in half: embedded, a pointer file replaced by a rename; on a
Qdrant server, an alias. A store made before generations existed is generation 1, named after the
collection itself.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from hub.embedding import DIMENSIONS
from hub.settings import Settings
from hub.store.base import MemoryStore
from hub.store.edge import EdgeStore
from hub.store.index_copy import fsync_dir

if TYPE_CHECKING:
    from qdrant_client import QdrantClient


def generation_name(collection: str, generation: int) -> str:
    return collection if generation == 1 else f"{collection}.{generation}"


def generation_of(collection: str, name: str) -> int:
    found = re.fullmatch(re.escape(collection) + r"\.(\d+)", name)
    return int(found[1]) if found else 1


def _store_dir(settings: Settings) -> Path:
    return settings.data_dir / "store"


def _pointer(settings: Settings) -> Path:
    return _store_dir(settings) / f"{settings.collection}.current"


def _client(settings: Settings) -> QdrantClient:
    from qdrant_client import QdrantClient

    return QdrantClient(url=settings.qdrant_url, api_key=settings.qdrant_api_key)


def current_name(settings: Settings) -> str:
    """The name of the store generation the hub reads and writes now."""
    if not settings.qdrant_url:
        pointer = _pointer(settings)
        return pointer.read_text().strip() if pointer.exists() else settings.collection
    client = _client(settings)
    try:
        return _server_current(client, settings.collection)
    finally:
        client.close()


def _server_current(client: QdrantClient, collection: str) -> str:
    for alias in client.get_aliases().aliases:
        if alias.alias_name == collection:
            return alias.collection_name
    if client.collection_exists(collection):
        return collection
    # A switch that died between dropping the first generation and naming the next: the newest
    # generation that a reembed finished (recorded its model in) is the one it was switching to.
    from hub.store.server import MODEL_RECORD

    finished = [
        c.name
        for c in client.get_collections().collections
        if generation_of(collection, c.name) > 1
        and (client.get_collection(c.name).config.metadata or {}).get(MODEL_RECORD)
    ]
    return max(finished, key=lambda name: generation_of(collection, name), default=collection)


def embedded_store_exists(settings: Settings) -> bool:
    """Whether the hub's embedded store has been created (never true against a Qdrant server)."""
    return (
        not settings.qdrant_url
        and (_store_dir(settings) / current_name(settings) / "edge_config.json").exists()
    )


def open_generation(settings: Settings, name: str, *, dimensions: int = DIMENSIONS) -> MemoryStore:
    """One generation of the store, created (with `dimensions`) if missing."""
    if settings.qdrant_url:
        # qdrant-client takes most of a second to import; the embedded hub never needs it.
        from hub.store.server import ServerStore

        return ServerStore(
            settings.qdrant_url, api_key=settings.qdrant_api_key, collection=name, dimensions=dimensions
        )
    return EdgeStore(
        _store_dir(settings) / name,
        flush_interval=settings.store_flush_seconds,
        dimensions=dimensions,
        index_niceness=settings.background_niceness,
    )


def switch_to(settings: Settings, name: str) -> None:
    """Make generation `name` the hub's store, then drop the one it replaces."""
    old = current_name(settings)
    if old == name:
        return
    if not settings.qdrant_url:
        pointer, written = _pointer(settings), _pointer(settings).with_suffix(".tmp")
        with written.open("w") as fh:
            fh.write(name + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        written.replace(pointer)
        fsync_dir(pointer.parent)
        shutil.rmtree(_store_dir(settings) / old, ignore_errors=True)
        return
    from qdrant_client import models

    client = _client(settings)
    try:
        operations: list[models.AliasOperations] = []
        if old == settings.collection:  # the first generation holds the name an alias would take
            client.delete_collection(old)
        else:
            operations.append(
                models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=settings.collection))
            )
        operations.append(
            models.CreateAliasOperation(
                create_alias=models.CreateAlias(collection_name=name, alias_name=settings.collection)
            )
        )
        client.update_collection_aliases(change_aliases_operations=operations)
        if old != settings.collection:
            client.delete_collection(old)
    finally:
        client.close()


def drop_leftovers(settings: Settings, *, keep: set[str]) -> list[str]:
    """Delete the embedded store's generations a crash left behind (neither current nor in `keep`)."""
    if settings.qdrant_url or not _store_dir(settings).is_dir():
        return []
    keep = keep | {current_name(settings)}
    dropped = []
    for folder in _store_dir(settings).iterdir():
        if (
            folder.is_dir()
            and generation_of(settings.collection, folder.name) > 1
            and folder.name not in keep
        ):
            shutil.rmtree(folder, ignore_errors=True)
            dropped.append(folder.name)
    return dropped


def drop_generation(settings: Settings, name: str) -> None:
    """Delete a generation that is not the current one (a reembed's unfinished target)."""
    if name == current_name(settings):
        raise ValueError(f"{name} is the hub's store now")
    if not settings.qdrant_url:
        shutil.rmtree(_store_dir(settings) / name, ignore_errors=True)
        return
    client = _client(settings)
    try:
        client.delete_collection(name)
    finally:
        client.close()
