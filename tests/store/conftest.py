"""Store fixtures: one `store` per backend, and memories with real MiniLM + BM25 vectors.

The session `embedder` fixture (the real model) comes from tests/conftest.py.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hub.embedding import Embedder
from hub.models import Confidence, Kind, Memory, Scope, Tier, memory_id_for
from hub.sparse import SparseEncoder
from hub.store.base import MemoryPoint, MemoryStore
from hub.store.edge import EdgeStore
from hub.store.server import ServerStore

# A server image whose minor version is within one of qdrant-client's: the client warns otherwise,
# and the test run turns warnings into errors.
# docker-compose.yml runs the same one (tests/test_deploy.py).
PINNED_QDRANT_IMAGE = "qdrant/qdrant:v1.20.0"
QDRANT_IMAGE = os.environ.get("MEMHUB_TEST_QDRANT_IMAGE", PINNED_QDRANT_IMAGE)

NOW = datetime.now(UTC).replace(microsecond=0)

BACKENDS = ["edge", "local", pytest.param("server", marks=pytest.mark.docker)]


@pytest.fixture(scope="session")
def qdrant_url() -> Iterator[str]:
    """A real Qdrant server in a container, for the whole run; skipped where no Docker engine runs."""
    import docker

    try:
        docker.from_env().ping()
    except Exception as exc:  # docker raises several unrelated types when no engine is there
        pytest.skip(f"no Docker engine reachable: {exc}")
    from testcontainers.community.qdrant import QdrantContainer

    with QdrantContainer(QDRANT_IMAGE) as container:
        yield f"http://{container.rest_host_address}"


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryStore]:
    """An empty store of each backend: edge (a shard in tmp_path), local (qdrant-client in memory), server."""
    built: MemoryStore
    if request.param == "edge":
        built = EdgeStore(tmp_path / "shard")
    elif request.param == "local":
        built = ServerStore(location=":memory:")
    else:
        # One collection per test on the session's server: no test sees another's memories.
        built = ServerStore(request.getfixturevalue("qdrant_url"), collection=f"test_{uuid.uuid4().hex}")
    yield built
    built.close()


@pytest.fixture(scope="session")
def sparse() -> SparseEncoder:
    return SparseEncoder()


def make_memory(name: str, text: str, **fields: Any) -> Memory:
    """A memory named `name` (its event id), global and active unless `fields` say otherwise."""
    values: dict[str, Any] = {
        "id": memory_id_for(name),
        "event_id": name,
        "text": text,
        "agent": "tester",
        "kind": Kind.fact,
        "scope": Scope.global_,
        "occurred_at": NOW - timedelta(days=1),
        "confidence": Confidence.medium,
        "tier": Tier.episodic,
        "created_at": NOW,
        "last_verified": NOW,
    }
    values.update(fields)
    return Memory(**values)


@pytest.fixture(scope="session")
def make_point(embedder: Embedder, sparse: SparseEncoder) -> Callable[[Memory], MemoryPoint]:
    """A memory with its real vectors; texts are embedded once per run."""
    cache: dict[str, list[float]] = {}

    def factory(memory: Memory) -> MemoryPoint:
        if memory.text not in cache:
            cache[memory.text] = embedder.encode_one(memory.text)
        return MemoryPoint(memory=memory, dense=cache[memory.text], sparse=sparse.document(memory.text))

    return factory
