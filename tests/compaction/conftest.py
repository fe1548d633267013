"""Fixtures for compaction scenarios: a hub with chosen settings and workers, and waiting for it to settle."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from rq.job import Job

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


@pytest.fixture
def settle(hub: EmbeddedHub) -> Callable[..., None]:
    """Wait until no event waits and no job is queued or running; fail on a failed job."""
    services = hub.services
    queue = services.queue

    def busy() -> bool:
        if services.redis.xlen(services.keys.stream) or queue.count or queue.started_job_registry.count:
            return True
        return any(w.get_state() == "busy" for w in hub.workers)

    def wait(timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        idle = 0
        # Idle three polls in a row: a job moves from the queue to the started registry in two steps.
        while idle < 3:
            if time.monotonic() > deadline:
                raise AssertionError(f"the hub was still busy after {timeout} s")
            idle = 0 if busy() else idle + 1
            time.sleep(0.02)
        failed = queue.failed_job_registry.get_job_ids()
        if failed:
            job = Job.fetch(failed[0], connection=services.redis, serializer=queue.serializer)
            result = job.latest_result()
            raise AssertionError(f"job {job.func_name} failed:\n{result.exc_string if result else '?'}")

    return wait
