"""The embedded store at a million memories: fill, index, memory, and search over HTTP.

    python -m benchmarks.scale [--memories 1000000] [--searches 200]

1. A data directory is filled straight into its store (not through the stream: encoding a million
   texts would take this machine over an hour): 4,000 distinct chat memories are encoded by the
   model once, and each stored memory is one of them, numbered, with its vector moved by a little
   noise so that no two are equal; 10 projects. Fill time, and this process's resident memory.
2. The store is indexed (`optimize`, what a worker does once `MEMHUB_STORE_INDEX_THRESHOLD` wait):
   index time, resident memory, and the peak of the child process that builds the index on a copy.
3. `memhub up` is started on the directory: start time, scope-filtered searches over HTTP (p50, p95)
   against one query encoded by the raw model in this process, and the hub's resident memory.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from benchmarks.common import benchmark_parser, chat_memories, memory_mib, start_hub
from benchmarks.http_path import PROJECTS, percentile, raw_figures, searches
from hub.embedding import Embedder
from hub.models import EventCreate, Memory, Scope
from hub.settings import Settings, get_settings
from hub.sparse import SparseEncoder
from hub.store import open_store
from hub.store.base import MemoryPoint, MemoryStore
from memhub_client import Memhub

DISTINCT = 4_000
CHUNK = 10_000


def points(
    texts: list[str], vectors: np.ndarray, start: int, stop: int, sparse: SparseEncoder
) -> list[MemoryPoint]:
    rng = np.random.default_rng(start)
    at = datetime.now(UTC)
    out = []
    picked = vectors[np.arange(start, stop) % len(texts)]
    moved = picked + rng.normal(0.0, 0.02, picked.shape).astype(np.float32)
    moved /= np.linalg.norm(moved, axis=1, keepdims=True)
    for i, dense in zip(range(start, stop), moved, strict=True):
        text = f"{texts[i % len(texts)]} (note {i})"
        event = EventCreate(
            text=text, agent=f"agent-{i % 10}", scope=Scope.project, project=f"project-{i % PROJECTS}"
        )
        memory = Memory.from_event(event, event_id=f"scale-{i}", received_at=at)
        out.append(MemoryPoint(memory=memory, dense=dense.tolist(), sparse=sparse.document(text)))
    return out


def fill(store: MemoryStore, embedder: Embedder, count: int, *, progress: bool = False) -> float:
    """Put `count` memories straight into `store` (step 1 above) and flush; the seconds it took to
    store them, the model's encoding of the DISTINCT texts left out."""
    texts = chat_memories(DISTINCT)
    vectors = np.asarray(
        embedder.encode(texts, batch_size=get_settings().encode_batch_size), dtype=np.float32
    )
    sparse = SparseEncoder()
    store.record_model(embedder.identity)
    started = time.monotonic()
    for at in range(0, count, CHUNK):
        store.upsert(points(texts, vectors, at, min(at + CHUNK, count), sparse))
        if progress and (at // CHUNK) % 10 == 9:
            print(f"  filled {at + CHUNK:,} in {time.monotonic() - started:.0f} s", flush=True)
    store.flush()
    return time.monotonic() - started


@contextmanager
def children_peak(every: float = 0.5) -> Iterator[dict[int, float]]:
    """The peak resident memory (MiB) of each process this one starts meanwhile, by pid; complete once
    the block ends."""
    peaks: dict[int, float] = {}
    done = threading.Event()

    def watch() -> None:
        while not done.wait(every):
            for listing in Path(f"/proc/{os.getpid()}/task").glob("*/children"):
                for pid in map(int, listing.read_text().split()):
                    with suppress(OSError, KeyError):  # it ended between the listing and the read
                        peaks[pid] = memory_mib(pid)[1]

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield peaks
    finally:
        done.set()
        watcher.join()


def main() -> None:
    parser = benchmark_parser(__doc__)
    parser.add_argument("--memories", type=int, default=1_000_000)
    parser.add_argument("--searches", type=int, default=200)
    args = parser.parse_args()
    embedder = Embedder(expected_sha256=get_settings().model_sha256)

    with tempfile.TemporaryDirectory(prefix="memhub-scale-") as tmp:
        data_dir = Path(tmp) / "data"
        store = open_store(Settings(data_dir=data_dir))
        filled = fill(store, embedder, args.memories, progress=True)
        filled_rss = memory_mib(os.getpid())[0]
        print(
            f"filled {store.count():,} memories in {filled:.0f} s; resident {filled_rss:,.0f} MiB", flush=True
        )
        started = time.monotonic()
        # The index is built in a child process, on a copy of the store: its peak is memory the machine
        # needs beside the hub's own.
        with children_peak() as peaks:
            store.optimize()
        indexed = time.monotonic() - started
        indexed_rss = memory_mib(os.getpid())[0]
        builder_peak = max(peaks.values(), default=0.0)
        print(
            f"indexed in {indexed:.0f} s; resident {indexed_rss:,.0f} MiB, the builder's peak {builder_peak:,.0f} MiB",
            flush=True,
        )
        store.close()

        encode_one = raw_figures(embedder, chat_memories(DISTINCT)[:500])[1]

        started = time.monotonic()
        process, url = start_hub(data_dir)
        up = time.monotonic() - started
        try:
            with Memhub(url, agent="agent-0", timeout=120.0) as hub:
                searches(hub, 20)  # the API's first requests load what they need
                took = searches(hub, args.searches)
            hub_rss = memory_mib(process.pid)[0]
        finally:
            process.terminate()
            process.wait(120)

    p50, p95 = percentile(took, 50), percentile(took, 95)
    print(f"\n{args.memories:,} memories on the embedded store")
    print(f"  fill (straight into the store)   {filled:8.0f} s   {args.memories / filled:,.0f} memories/s")
    print(f"  index (optimize)                 {indexed:8.0f} s")
    print(f"  resident, filling process        {filled_rss:8,.0f} MiB filled, {indexed_rss:,.0f} MiB indexed")
    print(f"  peak of the indexing process     {builder_peak:8,.0f} MiB, beside the filling process")
    print(f"  memhub up ready in               {up:8.1f} s; resident {hub_rss:,.0f} MiB after the searches")
    print(f"  search p50 / p95 over HTTP       {p50 * 1000:8.1f} / {p95 * 1000:.1f} ms")
    print(f"  one query encode (raw model)     {encode_one * 1000:8.1f} ms; p95 ratio {p95 / encode_one:.2f}")


if __name__ == "__main__":
    main()
