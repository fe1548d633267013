"""kill -9 a worker mid-batch or mid-review, start it again: every acknowledged event stored once, and reviewed."""

import time
from pathlib import Path

import pytest
from redis import Redis
from rq.job import Job, JobStatus
from rq.registry import FailedJobRegistry, StartedJobRegistry
from rq.serializers import JSONSerializer

from benchmarks.common import chat_memories
from hub.conflicts.jobs import REVIEW_JOB
from hub.keys import Keys
from hub.models import Memory, State, memory_id_for, utcnow
from hub.queue import make_queue
from hub.redis_publisher import RedisPublisher, build_event
from hub.status import read_statuses
from hub.store.base import MemoryFilter, scroll_all
from hub.store.edge import EdgeStore
from tests.helpers import memhub_process, stop

EVENTS = 1500


def worker_env(tmp_path: Path, redis_url: str, **extra: str) -> dict[str, str]:
    """A `memhub worker` on this Redis and data folder, taking small batches."""
    return {
        "MEMHUB_REDIS_URL": redis_url,
        "MEMHUB_DATA_DIR": str(tmp_path / "data"),
        "MEMHUB_INGEST_BATCH_SIZE": "64",
        **extra,
    }


def stored(redis: Redis, keys: Keys, ids: list[str]) -> int:
    pipe = redis.pipeline()
    for event_id in ids:
        pipe.hget(keys.status(event_id), "status")
    return sum(1 for s in pipe.execute() if s == b"stored")


def all_memories(store: EdgeStore) -> list[Memory]:
    return list(scroll_all(store, MemoryFilter(now=utcnow(), all_scopes=True, states=frozenset(State))))


def wait_for(predicate, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


# Each phase waits up to 300 s of its own: the run as a whole may take longer than the default cutoff.
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_kill_9_mid_batch_loses_and_duplicates_nothing(tmp_path: Path, redis: Redis, redis_url: str) -> None:
    keys = Keys("memhub")
    env = worker_env(tmp_path, redis_url, MEMHUB_CLAIM_IDLE_MS="1500")
    log = tmp_path / "worker.log"
    agents = [RedisPublisher(redis, agent=a, channel=c) for a, c in (("wa", "whatsapp"), ("tg", "telegram"))]
    ids: list[str] = []
    for i, text in enumerate(chat_memories(EVENTS)):
        ids.append(agents[i % 2].publish(text))

    kills = 0
    for threshold in (200, 700):
        worker = memhub_process(["worker"], env, log)

        def mid_batch(t: int = threshold) -> bool:
            return stored(redis, keys, ids) >= t and redis.xpending(keys.stream, keys.group)["pending"] > 0

        wait_for(mid_batch, 300, f"{threshold} stored and a batch in flight")
        worker.kill()  # SIGKILL, mid-batch
        worker.wait()
        kills += 1
        # Taken off the stream but not acknowledged: the killed worker was inside a batch.
        assert redis.xpending(keys.stream, keys.group)["pending"] > 0
        assert stored(redis, keys, ids) < EVENTS

    worker = memhub_process(["worker"], env, log)
    try:
        wait_for(lambda: stored(redis, keys, ids) == EVENTS, 300, "every event stored")
    finally:
        assert stop(worker, log=log) == 0, log.read_text()[-3000:]

    assert kills == 2
    assert redis.xlen(keys.stream) == 0
    # Exactly once: every event is one sighting of one memory (a restatement is folded into the
    # memory it repeats, so the count of memories alone would not tell).
    store = EdgeStore(tmp_path / "data" / "store" / "memories")
    try:
        memories = all_memories(store)
        sightings = sorted(s.event_id for m in memories for s in m.sightings)
        assert sightings == sorted(ids)
        assert len({m.id for m in memories}) == len(memories)
        assert all(m.id == memory_id_for(m.event_id) for m in memories)
    finally:
        store.close()


def reviewed(redis: Redis, keys: Keys, ids: list[str]) -> int:
    return sum(1 for s in read_statuses(redis, keys, ids) if s is not None and s.reviewed)


def review_running(redis: Redis, registry: StartedJobRegistry) -> Job | None:
    jobs = Job.fetch_many(registry.get_job_ids(), connection=redis, serializer=JSONSerializer)
    return next((j for j in jobs if j is not None and j.func_name == REVIEW_JOB), None)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_kill_9_mid_review_the_review_runs_again(tmp_path: Path, redis: Redis, redis_url: str) -> None:
    keys = Keys("memhub")
    env = worker_env(tmp_path, redis_url)
    log = tmp_path / "worker.log"
    agent = RedisPublisher(redis, agent="wa", channel="whatsapp")
    ids = agent.publish_many(
        [build_event(text, agent="wa", channel="whatsapp") for text in chat_memories(400)]
    )
    background = make_queue(redis, "memhub-background")
    started = StartedJobRegistry(queue=background)

    worker = memhub_process(["worker"], env, log)
    wait_for(lambda: review_running(redis, started) is not None, 300, "a review job running")
    worker.kill()  # SIGKILL, mid-review
    worker.wait()
    job = review_running(redis, started)  # still marked running: its worker died under it
    assert job is not None
    assert reviewed(redis, keys, ids) < len(ids)

    # What the next worker's maintenance does once the dead worker's heartbeat on the job lapses
    # (job timeout + 60 s): the abandoned review goes back on its queue instead of to the failed jobs.
    started.cleanup(timestamp=time.time() + 3600)
    assert job.id not in FailedJobRegistry(queue=background).get_job_ids()
    assert job.get_status(refresh=True) is JobStatus.QUEUED

    worker = memhub_process(["worker"], env, log)
    try:
        wait_for(lambda: reviewed(redis, keys, ids) == len(ids), 300, "every event reviewed")
    finally:
        assert stop(worker, log=log) == 0, log.read_text()[-3000:]
    assert stored(redis, keys, ids) == len(ids)
