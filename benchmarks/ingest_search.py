"""Ingest and search benchmark: ratios against the raw model, measured in one run.

    python -m benchmarks.ingest_search [--quick]

1. Ingest at a backlog, in rounds: N events published to Redis, then one RQ worker drains them
   (embed, write to the embedded store, acknowledge), against raw batched `model.encode` of the same
   texts measured just before and just after (their mean is the baseline: the machine's speed
   drifts, so each round is bracketed and the median round reported); then the same worker's
   review of what it stored (reinforcement, conflicts, promotion scoring), at lower priority.
2. Publish-to-searchable latency for single events on an idle hub (one worker thread waiting; the
   next event is published once the review of the last one is done).
3. Search latency (query embedding + hybrid query with a scope filter) at 10k and 100k memories,
   against the time to encode one query: in a row (the median of 200), just before and just after
   the searches; and beside each search (the search, then its query encoded alone), since the
   machine's speed drifts within a minute.
   The store is as a hub holds it at its slowest: indexed by a worker when `store_index_threshold`
   memories (10k) waited, and that many less one written since, searched by brute force (so 10k
   memories are all unindexed); then, at the largest size, again once indexed.

Why the store searches with ACORN on (`hub.store.edge.SEARCH_PARAMS`), measured 2026-12-01 at 100k
memories, 9,999 unindexed, dense, limit 40, against exact search: the scope filter of this benchmark
(34% pass) 5.65 ms p50 and recall@10 0.955 with it, 2.88-3.63 ms and 0.807 without
(max_selectivity 0.1, or off); the narrowed one (17%) 8.06 ms and 0.938 against 3.31 ms and 0.465.
Indexed, the same: 0.955 against 0.770. A filter passing 8% gave recall@10 0.24 without, 0.99 with.

Why the embedded store's settings are what they are (moved here from hub/store/edge.py's comments):
- SEARCH_THREADS 1: at 100k memories (two segments, 9,999 unindexed), each query right after an
  encode, the two settings alternating, 600 queries a setting: hybrid with the scope filter p95
  9.95 -> 7.43 ms and 9.28 -> 7.57 ms in two runs, narrowed 10.37 -> 9.10 ms; p50 5.57 -> 5.36,
  5.54 -> 5.54 and 6.35 -> 6.33 ms. The review's searches cost the same (dense, limit 6: p50 1.69
  against 1.61 ms).
- Segments uncapped: grown 10k at a time to 100k, indexed at each step, then searched with 9,999
  waiting (one run, 200 searches each): uncapped, indexing stops of 2.8 s growing to 20.6 s, search
  p95 / encode-one 2.16; capped at 30,000 KB (10k memories a segment), 2.7 s each but 10 segments and
  3.10; at 50,000 KB, up to 10.7 s and 2.59; at 75,000 KB, up to 12.3 s and 2.73. Search latency is
  the end-to-end bound (2.5); a stop is a worker's, once per 10k memories.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from redis import Redis

from benchmarks.common import PEOPLE, THINGS, benchmark_parser, benchmark_redis, chat_memories
from hub.conflicts import ledger
from hub.embedded import EmbeddedHub
from hub.embedding import Embedder
from hub.keys import Keys
from hub.models import Kind, Memory, Scope, State, Tier, utcnow
from hub.queue import jobs_pending
from hub.redis_publisher import RedisPublisher, build_event
from hub.services import Services, build_services
from hub.settings import Settings
from hub.sparse import SparseEncoder
from hub.status import read_status
from hub.store.base import MemoryPoint
from hub.store.edge import EdgeStore
from workers.worker import run_worker


def percentile(samples: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(samples), q))


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


@dataclass
class IngestRound:
    raw_before: float  # sentences/s, raw batched encode just before the ingest
    raw_after: float  # ... and just after
    stored: float  # events/s until the last one was stored (searchable)
    reviewed: float  # events/s until the worker had also reviewed and scored them all

    @property
    def raw(self) -> float:
        """The raw rate bracketing the ingest: the mean of the measurements just before and after it."""
        return (self.raw_before + self.raw_after) / 2

    @property
    def ratio(self) -> float:
        return self.stored / self.raw

    @property
    def reviewed_ratio(self) -> float:
        return self.reviewed / self.raw


def bench_ingest(
    settings: Settings, redis: Redis, embedder: Embedder, n: int, rounds: int
) -> list[IngestRound]:
    """Rounds of: raw batched encode of n texts, one RQ worker ingesting them as events, raw encode again.

    Each round has texts of its own, so that the review sees new memories, not restatements.
    """
    embedder.encode(chat_memories(64))  # warm-up
    results = []
    services = build_services(settings, redis, embedder=embedder)
    try:
        for number in range(rounds):
            texts = chat_memories(n, seed=100 + number)
            before = n / timed(lambda t=texts: embedder.encode(t, batch_size=settings.encode_batch_size))
            stored, everything = ingest_backlog(services, texts, tag=f"round{number}")
            after = n / timed(lambda t=texts: embedder.encode(t, batch_size=settings.encode_batch_size))
            results.append(IngestRound(before, after, n / stored, n / everything))
    finally:
        services.close()
    return results


def ingest_backlog(services: Services, texts: list[str], *, tag: str) -> tuple[float, float]:
    """Publish `texts` as events, then run one worker until idle: (seconds to store, seconds to finish)."""
    redis, settings = services.redis, services.settings
    publisher = RedisPublisher(
        redis, agent="bench", channel="cli", prefix=settings.redis_prefix, queue_name=settings.queue_name
    )
    events = [build_event(t, agent="bench", channel="cli", id=f"{tag}-{i}") for i, t in enumerate(texts)]
    ids = publisher.publish_many(events)
    drained = threading.Event()
    stored_at: list[float] = []

    def watch() -> None:  # acknowledged entries leave the stream: an empty stream means all are stored
        while redis.xlen(services.keys.stream) and not drained.is_set():
            time.sleep(0.01)
        stored_at.append(time.perf_counter())

    watcher = threading.Thread(target=watch, daemon=True)
    start = time.perf_counter()
    watcher.start()
    run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")
    finished = time.perf_counter()
    drained.set()
    watcher.join()
    statuses = [read_status(redis, services.keys, i) for i in ids]
    done = sum(1 for s in statuses if s and s.status == "stored" and s.reviewed)
    assert done == len(texts), f"only {done} of {len(texts)} stored and reviewed"
    return stored_at[0] - start, finished - start


def bench_publish_to_searchable(services: Services, count: int) -> list[float]:
    hub = EmbeddedHub(services=services, redis_server=None)
    hub.start_workers(1, sweep_interval=3600)
    s = services.settings
    publisher = RedisPublisher(services.redis, agent="bench", prefix=s.redis_prefix, queue_name=s.queue_name)
    latencies = []
    try:
        for text in chat_memories(count, seed=11):
            start = time.perf_counter()
            event_id = publisher.publish(text)
            while True:
                status = read_status(services.redis, services.keys, event_id)
                if status and status.status == "stored":
                    break
                time.sleep(0.0005)
            latencies.append(time.perf_counter() - start)
            # An idle hub: the review and scoring that follow this event finish before the next one.
            while not (status and status.reviewed) or jobs_pending(services.queues):
                time.sleep(0.005)
                status = read_status(services.redis, services.keys, event_id)
            time.sleep(0.05)
    finally:
        hub.stop_workers(timeout=1)
    return latencies


def filler_pool(embedder: Embedder) -> tuple[list[str], np.ndarray]:
    """The sentences `fill_store` varies, with their real embeddings (encoded once per run)."""
    pool = chat_memories(2000, seed=3)
    return pool, embedder.encode(pool)


def fill_store(
    store: EdgeStore, filler: tuple[list[str], np.ndarray], sparse: SparseEncoder, total: int
) -> None:
    """Up to `total` memories: the pool's sentences and embeddings, jittered to distinct points."""
    pool, base = filler
    now = utcnow()
    batch: list[MemoryPoint] = []
    done = store.count()
    rng = np.random.default_rng(5 + done)
    for i in range(done, total):
        j = i % len(pool)
        vector = base[j] + rng.normal(0, 0.02, size=base.shape[1]).astype(np.float32)
        vector /= np.linalg.norm(vector)
        scope = [Scope.global_, Scope.project, Scope.person][i % 3]
        text = f"{pool[j]} (variant {i})"
        memory = Memory(
            id=f"00000000-0000-4000-8000-{i:012d}",
            event_id=f"bench-{i}",
            text=text,
            agent=f"agent-{i % 4}",
            kind="fact",
            scope=scope,
            project=f"project-{i % 50}" if scope is Scope.project else None,
            person=PEOPLE[i % len(PEOPLE)] if scope is Scope.person else None,
            occurred_at=now,
            confidence="medium",
            state=State.active,
            tier=Tier.episodic,
            created_at=now,
            last_verified=now,
        )
        batch.append(MemoryPoint(memory=memory, dense=vector.tolist(), sparse=sparse.document(text)))
        if len(batch) == 2000:
            store.upsert(batch)
            batch = []
    if batch:
        store.upsert(batch)


