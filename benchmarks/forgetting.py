"""What forgetting one memory costs as the hub grows: a big state against a small one, in one run.

    python -m benchmarks.forgetting [--redis-url redis://127.0.0.1:6379/10] [--quick]

Forgetting runs inside the owner's request, holding the writers' lock, so every writer waits on it.
Each state is built through the hub's own writes: memories from events embedded by the real model
into the embedded store (4 agents), conflicts recorded in the ledger between them (a tenth left open),
promotion proposals, weekly entries and use counts, and a dry-run compaction report per agent (a
report quotes the texts it would merge). Then memories that sit in conflicts are forgotten one at a
time, as the route does (under the writers' lock), and the median time is reported for each state,
with the big state's profile (where the time goes) and the one-time cost of indexing an older ledger.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import random
import statistics
import tempfile
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from redis import Redis

from benchmarks.common import benchmark_parser, benchmark_redis, chat_memories
from hub.compaction.jobs import CompactionRequest, enqueue_compaction
from hub.conflicts import ledger
from hub.conflicts.judge import Severity
from hub.conflicts.ledger import Conflict, ConflictStatus, Resolution
from hub.embedding import Embedder
from hub.forgetting import forget
from hub.locks import writing
from hub.models import Memory, Tier, utcnow
from hub.promotion import proposals, usage, weekly
from hub.promotion.score import Assessment, Decision
from hub.promotion.signals import Signal, SignalName, Strength
from hub.redis_publisher import build_event
from hub.services import Services, build_services
from hub.settings import Settings
from workers.ingest import write_memories
from workers.worker import run_worker

AGENTS = [f"agent-{i}" for i in range(4)]


@dataclass(frozen=True)
class Size:
    memories: int
    conflicts: int
    proposals: int


def build_state(services: Services, size: Size, seed: int) -> list[Memory]:
    """The hub's state at `size`: memories, conflicts, promotion state and compaction reports."""
    rng, now = random.Random(seed), utcnow()
    memories = []
    for i, text in enumerate(chat_memories(size.memories, seed=seed)):
        event = build_event(text, agent=AGENTS[i % len(AGENTS)], channel="cli", id=f"s{seed}-{i}")
        received = now - timedelta(days=90) + timedelta(seconds=i * 7_776_000 / size.memories)
        memories.append(Memory.from_event(event, event_id=f"s{seed}-{i}", received_at=received))
    for start in range(0, len(memories), 1_000):
        write_memories(services, memories[start : start + 1_000])
    services.store.flush()

    recorded = 0
    while recorded < size.conflicts:
        older, newer = sorted(rng.sample(memories, 2), key=lambda m: m.created_at)
        recorded += ledger.record(services.redis, services.keys, _conflict(older, newer, rng.random() < 0.1))
    for memory in rng.sample(memories, size.proposals):
        _promotion_state(services, memory)
    for agent in AGENTS:
        enqueue_compaction(services.queue, CompactionRequest(agent=agent, dry_run=True), reason="bench")
    run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")
    return memories


def _conflict(older: Memory, newer: Memory, still_open: bool) -> Conflict:
    """A conflict between two memories as the review records it, decided unless `still_open`."""
    at = newer.occurred_at  # found when the newer one came in
    pair = [older, newer]
    resolution = None if still_open else Resolution(keep=newer.id, by="owner", at=at)
    return Conflict(
        id=ledger.conflict_id(older.id, newer.id),
        memory_ids=[m.id for m in pair],
        statements=[m.text for m in pair],
        agents=[m.agent for m in pair],
        channels=[m.channel for m in pair],
        sources=[m.source for m in pair],
        severity=Severity.medium,
        reason=f"'{older.text}' and '{newer.text}' cannot both hold",
        scope=newer.scope,
        status=ConflictStatus.open if still_open else ConflictStatus.resolved,
        resolution=resolution,
        created_at=at,
        updated_at=at,
    )


