"""Ingest and search benchmark: ratios against the raw model, measured in one run.

    python -m benchmarks.ingest_search [--quick]

1. Ingest at a backlog: N events published to Redis, then one RQ worker drains them (embed, write
   to the embedded store, acknowledge), against raw batched `model.encode` of the same texts.
2. Publish-to-searchable latency for single events on an idle hub (one worker thread waiting).
3. Search latency (query embedding + hybrid query with a scope filter) at 10k and 100k memories,
   against the time to encode one query.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
from redis import Redis

from benchmarks.common import PEOPLE, THINGS, chat_memories, open_redis
from clients import RedisPublisher
from clients.events import build_event
from hub.embedded import EmbeddedHub
from hub.embedding import Embedder
from hub.models import Kind, Memory, Scope, State, Tier, utcnow
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


def bench_ingest(settings: Settings, redis: Redis, embedder: Embedder, n: int) -> dict[str, float]:
    texts = chat_memories(n)
    embedder.encode(texts[:64])  # warm-up
    raw_seconds = timed(lambda: embedder.encode(texts, batch_size=settings.ingest_batch_size))
    services = build_services(settings, redis, embedder=embedder)
    try:
        publisher = RedisPublisher(
            redis, agent="bench", channel="cli", prefix=settings.redis_prefix, queue_name=settings.queue_name
        )
        ids = publisher.publish_many([build_event(t, agent="bench", channel="cli") for t in texts])
        ingest_seconds = timed(
            lambda: run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")
        )
        stored = sum(1 for i in ids if (s := read_status(redis, services.keys, i)) and s.status == "stored")
        assert stored == n, f"only {stored} of {n} stored"
    finally:
        services.close()
    return {"raw_rate": n / raw_seconds, "ingest_rate": n / ingest_seconds}


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
            time.sleep(0.05)  # idle hub: one event at a time
    finally:
        hub.stop_workers(timeout=1)
    return latencies


def fill_store(store: EdgeStore, embedder: Embedder, sparse: SparseEncoder, total: int) -> None:
    """`total` memories: real embeddings of a pool of sentences, jittered to distinct points."""
    pool = chat_memories(2000, seed=3)
    base = embedder.encode(pool)
    rng = np.random.default_rng(5)
    now = utcnow()
    batch: list[MemoryPoint] = []
    done = store.count()
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
    store: EdgeStore, embedder: Embedder, sparse: SparseEncoder, queries: int, **narrowing: Any
) -> list[float]:
    from hub.search import Retriever

    retriever = Retriever(store=store, embedder=embedder, sparse=sparse)
    rng = random.Random(1)
    latencies = []
    for q in range(queries):
        person = PEOPLE[q % len(PEOPLE)]
        text = f"where is {person}'s {rng.choice(THINGS)} and what should happen with it"
        start = time.perf_counter()
        hits = retriever.search(text, person=person, project=f"project-{q % 50}", limit=10, **narrowing)
        latencies.append(time.perf_counter() - start)
        assert hits, "search found nothing"
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--redis-url", help="a Redis to use (it is flushed); default: an embedded one")
    args = parser.parse_args()
    quick = (512, 20, [2_000], 50)
    ingest_n, singles, sizes, queries = quick if args.quick else (4_096, 100, [10_000, 100_000], 200)

    redis, redis_url, server = open_redis(args.redis_url)
    embedder = Embedder(expected_sha256=Settings().model_sha256)
    sparse = SparseEncoder()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp) / "ingest", redis_url=redis_url)
        ingest = bench_ingest(settings, redis, embedder, ingest_n)
        print(
            f"ingest at a backlog of {ingest_n}: {ingest['ingest_rate']:.0f} events/s; raw batched encode "
            f"{ingest['raw_rate']:.0f} sentences/s; ratio {ingest['ingest_rate'] / ingest['raw_rate']:.2f}"
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
        one = [timed(lambda: embedder.encode_one(question)) for _ in range(200)]
        encode_one = statistics.median(one)
        print(f"encode one query: p50 {encode_one * 1000:.2f} ms")
        store = EdgeStore(Path(tmp) / "search")
        try:
            for size in sizes:
                fill_seconds = timed(lambda s=size: fill_store(store, embedder, sparse, s))
                optimize_seconds = timed(store.optimize)
                lat = bench_search(store, embedder, sparse, queries)
                p50, p95 = percentile(lat, 50), percentile(lat, 95)
                print(
                    f"search at {size} memories (scope filter, hybrid): p50 {p50 * 1000:.2f} ms, "
                    f"p95 {p95 * 1000:.2f} ms; p95 / encode-one {p95 / encode_one:.2f} "
                    f"(filled in {fill_seconds:.0f} s, optimized in {optimize_seconds:.0f} s)"
                )
                # The same searches narrowed as a group chat asking about two agents' recent facts would.
                narrowing = {"agents": ["agent-1", "agent-2"], "exclude_private": True,
                             "occurred_after": utcnow() - timedelta(days=30), "kinds": [Kind.fact]}  # fmt: skip
                lat = bench_search(store, embedder, sparse, queries, **narrowing)
                p95 = percentile(lat, 95)
                print(
                    f"search at {size} memories (scope + agents, kind, date and group-chat filters, hybrid): "
                    f"p50 {percentile(lat, 50) * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms; "
                    f"p95 / encode-one {p95 / encode_one:.2f}"
                )
        finally:
            store.close()
    redis.flushdb()
    if server:
        server.shutdown()


if __name__ == "__main__":
    main()
