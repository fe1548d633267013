from collections.abc import Callable
from pathlib import Path

from redis import Redis

from hub.keys import Keys
from hub.models import Memory
from hub.queue import make_queue
from hub.store.base import MemoryPoint, MemoryStore
from hub.store.edge import EdgeStore
from hub.store.indexing import INDEX_JOB, request_indexing
from hub.store.server import ServerStore
from tests.store.conftest import make_memory

MakePoint = Callable[[Memory], MemoryPoint]
TEXTS = ("Noa's swimming is on Thursdays", "The boiler was serviced in March", "Itai's gan closes at 16:00")


def fill(store: MemoryStore, make_point: MakePoint) -> None:
    store.upsert([make_point(make_memory(f"m{i}", text)) for i, text in enumerate(TEXTS)])


def test_indexing_is_requested_once_enough_memories_wait(
    tmp_path: Path, make_point: MakePoint, redis: Redis
) -> None:
    store = EdgeStore(tmp_path / "shard")
    keys, queue = Keys("test-index"), make_queue(redis, "test-index")
    try:
        fill(store, make_point)
        assert store.unindexed_count() == len(TEXTS)  # searched by brute force until indexed

        assert request_indexing(redis, queue, keys, store, threshold=len(TEXTS) + 1) is None
        assert queue.count == 0
        job = request_indexing(redis, queue, keys, store, threshold=len(TEXTS))
        assert job is not None and job.func_name == INDEX_JOB and queue.job_ids == [job.id]
        # One at a time: while it waits (or runs), asking again enqueues nothing.
        assert request_indexing(redis, queue, keys, store, threshold=1) is None
        assert queue.job_ids == [job.id]
    finally:
        store.close()


def test_a_qdrant_server_is_never_asked_to_index(make_point: MakePoint, redis: Redis) -> None:
    store = ServerStore(location=":memory:")
    try:
        fill(store, make_point)
        assert store.unindexed_count() == 0
        assert (
            request_indexing(redis, make_queue(redis, "test-index"), Keys("test-index"), store, threshold=1)
            is None
        )
    finally:
        store.close()
