"""What the benchmarks share: a Redis to run against and chat-like memories to feed in."""

from __future__ import annotations

import argparse
import itertools
import random
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from redis import Redis

from hub.connections import EmbeddedRedis

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
