"""The memory writers' lock: whoever rewrites memories from what it just read of them holds it.

A reinforcement appends a sighting to the list it read, a supersession a history entry, a merge
both: two writers interleaved would each write back a list without the other's entry. Compaction's
writes, the write-time review of each memory and a decision on a conflict take turns (across
workers and processes: the lock is in Redis). Each holds it for milliseconds to seconds.
"""

from __future__ import annotations

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