def bench_search(
    store: EdgeStore, embedder: Embedder, sparse: SparseEncoder, redis: Redis, queries: int, **narrowing: Any
) -> tuple[list[float], list[float]]:
    """Seconds each search took, and seconds the model took to encode its query alone just after it:
    the machine's speed drifts within a minute, so the baseline is measured beside each search."""
    from hub.search import Retriever

    # As the hub builds it: open conflicts are looked up in Redis for the first hits.
    newer = partial(ledger.proposed_over, redis, Keys(Settings().redis_prefix))
    retriever = Retriever(store=store, embedder=embedder, sparse=sparse, proposed_in_conflict=newer)
    rng = random.Random(1)
    latencies, encodes = [], []
    for q in range(queries):
        person = PEOPLE[q % len(PEOPLE)]
        text = f"where is {person}'s {rng.choice(THINGS)} and what should happen with it"
        start = time.perf_counter()
        hits = retriever.search(text, person=person, project=f"project-{q % 50}", limit=10, **narrowing)
        latencies.append(time.perf_counter() - start)
        assert hits, "search found nothing"
        encodes.append(timed(lambda t=text: embedder.encode_one(t)))
    return latencies, encodes


def main() -> None:
    parser = benchmark_parser(__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    args = parser.parse_args()
    quick = (512, 1, 20, [2_000], 50)
    full = (2_048, 5, 100, [10_000, 100_000], 200)
    ingest_n, rounds, singles, sizes, queries = quick if args.quick else full

    embedder = Embedder(expected_sha256=Settings().model_sha256)
    sparse = SparseEncoder()
    with benchmark_redis(args.redis_url) as (redis, redis_url), tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp) / "ingest", redis_url=redis_url)
        results = bench_ingest(settings, redis, embedder, ingest_n, rounds)
        for number, r in enumerate(results, 1):
            print(
                f"ingest round {number}, backlog of {ingest_n}: stored {r.stored:.0f} events/s, raw batched encode "
                f"{r.raw_before:.0f} before / {r.raw_after:.0f} after: ratio {r.ratio:.2f}; with the review "
                f"that follows (reinforcement, conflicts, promotion scoring) {r.reviewed:.0f} events/s, "
                f"ratio {r.reviewed_ratio:.2f}"
            )
        print(
            f"ingest at a backlog: median ratio to raw encode {statistics.median(r.ratio for r in results):.2f} "
            f"(stored and searchable); {statistics.median(r.reviewed_ratio for r in results):.2f} including the review"
        )

        redis.flushdb()
        services = build_services(
            Settings(data_dir=Path(tmp) / "idle", redis_url=redis_url), redis, embedder=embedder
        )
        lat = bench_publish_to_searchable(services, singles)
        print(
            f"publish-to-searchable, single events on an idle hub (n={singles}): "
            f"p50 {percentile(lat, 50) * 1000:.1f} ms, p95 {percentile(lat, 95) * 1000:.1f} ms"
        )
        services.close()

        question = "where is Netanel's old bicycle and what should happen with it"

        def encode_one_seconds() -> float:
            return statistics.median(timed(lambda: embedder.encode_one(question)) for _ in range(200))

        def measure(size: int, state: str) -> None:
            before = encode_one_seconds()
            lat, encodes = bench_search(store, embedder, sparse, redis, queries)
            narrowing = {
                "agents": ["agent-1", "agent-2"],
                "exclude_private": True,
                "occurred_after": utcnow() - timedelta(days=30),
                "kinds": [Kind.fact],
            }
            narrowed, more = bench_search(store, embedder, sparse, redis, queries, **narrowing)
            after = encode_one_seconds()
            around, beside = (before + after) / 2, statistics.median(encodes + more)
            print(
                f"encode one query at {size} ({state}): p50 {before * 1000:.2f} ms in a row before the "
                f"searches, {after * 1000:.2f} ms after; {beside * 1000:.2f} ms beside each search"
            )
            # The same searches narrowed as a group chat asking about two agents' recent facts would.
            for filters, found in (
                ("scope filter", lat),
                ("scope + agents, kind, date and group-chat filters", narrowed),
            ):
                p95 = percentile(found, 95)
                print(
                    f"search at {size} memories, {state} ({filters}, hybrid): p50 {percentile(found, 50) * 1000:.2f} ms, "
                    f"p95 {p95 * 1000:.2f} ms; p95 / encode-one {p95 / around:.2f} (in a row), {p95 / beside:.2f} (beside)"
                )

        # The store as a hub holds it at its slowest: a worker indexed it when `threshold` memories
        # waited (hub.store.indexing), and threshold - 1 have come since; a smaller one never indexed.
        threshold = Settings().store_index_threshold
        filler = filler_pool(embedder)
        store = EdgeStore(Path(tmp) / "search")
        try:
            for size in sizes:
                filled = timed(lambda s=size: fill_store(store, filler, sparse, s - threshold + 1))
                indexed = timed(store.optimize) if size >= threshold else 0.0
                filled += timed(lambda s=size: fill_store(store, filler, sparse, s))
                waiting = store.unindexed_count()
                print(
                    f"{size} memories filled in {filled:.0f} s, indexed in {indexed:.0f} s, "
                    f"{waiting} of them waiting to be indexed"
                )
                measure(size, f"{waiting} waiting")
            indexed = timed(store.optimize)
            waiting = store.unindexed_count()
            print(f"{sizes[-1]} memories: the rest indexed in {indexed:.0f} s, {waiting} waiting")
            measure(sizes[-1], f"indexed, {waiting} waiting")
        finally:
            store.close()


if __name__ == "__main__":
    main()
