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

# Longer than any holder needs; a lock left by a crashed process frees itself after it.
WRITE_LOCK_SECONDS = 600


def writing(redis: Redis, keys: Keys) -> Lock:
    """`with writing(redis, keys): ...` waits for the other writers, then holds the lock."""
    lock: Lock = redis.lock(keys.write_lock, timeout=WRITE_LOCK_SECONDS, blocking_timeout=WRITE_LOCK_SECONDS)
    return lock
