"""Fixtures for compaction scenarios: a hub with chosen settings and workers, and waiting for it to settle."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from hub.embedded import EmbeddedHub
from hub.services import Services


@pytest.fixture
def hub_settings() -> dict[str, object]:
    """Settings overrides for the `hub` below; override this fixture to run a scenario under others."""
    return {}


@pytest.fixture
def hub_workers() -> int:
    return 1


@pytest.fixture
def hub(
    make_services: Callable[..., Services], hub_settings: dict[str, object], hub_workers: int
) -> Iterator[EmbeddedHub]:
    """The shared `hub` fixture, built with `hub_settings` and `hub_workers` real RQ worker threads."""
    running = EmbeddedHub(services=make_services(**hub_settings), redis_server=None)
    running.start_workers(hub_workers, sweep_interval=0.5)
    yield running
    running.stop()