def _promotion_state(services: Services, memory: Memory) -> None:
    """A proposal to move `memory` up a tier, its weekly review entry and a use."""
    signal = Signal(name=SignalName.used, strength=Strength.strong, weight=2.0, detail="used 3 times")
    assessment = Assessment(
        memory_id=memory.id,
        tier=memory.tier,
        score=2.0,
        signals=[signal],
        decision=Decision.propose,
        target=Tier.semantic,
        reason="used often",
        at=utcnow(),
    )
    proposals.propose(services.redis, services.keys, memory, assessment)
    weekly.add(services.redis, services.keys, assessment, last_stated=memory.created_at)
    usage.record_use(services.redis, services.keys, memory.id)


def in_conflicts(services: Services, memories: list[Memory], count: int, seed: int) -> list[Memory]:
    """`count` memories that are a side of at least one conflict: forgetting them has conflicts to redact."""
    every = ledger.all_conflicts(services.redis, services.keys)
    sides = {side for c in every for side in c.memory_ids}
    return random.Random(seed).sample([m for m in memories if m.id in sides], count)


def forget_one(services: Services, memory_id: str) -> float:
    """Seconds to forget one memory as the route does: under the writers' lock, read, forget."""
    start = time.perf_counter()
    with writing(services.redis, services.keys):
        [memory] = services.store.get([memory_id])
        forget(services.redis, services.keys, services.store, services.queue, memory, by="owner")
    return time.perf_counter() - start


def measure(redis: Redis, redis_url: str, embedder: Embedder, size: Size, tries: int, profile: bool) -> float:
    """The median seconds to forget one memory at `size` (`tries` different memories)."""
    redis.flushdb()
    with tempfile.TemporaryDirectory() as tmp:
        services = build_services(Settings(data_dir=Path(tmp), redis_url=redis_url), redis, embedder=embedder)
        try:
            start = time.perf_counter()
            memories = build_state(services, size, seed=size.memories)
            built = time.perf_counter() - start
            targets = in_conflicts(services, memories, tries + 1, seed=1)
            forget_one(services, targets.pop().id)  # warm: the first touch of each code path
            times = [forget_one(services, m.id) for m in targets]
            median = statistics.median(times)
            print(
                f"{size.memories} memories, {size.conflicts} conflicts, {size.proposals} proposals "
                f"(built in {built:.0f} s): forgetting one took {median * 1000:.1f} ms median "
                f"of {tries} (min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})"
            )
            if profile:
                last, upgraded = in_conflicts(services, memories, 2, seed=2)
                print_profile(services, last.id)
                once = first_after_upgrade(services, upgraded.id)
                print(
                    f"the first forgetting in a ledger from before the per-memory sets builds them: {once * 1000:.0f} ms"
                )
            return median
        finally:
            services.close()


def first_after_upgrade(services: Services, memory_id: str) -> float:
    """Seconds to forget one memory in a ledger recorded before each memory had its set of conflicts."""
    redis, keys = services.redis, services.keys
    redis.delete(*redis.keys(keys.memory_conflicts("*")), keys.memory_conflicts_built)
    return forget_one(services, memory_id)


def print_profile(services: Services, memory_id: str) -> None:
    """Where forgetting one more memory spends its time: the hub's functions by cumulative time."""
    profiler = cProfile.Profile()
    profiler.runcall(forget_one, services, memory_id)
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
    stats.print_stats(r"hub/(forgetting|conflicts|compaction/jobs|promotion|store)", 14)
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[-2_500:])


def main() -> None:
    parser = benchmark_parser(__doc__)
    parser.add_argument("--quick", action="store_true", help="a tenth of the big state, for a smoke run")
    args = parser.parse_args()
    big = Size(1_000, 500, 30) if args.quick else Size(10_000, 5_000, 300)
    small = Size(100, 10, 5)
    tries = 7
    embedder = Embedder(expected_sha256=Settings().model_sha256)
    with benchmark_redis(args.redis_url) as (redis, redis_url):
        at_big = measure(redis, redis_url, embedder, big, tries, profile=True)
        at_small = measure(redis, redis_url, embedder, small, tries, profile=False)
    print(
        f"forgetting one memory: {at_big * 1000:.1f} ms at {big.memories} memories / {big.conflicts} "
        f"conflicts, {at_small * 1000:.1f} ms at {small.memories} / {small.conflicts}: "
        f"ratio {at_big / at_small:.1f}"
    )


if __name__ == "__main__":
    main()
