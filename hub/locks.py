"""Taking turns in Redis, across workers and processes.

The memory writers' lock: whoever rewrites memories from what it just read of them holds it. A
reinforcement appends a sighting to the list it read, a supersession a history entry, a merge both:
two writers interleaved would each write back a list without the other's entry. Compaction's writes,
the write-time review of each memory, promotion's writes, a decision on a conflict and closing a
loop take turns. Each holds it for milliseconds to seconds.

A claim: one decision on one conflict or proposal at a time (the owner may answer on two devices).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from redis import Redis
from redis.lock import Lock

from hub.keys import Keys

# A holder that dies (a worker killed mid-review) stops everyone for this long at most; one that needs
# longer (a compaction applying a long plan) renews it as it goes (`Lock.reacquire`).
HOLD_SECONDS = 30
# How long a writer waits for its turn: longer than any compaction takes to write.
WAIT_SECONDS = 600


def writing(redis: Redis, keys: Keys) -> Lock:
    """`with writing(redis, keys) as lock: ...` waits for the other writers, then holds the lock."""
    lock: Lock = redis.lock(keys.write_lock, timeout=HOLD_SECONDS, blocking_timeout=WAIT_SECONDS)
    return lock


# Longer than any decision takes; a claim left by a crashed process frees itself after it.
CLAIM_SECONDS = 60


@contextmanager
def claimed(redis: Redis, key: str, *, by: str) -> Iterator[bool]:
    """`with claimed(redis, key, by=...) as mine:` whether this caller holds the claim at `key` (no one
    else did); a claim held is released when the block ends."""
    mine = bool(redis.set(key, by, nx=True, ex=CLAIM_SECONDS))
    try:
        yield mine
    finally:
        if mine:
            redis.delete(key)
