"""Fixtures for promotion scenarios: a hub whose settings a test may choose, and waiting for it to settle."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from hub.embedded import EmbeddedHub
from hub.services import Services


@pytest.fixture
def hub_settings() -> dict[str, object]:
    """Settings overrides for the `hub` below; parametrize this to run a scenario under other settings."""
    return {}


@pytest.fixture
def hub(make_services: Callable[..., Services], hub_settings: dict[str, object]) -> Iterator[EmbeddedHub]:
    """The shared `hub` fixture, built with `hub_settings`."""
    running = EmbeddedHub(services=make_services(**hub_settings), redis_server=None)
    running.start_workers(1, sweep_interval=0.5)
    yield running
    running.stop()
