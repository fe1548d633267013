"""Each worker hands its jobs its own services: two hubs' workers run side by side in one process."""

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from hub.connections import connect
from hub.embedding import Embedder
from hub.services import Services, build_services
from hub.settings import Settings
from hub.status import EventState, read_status
from tests.workers.test_ingest import publisher
from workers.context import ContextJob, JobContext, NoContextError
from workers.worker import make_worker


def test_two_hubs_jobs_run_side_by_side_in_one_process_each_with_its_own_services(
    make_services: Callable[..., Services],
    make_settings: Callable[..., Settings],
    embedder: Embedder,
    other_redis_url: str,
    tmp_path: Path,
) -> None:
    first = make_services()
    other_settings = make_settings(data_dir=tmp_path / "other", redis_url=other_redis_url)
    second = build_services(other_settings, connect(other_redis_url), embedder=embedder)
    try:
        texts = {"first": "Dana waters the garden on Fridays", "second": "Omer moved the dentist to Tuesday"}
        first_ids = [publisher(first).publish(f"{texts['first']} (note {i})") for i in range(20)]
        second_ids = [publisher(second).publish(f"{texts['second']} (note {i})") for i in range(20)]

        workers = [make_worker(services, threaded=True) for services in (first, second)]
        threads = [
            threading.Thread(target=w.work, kwargs={"burst": True, "logging_level": "WARNING"})
            for w in workers
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert not any(thread.is_alive() for thread in threads)

        for services, ids, text in (
            (first, first_ids, texts["first"]),
            (second, second_ids, texts["second"]),
        ):
            assert all(not q.failed_job_registry.get_job_ids() for q in services.queues)
            states = [read_status(services.redis, services.keys, i) for i in ids]
            assert [s.status if s else None for s in states] == [EventState.stored] * 20
            assert all(s is not None and s.reviewed for s in states)
            assert services.store.count() == 20
            stored = services.store.get([s.memory_id for s in states if s and s.memory_id])
            assert {m.text.split(" (")[0] for m in stored} == {text}
    finally:
        second.close()


def test_a_job_run_outside_a_worker_says_what_it_needs(make_services: Callable[..., Services]) -> None:
    services = make_services()
    job = ContextJob.create("workers.indexing.index_store", connection=services.redis)
    with pytest.raises(NoContextError, match="memhub worker"):
        job.perform()
    job.context = JobContext(services)
    assert job.perform()["unindexed_before"] == 0
