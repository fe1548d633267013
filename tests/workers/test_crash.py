"""kill -9 a worker in the middle of a batch, start it again: every acknowledged event stored once."""

import time
from pathlib import Path

import pytest
from redis import Redis

from benchmarks.common import chat_memories
from clients import RedisPublisher
from hub.keys import Keys
from hub.models import Memory, State, memory_id_for, utcnow
from hub.store.base import MemoryFilter, scroll_all
from hub.store.edge import EdgeStore
from tests.helpers import memhub_process, stop

EVENTS = 1500


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


@pytest.mark.slow
def test_kill_9_mid_batch_loses_and_duplicates_nothing(tmp_path: Path, redis: Redis, redis_url: str) -> None:
    keys = Keys("memhub")
    env = {
        "MEMHUB_REDIS_URL": redis_url,
        "MEMHUB_DATA_DIR": str(tmp_path / "data"),
        "MEMHUB_CLAIM_IDLE_MS": "1500",
        "MEMHUB_INGEST_BATCH_SIZE": "64",
    }
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
        assert stop(worker) == 0, log.read_text()[-3000:]

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
