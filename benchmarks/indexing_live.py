"""Searches while the embedded store indexes, and a `kill -9` meanwhile, through a started `memhub up`.

    python -m benchmarks.indexing_live [--memories 100000] [--events 1500]

1. A data directory's store is filled straight with `--memories` memories, never indexed (as
   `benchmarks.scale` fills it: chat memories encoded once, moved by a little noise, 10 projects).
2. `memhub up` starts on it with `MEMHUB_STORE_INDEX_THRESHOLD=1000`; one published event makes its
   worker ask for the indexing. Scope-filtered searches over HTTP run back to back before it, while the
   copy is indexed (its `.indexing` folder exists) and after: p50, p95 and the slowest of each phase,
   against one query encoded by the raw model in this process.
3. Two agents publish `--events` events; once enough wait, the hub indexes again, and is killed with
   SIGKILL as soon as its indexing process runs. Started again on the same folder: every event it acknowledged is stored, once,
   and the store holds the memories it had plus those events.
"""

from __future__ import annotations

import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import benchmark_parser, chat_memories, start_hub, wait_for_events
from benchmarks.http_path import PROJECTS, QUESTIONS, percentile, raw_figures, searches
from benchmarks.scale import fill
from hub.embedding import Embedder
from hub.models import memory_id_for
from hub.settings import Settings, get_settings
from hub.store import open_store
from hub.store.index_copy import copy_of
from memhub_client import Memhub

SETTINGS = ["MEMHUB_STORE_INDEX_THRESHOLD=1000"]


def search_while(hub: Memhub, condition: Callable[[], bool]) -> list[float]:
    """Searches back to back while `condition()` holds; each one's seconds."""
    took: list[float] = []
    while condition():
        i = len(took)
        started = time.perf_counter()
        hub.search(QUESTIONS[i % len(QUESTIONS)], project=f"project-{i % PROJECTS}", limit=10)
        took.append(time.perf_counter() - started)
    return took


def line(name: str, took: list[float], encode_one: float) -> None:
    if not took:
        print(f"  {name:28} no searches")
        return
    p50, p95 = percentile(took, 50), percentile(took, 95)
    print(
        f"  {name:28} {len(took):5} searches   p50 {p50 * 1000:7.1f} ms   p95 {p95 * 1000:7.1f} ms"
        f"   slowest {max(took) * 1000:7.1f} ms   p95 / encode-one {p95 / encode_one:5.2f}"
    )


def builders() -> list[str]:
    found = subprocess.run(["pgrep", "-f", "hub.store.index_copy"], capture_output=True, text=True)
    return found.stdout.split()


def publish(url: str, agent: str, texts: list[str], ids: list[str], stop: threading.Event) -> None:
    with Memhub(url, agent=agent, timeout=60.0) as hub:
        for text in texts:
            if stop.is_set():
                return
            try:
                ids.append(hub.publish(text, scope="project", project="project-0"))
            except Exception:  # the hub was killed: what it did not acknowledge is not its to keep
                return
            time.sleep(0.02)


def main() -> None:
    parser = benchmark_parser(__doc__)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--events", type=int, default=1_500)
    args = parser.parse_args()
    embedder = Embedder(expected_sha256=get_settings().model_sha256)
    encode_one = raw_figures(embedder, chat_memories(200))[1]
    with tempfile.TemporaryDirectory(prefix="memhub-indexing-") as tmp:
        data_dir = Path(tmp) / "data"
        started = time.monotonic()
        store = open_store(Settings(data_dir=data_dir))
        try:
            fill(store, embedder, args.memories)
        finally:
            store.close()
        print(
            f"filled {args.memories:,} memories, unindexed, in {time.monotonic() - started:.0f} s", flush=True
        )
        copy = copy_of(data_dir / "store" / get_settings().collection)

        print("\n1. one index run, searched all along")
        process, url = start_hub(data_dir, SETTINGS)
        try:
            with Memhub(url, agent="agent-0", timeout=120.0) as hub:
                searches(hub, 20)  # the API's first requests load what they need
                before_end = time.monotonic() + 10
                before = search_while(hub, lambda: time.monotonic() < before_end)
                wait_for_events(
                    hub, [hub.publish("start the indexing", scope="project", project="project-0")]
                )
                deadline = time.monotonic() + 60
                while not copy.exists() and time.monotonic() < deadline:
                    time.sleep(0.05)
                if not copy.exists():
                    raise SystemExit("the hub did not start indexing within 60 s")
                building = time.monotonic()
                during = search_while(hub, copy.exists)
                built = time.monotonic() - building
                after_end = time.monotonic() + 10
                after = search_while(hub, lambda: time.monotonic() < after_end)
        finally:
            process.terminate()
            process.wait(120)
        print(f"  indexed in the background in {built:.0f} s (copy, build, replay, swap)")
        line("before, brute force", before, encode_one)
        line("while indexing", during, encode_one)
        line("after, indexed", after, encode_one)
        print(f"  one query encode (raw model) {encode_one * 1000:.1f} ms")

        print(f"\n2. {args.events} events published, the hub killed with SIGKILL while it indexes them")
        process, url = start_hub(data_dir, SETTINGS)
        ids: list[str] = []
        stop = threading.Event()
        texts = [f"event {i}: {text}" for i, text in enumerate(chat_memories(args.events, seed=11))]
        halves = [texts[0::2], texts[1::2]]
        agents = [
            threading.Thread(target=publish, args=(url, f"agent-{n}", half, ids, stop))
            for n, half in enumerate(halves)
        ]
        for agent in agents:
            agent.start()
        deadline = time.monotonic() + 600
        while not builders() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        running = builders()
        if not running:
            stop.set()
            raise SystemExit("the hub did not start indexing the events within 600 s")
        process.kill()
        process.wait(60)
        stop.set()
        for agent in agents:
            agent.join(60)
        time.sleep(1)
        print(
            f"  killed with {len(ids)} events acknowledged; builder processes {running} -> {builders()} after"
        )
        process, url = start_hub(data_dir, SETTINGS)
        try:
            with Memhub(url, agent="agent-0", timeout=120.0) as hub:
                refused = wait_for_events(hub, ids, reviewed=False, poll=1)
        finally:
            process.terminate()
            process.wait(120)
        store = open_store(Settings(data_dir=data_dir))
        try:
            found = len(store.get([memory_id_for(i) for i in ids]))
            total = store.count()
        finally:
            store.close()
        leftovers = [p.name for p in copy.parent.iterdir() if p.name.endswith((".indexing", ".swapped"))]
        print(f"  after the restart: {found} of {len(ids)} acknowledged events stored ({refused} refused)")
        print(
            f"  store: {total:,} memories, expected {args.memories + 1 + len(ids):,}; leftovers {leftovers}"
        )


if __name__ == "__main__":
    main()
