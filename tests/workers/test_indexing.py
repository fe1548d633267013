from collections.abc import Callable
from datetime import UTC, datetime

import numpy as np
import pytest
from rq.registry import FinishedJobRegistry
from rq.serializers import JSONSerializer

from hub.models import Kind, Memory, Scope, Tier, memory_id_for
from hub.redis_publisher import RedisPublisher
from hub.services import Services
from hub.store.base import MemoryPoint
from hub.store.indexing import INDEX_JOB
from workers.worker import run_worker

FILLER = 8_000  # enough for the engine to build an HNSW graph


def fill(services: Services, count: int) -> None:
    """`count` memories written straight to the store, as a hub holds them before it indexes."""
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((count, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    now = datetime.now(UTC)
    for start in range(0, count, 1_000):
        services.store.upsert(
            [
                MemoryPoint(
                    Memory(
                        id=memory_id_for(f"filler-{i}"),
                        event_id=f"filler-{i}",
                        text=f"filler {i}",
                        agent="filler",
                        kind=Kind.fact,
                        scope=Scope.global_,
                        occurred_at=now,
                        confidence="medium",
                        tier=Tier.episodic,
                        created_at=now,
                        last_verified=now,
                    ),
                    vectors[i].tolist(),
                    services.sparse.document(f"filler {i}"),
                )
                for i in range(start, min(start + 1_000, count))
            ]
        )


@pytest.mark.slow
def test_a_worker_indexes_the_store_once_enough_memories_wait(make_services: Callable[..., Services]) -> None:
    services = make_services(store_index_threshold=FILLER)
    fill(services, FILLER)
    s = services.settings
    agent = RedisPublisher(services.redis, agent="wa", prefix=s.redis_prefix, queue_name=s.queue_name)
    swimming = agent.publish("Noa's swimming moved to Thursdays at 17:00")
    agent.publish("The boiler was serviced in March by Shemesh Plus")
    assert services.store.unindexed_count() == FILLER  # asked for by a worker that stores, not before

    run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")

    assert services.store.unindexed_count() == 0
    finished = FinishedJobRegistry(queue=services.background_queue, serializer=JSONSerializer)
    jobs = [
        j for j in finished.get_job_ids() if services.background_queue.fetch_job(j).func_name == INDEX_JOB
    ]
    assert len(jobs) == 1
    result = services.background_queue.fetch_job(jobs[0]).return_value()
    assert result["unindexed_before"] == FILLER + 2 and result["unindexed_after"] == 0
    assert not services.redis.exists(services.keys.index_scheduled)  # the next one may be asked for
    # Indexed, the new memories are found as before.
    assert services.retriever.search("When is Noa's swimming?", limit=1)[0].memory.id == memory_id_for(
        swimming
    )


def test_below_the_threshold_nothing_is_indexed(make_services: Callable[..., Services]) -> None:
    services = make_services(store_index_threshold=3)
    s = services.settings
    agent = RedisPublisher(services.redis, agent="wa", prefix=s.redis_prefix, queue_name=s.queue_name)
    agent.publish("Noa's swimming moved to Thursdays at 17:00")
    agent.publish("The boiler was serviced in March by Shemesh Plus")

    run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")

    assert services.store.count() == services.store.unindexed_count() == 2
    finished = FinishedJobRegistry(queue=services.background_queue, serializer=JSONSerializer)
    assert all(services.background_queue.fetch_job(j).func_name != INDEX_JOB for j in finished.get_job_ids())


def test_a_mark_left_by_a_process_killed_while_indexing_does_not_hold_off_the_next(
    make_services: Callable[..., Services],
) -> None:
    first = make_services(store_index_threshold=2)
    # What a process killed while it indexed leaves behind: the mark that an indexing is under way.
    first.redis.set(first.keys.index_scheduled, b"1", ex=3600)
    first.close()

    services = make_services(store_index_threshold=2)  # the next process to own the store
    s = services.settings
    agent = RedisPublisher(services.redis, agent="wa", prefix=s.redis_prefix, queue_name=s.queue_name)
    agent.publish("Noa's swimming moved to Thursdays at 17:00")
    agent.publish("The boiler was serviced in March by Shemesh Plus")

    run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")

    finished = FinishedJobRegistry(queue=services.background_queue, serializer=JSONSerializer)
    jobs = [services.background_queue.fetch_job(j) for j in finished.get_job_ids()]
    assert [j.func_name for j in jobs if j.func_name == INDEX_JOB] == [INDEX_JOB]
