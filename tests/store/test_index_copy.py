"""Indexing the embedded store on a copy in a child process, while it serves (`hub.store.index_copy`)."""

import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from hub.store.base import MemoryFilter, MemoryPoint, SearchMode, SearchQuery, SparseVec
from hub.store.edge import EdgeStore
from hub.store.index_copy import READY, copy_of, mark_ready, swapped
from tests.helpers import alive, stop
from tests.store.conftest import make_memory

FILLER = 8_000  # enough for the engine to build an HNSW graph


def random_points(start: int, stop_at: int, seed: int = 7) -> list[MemoryPoint]:
    rng = np.random.default_rng(seed + start)
    vectors = rng.standard_normal((stop_at - start, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return [
        MemoryPoint(make_memory(f"m-{i}", f"memory number {i}"), vector.tolist(), SparseVec([i], [1.0]))
        for i, vector in zip(range(start, stop_at), vectors, strict=True)
    ]


def fill(store: EdgeStore, count: int) -> None:
    for start in range(0, count, 1_000):
        store.upsert(random_points(start, min(start + 1_000, count)))


def nearest(vector: list[float]) -> SearchQuery:
    return SearchQuery(
        dense=vector,
        sparse=SparseVec([], []),
        filter=MemoryFilter(now=datetime.now(UTC)),
        mode=SearchMode.dense,
    )


def wait_for(condition: Callable[[], object], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.mark.slow
def test_searches_and_writes_go_on_while_a_copy_is_indexed(tmp_path: Path) -> None:
    store = EdgeStore(tmp_path / "memories")
    try:
        fill(store, FILLER)
        assert store.unindexed_count() == FILLER
        done: list[bool] = []
        indexing = threading.Thread(target=lambda: done.append(store.optimize()))
        indexing.start()
        wait_for(lambda: store._builder is not None)
        builder = store._builder
        assert builder is not None
        assert store.optimize() is False  # one at a time: a second call would share the copy

        # While the child indexes the copy: writes, a delete and a patch, and searches that see them.
        late = random_points(FILLER, FILLER + 50, seed=99)
        store.upsert(late)
        store.delete([late[0].memory.id])
        store.update(late[1].memory.id, {"text": "patched while indexing"})
        asked = time.perf_counter()
        hits = store.search(nearest(late[2].dense))
        answered = time.perf_counter() - asked
        assert builder.poll() is None, "the build ended before the searches; nothing was measured"
        assert hits[0].memory.id == late[2].memory.id
        assert answered < 1.0  # an in-process optimize would hold this thread for the whole build

        indexing.join(120)
        assert done == [True]
        assert not copy_of(store.path).exists() and not swapped(store.path).exists()
        assert store.count() == FILLER + 49
        assert store.unindexed_count() == 49  # the copy's graph holds what it was given; the rest wait
        assert store.get([late[0].memory.id]) == []
        assert [m.text for m in store.get([late[1].memory.id])] == ["patched while indexing"]
        assert store.search(nearest(late[2].dense))[0].memory.id == late[2].memory.id
    finally:
        store.close()
    reopened = EdgeStore(tmp_path / "memories")
    try:
        assert reopened.count() == FILLER + 49 and reopened.unindexed_count() == 49
    finally:
        reopened.close()


def test_searches_go_on_while_the_writes_made_meanwhile_are_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = EdgeStore(tmp_path / "memories")
    try:
        fill(store, 1_000)
        vector = random_points(0, 1)[0].dense
        answered: list[int] = []

        def search_from_another_thread(copy: Path) -> None:
            # Called once the copy is built and the writes replayed onto it, before the swap: the
            # store's write lock is held, and a search must not wait for it.
            asker = threading.Thread(target=lambda: answered.append(len(store.search(nearest(vector)))))
            asker.start()
            asker.join(5)
            assert not asker.is_alive(), "a search waited for the replay"
            mark_ready(copy)

        monkeypatch.setattr("hub.store.edge.index_copy.mark_ready", search_from_another_thread)
        outcome: list[object] = []

        def index() -> None:
            try:
                outcome.append(store.optimize())
            except AssertionError as exc:
                outcome.append(exc)

        indexing = threading.Thread(target=index)
        indexing.start()
        wait_for(lambda: store._builder is not None)
        late = random_points(1_000, 1_010, seed=99)
        store.upsert(late)  # made during the build: replayed onto the copy
        indexing.join(120)

        assert outcome == [True]
        assert answered == [10]
        assert store.count() == 1_010
        assert store.search(nearest(late[3].dense))[0].memory.id == late[3].memory.id
    finally:
        store.close()


def test_a_failed_build_leaves_the_store_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = EdgeStore(tmp_path / "memories")
    try:
        fill(store, 100)
        # The child gets a size the shard was not made with, so loading the copy fails.
        monkeypatch.setattr(store, "dimensions", 12)
        with pytest.raises(RuntimeError, match="indexing a copy of the store in .* failed"):
            store.optimize()
        monkeypatch.undo()
        assert not copy_of(store.path).exists()
        assert store.count() == store.unindexed_count() == 100
        store.upsert(random_points(100, 101))
        assert store.count() == 101
    finally:
        store.close()


def _shard(path: Path, count: int) -> None:
    store = EdgeStore(path)
    try:
        fill(store, count)
    finally:
        store.close()


@pytest.mark.parametrize(
    ("moved_aside", "ready", "expected"),
    [
        (False, False, 20),  # killed while the copy was built: the original stays
        (False, True, 20),  # killed after the replay, before the swap: the original is whole too
        (True, True, 30),  # killed between the two renames: the ready copy takes the place
        (True, False, 20),  # an original moved aside with no ready copy is put back
    ],
)
def test_a_swap_cut_short_leaves_one_whole_shard(
    tmp_path: Path, moved_aside: bool, ready: bool, expected: int
) -> None:
    path = tmp_path / "memories"
    _shard(path, 20)
    _shard(copy_of(path), 30)
    if ready:
        (copy_of(path) / READY).touch()
    if moved_aside:
        path.rename(swapped(path))
    store = EdgeStore(path)
    try:
        assert store.count() == expected
        assert not copy_of(path).exists() and not swapped(path).exists()
    finally:
        store.close()


def test_an_original_left_after_the_swap_is_deleted(tmp_path: Path) -> None:
    path = tmp_path / "memories"
    _shard(path, 30)
    _shard(swapped(path), 20)
    store = EdgeStore(path)
    try:
        assert store.count() == 30 and not swapped(path).exists()
    finally:
        store.close()


OWNER = textwrap.dedent(
    """
    import sys, threading, time
    from pathlib import Path
    from hub.store.edge import EdgeStore
    from tests.store.test_index_copy import FILLER, fill, random_points

    store = EdgeStore(Path(sys.argv[1]), flush_interval=0.05)
    fill(store, FILLER)
    threading.Thread(target=store.optimize, daemon=True).start()
    while store._builder is None:
        time.sleep(0.01)
    store.upsert(random_points(FILLER, FILLER + 20, seed=99))
    store.flush()
    print("written", store._builder.pid, flush=True)
    time.sleep(600)
    """
)


@pytest.mark.slow
def test_a_hub_killed_while_indexing_loses_nothing_and_leaves_no_builder(tmp_path: Path) -> None:
    path = tmp_path / "memories"
    log = tmp_path / "owner.log"
    with log.open("w") as out:
        owner = subprocess.Popen([sys.executable, "-c", OWNER, str(path)], stdout=subprocess.PIPE, stderr=out)
    try:
        assert owner.stdout is not None
        line = owner.stdout.readline().decode()
        assert line.startswith("written"), log.read_text()[-2000:]
        builder = int(line.split()[1])
        assert copy_of(path).exists()
        owner.send_signal(signal.SIGKILL)
        owner.wait(30)
        wait_for(lambda: not alive(builder), timeout=10)  # the child died with it
    finally:
        stop(owner, log=log)
    store = EdgeStore(path)
    try:
        assert store.count() == FILLER + 20  # the writes made during the build, flushed, are there
        assert not copy_of(path).exists()
    finally:
        store.close()
