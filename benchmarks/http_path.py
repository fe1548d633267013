"""The path agents take: a started `memhub up`, driven over HTTP, with ratios to the raw model of the same run.

    python -m benchmarks.http_path [--memories 2000] [--searches 1000] [--setting MEMHUB_NAME=VALUE]

1. `memhub up` starts in its own process (embedded Redis and store, its own workers).
2. Raw model figures, in this process while the hub is idle: batched `encode` of the memories'
   texts (sentences/s) and one query encoded alone (median of 200), before the hub is loaded and
   again after it settles; their mean is the baseline, since the machine's speed drifts. Twice:
   sentence-transformers on torch (the raw model) and the same model on ONNX Runtime (what the hub
   runs by default), each row's ratio to both.
3. Publish to searchable at a backlog: all memories (10 projects, 10 agents) published at once, 500
   to a request; the time until every one is stored (searchable), and until every one is reviewed,
   as memories per second against the raw batched encode.
4. Search on the settled hub, once its background queue (reviews, promotion scoring) has stayed
   empty for a few seconds: scope-filtered searches (a project each), p50 and p95 over HTTP,
   against one query encode. A thousand by default: a p95 rests on its slowest twentieth, which
   must be more than a handful of searches to say the same twice.
5. The same searches while four agents publish 20 events a second in all, one event to a request,
   and how many of those events were searchable and reviewed when the searches ended.
6. Publish to searchable on an idle hub: one event, then its status until stored, p50 and p95.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.common import benchmark_parser, chat_memories, start_hub, wait_for_events, wait_until_idle
from hub.embedding import Embedder
from hub.settings import get_settings
from memhub_client import Memhub

PROJECTS = 10
PUBLISHERS = 4
PUBLISH_RATE = 20.0  # events a second, all publishers together
QUESTIONS = [
    "who borrowed the camera?",
    "where is the spare tent?",
    "what needs a new charger before the trip?",
    "which things should be sold online?",
    "what was a birthday present?",
    "what keeps making a strange noise?",
    "where is the receipt?",
    "what came with a warranty?",
]


def percentile(samples: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(samples), q))


def raw_figures(embedder: Embedder, texts: list[str]) -> tuple[float, float]:
    """(batched encode, sentences/s; one query encoded alone, median seconds)."""
    batch = get_settings().encode_batch_size
    embedder.encode(texts[:64], batch_size=batch)  # warm
    started = time.perf_counter()
    embedder.encode(texts, batch_size=batch)
    rate = len(texts) / (time.perf_counter() - started)
    one = []
    for i in range(200):
        started = time.perf_counter()
        embedder.encode_one(QUESTIONS[i % len(QUESTIONS)])
        one.append(time.perf_counter() - started)
    return rate, statistics.median(one)


def searches(hub: Memhub, count: int) -> list[float]:
    took = []
    for i in range(count):
        started = time.perf_counter()
        hub.search(QUESTIONS[i % len(QUESTIONS)], project=f"project-{i % PROJECTS}", limit=10)
        took.append(time.perf_counter() - started)
    return took


def publishing(url: str, stop: threading.Event, texts: list[str], published: list[str]) -> None:
    """One agent publishing single events at PUBLISH_RATE / PUBLISHERS a second until `stop`."""
    interval = PUBLISHERS / PUBLISH_RATE
    with Memhub(url, agent=f"busy-{threading.get_ident() % 1000}", timeout=60.0) as agent:
        at = time.monotonic()
        for text in texts:
            if stop.is_set():
                return
            published.append(agent.publish(text, scope="project", project="busy"))
            at += interval
            time.sleep(max(0.0, at - time.monotonic()))


def done(hub: Memhub, ids: Sequence[str]) -> tuple[int, int]:
    """How many of `ids` are searchable (stored) and how many also reviewed, at this moment."""
    searchable = reviewed = 0
    for at in range(0, len(ids), 500):
        for status in hub.statuses(list(ids[at : at + 500])):
            if status is not None and status.status.value == "stored":
                searchable += 1
                reviewed += status.settled
    return searchable, reviewed


def row(name: str, value: float, unit: str, ratios: tuple[float, float], bound: str) -> None:
    print(f"{name:<58}{value:>10.1f} {unit:<9}{ratios[0]:>8.2f}{ratios[1]:>8.2f}   {bound}")


def main() -> None:
    parser = benchmark_parser(__doc__)
    parser.add_argument("--memories", type=int, default=2_000)
    parser.add_argument("--searches", type=int, default=1_000)
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="MEMHUB_NAME=VALUE",
        help="a setting of the hub under test (repeatable), to compare two on one machine",
    )
    args = parser.parse_args()
    texts = chat_memories(args.memories + 4_000)
    memories, spare = texts[: args.memories], texts[args.memories :]
    sha256 = get_settings().model_sha256
    raw = {runtime: Embedder(expected_sha256=sha256, runtime=runtime) for runtime in ("torch", "onnx")}
    before = {runtime: raw_figures(embedder, memories) for runtime, embedder in raw.items()}

    with tempfile.TemporaryDirectory(prefix="memhub-http-") as tmp:
        process, url = start_hub(Path(tmp) / "data", args.setting)
        try:
            with Memhub(url, agent="agent-0", timeout=120.0) as hub:
                searches(hub, 20)  # the API's first requests load what they need
                events = [
                    {
                        "text": text,
                        "agent": f"agent-{i % 10}",
                        "scope": "project",
                        "project": f"project-{i % PROJECTS}",
                    }
                    for i, text in enumerate(memories)
                ]
                started = time.monotonic()
                ids: list[str] = []
                for at in range(0, len(events), 500):
                    ids += hub.publish_many(events[at : at + 500])
                wait_for_events(hub, ids, reviewed=False)
                stored = time.monotonic() - started
                wait_for_events(hub, ids)
                reviewed = time.monotonic() - started
                idle_after = wait_until_idle(url)
                print(
                    f"published {len(ids)} memories; stored in {stored:.1f} s, reviewed in {reviewed:.1f} s,"
                    f" background work done {idle_after:.1f} s later"
                )

                after = {runtime: raw_figures(embedder, memories) for runtime, embedder in raw.items()}
                encode_rate = {r: (before[r][0] + after[r][0]) / 2 for r in raw}
                encode_one = {r: (before[r][1] + after[r][1]) / 2 for r in raw}

                settled = searches(hub, args.searches)
                stop = threading.Event()
                sent: list[str] = []
                share = len(spare) // PUBLISHERS
                threads = [
                    threading.Thread(
                        target=publishing, args=(url, stop, spare[i * share : (i + 1) * share], sent)
                    )
                    for i in range(PUBLISHERS)
                ]
                for thread in threads:
                    thread.start()
                time.sleep(2)
                busy_started = time.monotonic()
                busy = searches(hub, args.searches)
                busy_seconds = time.monotonic() - busy_started
                stop.set()
                for thread in threads:
                    thread.join()
                kept_up = done(hub, sent)

                idle = []
                wait_for_events(hub, sent)
                for i in range(30):
                    started_one = time.perf_counter()
                    event_id = hub.publish(
                        f"idle check {i}: " + spare[-1 - i], scope="project", project="idle"
                    )
                    hub.wait(event_id, reviewed=False, timeout=60)
                    idle.append(time.perf_counter() - started_one)
                    hub.wait(event_id, timeout=60)
        finally:
            process.terminate()
            process.wait(60)

    for runtime in raw:
        print(
            f"raw model on {runtime} in this run: batched encode {encode_rate[runtime]:.0f} sentences/s,"
            f" one query {encode_one[runtime] * 1000:.1f} ms"
        )
    print(
        f"while searching busy: {len(sent)} events published in {busy_seconds:.1f} s;"
        f" at its end {kept_up[0]} searchable, {kept_up[1]} reviewed"
    )
    print(f"\n{'':<58}{'value':>10} {'':<9}{'/torch':>8}{'/onnx':>8}   bound")

    def per_second(rate: float) -> tuple[float, float]:
        return rate / encode_rate["torch"], rate / encode_rate["onnx"]

    def per_query(seconds: float) -> tuple[float, float]:
        return seconds / encode_one["torch"], seconds / encode_one["onnx"]

    row(
        "publish -> searchable at a backlog (memories/s)",
        len(ids) / stored,
        "/s",
        per_second(len(ids) / stored),
        ">= 0.8",
    )
    row(
        "publish -> reviewed at a backlog (memories/s)",
        len(ids) / reviewed,
        "/s",
        per_second(len(ids) / reviewed),
        "-",
    )
    p95 = percentile(settled, 95)
    row("search p95, settled hub", p95 * 1000, "ms", per_query(p95), "<= 2.5")
    p95_busy = percentile(busy, 95)
    row(
        f"search p95, {PUBLISHERS} agents publishing {PUBLISH_RATE:.0f}/s",
        p95_busy * 1000,
        "ms",
        per_query(p95_busy),
        "<= 3",
    )
    print(
        f"search p50: settled {percentile(settled, 50) * 1000:.1f} ms, busy {percentile(busy, 50) * 1000:.1f} ms"
    )
    print(
        f"publish -> searchable, idle hub: p50 {percentile(idle, 50) * 1000:.0f} ms, p95 {percentile(idle, 95) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
