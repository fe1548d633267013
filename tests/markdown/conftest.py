"""Fixtures for the markdown tests: the sample workspace, and a second, empty hub."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from hub.api.app import create_app
from hub.embedded import EmbeddedHub
from hub.services import Services
from memhub_client import Memhub

WORKSPACE = Path(__file__).resolve().parent.parent / "data" / "workspace"


@pytest.fixture
def hub_settings() -> dict[str, object]:
    """The rule judge: these tests check what import, export and the core block do with the conflicts
    the ledger holds, and were written against its verdicts on the sample workspace. The pair judge's
    own verdicts are measured in tests/conflicts/test_learned.py and benchmarks/conflict_quality."""
    return {"judge": "rules"}


@pytest.fixture
def make_empty_hub(
    hub: EmbeddedHub, make_services: Callable[..., Services], tmp_path: Path, hub_settings: dict[str, object]
) -> Iterator[Callable[[str], Memhub]]:
    """Another hub with its own store and Redis keys, for an agent's client; the first hub's workers stop.

    Worker threads find their services through one per-process slot, so one hub runs workers at a time.
    """
    started: list[tuple[EmbeddedHub, TestClient]] = []

    def factory(agent: str) -> Memhub:
        name = f"hub-{len(started) + 1}"
        for running in [hub, *(h for h, _ in started)]:
            running.stop_workers(timeout=5)
        services = make_services(data_dir=tmp_path / name, redis_prefix=name, queue_name=name, **hub_settings)
        other = EmbeddedHub(services=services, redis_server=None)
        other.start_workers(1, sweep_interval=0.5)
        client = TestClient(create_app(services))
        client.__enter__()
        started.append((other, client))
        return Memhub(agent=agent, client=client)

    yield factory
    for other, client in started:
        client.__exit__(None, None, None)
        other.stop()
