"""Must-show 4: compaction of 20 agents runs as 20 jobs, and two workers share them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from rq.job import Job
from rq.registry import FinishedJobRegistry

from hub.compaction.jobs import COMPACT_JOB
from hub.embedded import EmbeddedHub
from hub.redis_publisher import build_event
from memhub_client import Memhub

AGENTS = [f"agent-{i:02d}" for i in range(20)]
PLACES = ["Haifa", "Eilat", "Akko", "Modiin", "Rehovot"]


@pytest.fixture
def hub_workers() -> int:
    return 2


def test_the_weekly_compaction_of_20_agents_is_20_jobs_shared_by_two_workers(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    for i, name in enumerate(AGENTS):
        agent = make_agent(name)
        agent.publish_many(
            [
                build_event(f"The {name} team meets in {PLACES[i % 5]} on Mondays", agent=name, channel=None),
                build_event(f"Reports from {name} go out every Friday afternoon", agent=name, channel=None),
            ]
        )
    settle()
    services = hub.services

    weekly = services.queue.enqueue("workers.compaction.compact_every_agent")
    settle()

    job_ids = weekly.return_value(refresh=True)
    assert len(job_ids) == 20
    finished = FinishedJobRegistry(queue=services.queue)
    assert set(job_ids) <= set(finished.get_job_ids())
    jobs = Job.fetch_many(job_ids, connection=services.redis, serializer=services.queue.serializer)
    assert all(job is not None and job.func_name == COMPACT_JOB for job in jobs)
    assert sorted(job.kwargs["agent"] for job in jobs if job) == AGENTS
    by_worker = Counter(job.worker_name for job in jobs if job)
    assert set(by_worker) == {w.name for w in hub.workers}, by_worker  # both workers ran some
    assert sum(by_worker.values()) == 20
