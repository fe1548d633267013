"""What the benchmarks share: a Redis to run against and chat-like memories to feed in."""

from __future__ import annotations

import argparse
import itertools
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
from redis import Redis

from hub.connections import EmbeddedRedis
from hub.markdown.importer import poll_oldest_first
from memhub_client import Memhub

ROOT = Path(__file__).resolve().parent.parent

PEOPLE = ["Netanel", "Dana", "Yossi", "Maya", "Avi", "Noa", "Eli", "Tamar", "Omer", "Shira", "Itai", "Lior"]
ADJECTIVES = [
    "old",
    "new",
    "blue",
    "wooden",
    "electric",
    "borrowed",
    "broken",
    "spare",
    "favourite",
    "small",
    "heavy",
    "quiet",
    "shared",
    "rented",
    "second",
    "folding",
    "vintage",
    "cheap",
    "noisy",
    "fancy",
]
THINGS = [
    "bicycle",
    "laptop",
    "guitar",
    "kettle",
    "camera",
    "tent",
    "piano",
    "scooter",
    "printer",
    "sofa",
    "drone",
    "blender",
    "umbrella",
    "backpack",
    "telescope",
    "grill",
    "heater",
    "desk",
    "lamp",
    "stroller",
    "kayak",
    "microwave",
    "router",
    "suitcase",
    "ladder",
    "toaster",
    "projector",
    "speaker",
    "mixer",
    "fan",
]
STORIES = [
    "should go back to the shop because it keeps making a strange noise",
    "is in the storage room behind the winter clothes and needs cleaning",
    "was lent to a neighbour last month and has not come back yet",
    "needs a new charger before the trip to the north next spring",
    "is the one the kids are not allowed to touch without asking first",
    "was bought on sale and the receipt is in the kitchen drawer",
    "should be sold online since nobody in the family uses it anymore",
    "came with a warranty that the owner wants to be reminded about",
    "belongs in the car whenever the family drives to the grandparents",
    "was a birthday present and the owner likes to mention who gave it",
]


def chat_memories(count: int, seed: int = 7) -> list[str]:
    """Distinct chat-like memories of about 20 words: different people, things and stories."""
    combos = list(itertools.product(PEOPLE, ADJECTIVES, THINGS, STORIES))
    random.Random(seed).shuffle(combos)
    if count > len(combos):
        raise ValueError(f"at most {len(combos)} distinct memories")
    return [f"{p}'s {a} {t} {s}" for p, a, t, s in combos[:count]]


def open_redis(url: str | None) -> tuple[Redis, str, EmbeddedRedis | None]:
    """The Redis at `url` (flushed), or an embedded one in a temporary folder."""
    if url:
        redis = Redis.from_url(url)
        redis.flushdb()
        return redis, url, None
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="memhub-bench-")))
    return server.client(), server.url, server


def benchmark_parser(doc: str | None) -> argparse.ArgumentParser:
    """A benchmark's command line: its module docstring as help, and `--redis-url`."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--redis-url", help="a Redis to use (it is flushed); default: an embedded one")
    return parser


@contextmanager
def benchmark_redis(url: str | None) -> Iterator[tuple[Redis, str]]:
    """`open_redis`, flushed (and an embedded one shut down) when the benchmark ends, however it ends."""
    redis, redis_url, server = open_redis(url)
    try:
        yield redis, redis_url
    finally:
        redis.flushdb()
        if server:
            server.shutdown()


def start_hub(data_dir: Path, settings: Sequence[str] = ()) -> tuple[subprocess.Popen[bytes], str]:
    """`memhub up` on a free port in its own process, with its log beside `data_dir`; returns once healthy.
    `settings`: "MEMHUB_NAME=value" lines for the hub, to compare two settings on one machine."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # The single-user embedded mode: no API keys on a hub only this benchmark talks to.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHUB_")} | {"MEMHUB_AUTH": "false"}
    env |= dict(setting.split("=", 1) for setting in settings)
    log = (data_dir.parent / "up.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "hub.cli", "up", "--data-dir", str(data_dir), "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"memhub up exited with {process.returncode}; see {log.name}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise SystemExit("memhub up did not become healthy in 180 s")


def wait_for_events(
    hub: Memhub,
    ids: Sequence[str],
    *,
    reviewed: bool = True,
    poll: float = 0.1,
    timeout: float = 3_600,
    progress: bool = False,
) -> int:
    """Block until every event is stored (or also reviewed: `reviewed`), asking 500 statuses a
    request, and saying how many are done at each poll if `progress`; how many were rejected or
    failed instead.

    Each poll asks for the oldest pending first, as `memhub import` does: the hub is not made to read
    thousands of statuses a poll that cannot be done yet, on the cores the work being timed needs.
    """
    started = time.monotonic()
    pending, refused = list(ids), 0
    while pending:
        if time.monotonic() - started > timeout:
            raise SystemExit(
                f"{len(pending)} events not {'reviewed' if reviewed else 'stored'} in {timeout} s"
            )
        done, pending = poll_oldest_first(
            hub, pending, lambda s: s.settled if reviewed else s.status.value != "queued", probe=500
        )
        refused += sum(1 for s in done.values() if s.status.value != "stored")
        if pending:
            if progress:
                print(f"  waiting: {len(ids) - len(pending)} of {len(ids)} done", flush=True)
            time.sleep(poll)
    return refused


def wait_until_idle(url: str, *, quiet: float = 3.0, timeout: float = 3_600) -> float:
    """Block until the hub's background queue (reviews, promotion scoring) has stayed empty for
    `quiet` seconds, read from its /metrics as an operator would; returns the seconds waited."""
    started = time.monotonic()
    empty_since: float | None = None
    while time.monotonic() - started < timeout:
        text = httpx.get(f"{url}/metrics", timeout=10).text
        backlog = next(
            float(line.split()[-1]) for line in text.splitlines() if line.startswith("memhub_review_backlog ")
        )
        now = time.monotonic()
        if backlog:
            empty_since = None
        elif empty_since is None:
            empty_since = now
        elif now - empty_since >= quiet:
            return now - started
        time.sleep(0.5)
    raise SystemExit(f"the background queue was not empty for {quiet} s within {timeout} s")


def memory_mib(pid: int) -> tuple[float, float]:
    """(resident now, resident at its peak) of a process, in MiB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024
