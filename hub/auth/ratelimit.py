"""Requests per key per minute, counted in Redis so that every API process shares the count."""

from __future__ import annotations

import time

from redis import Redis

from hub.keys import Keys


def retry_after(redis: Redis, keys: Keys, key_id: str, *, per_minute: int) -> int | None:
    """Count one request; None when within the limit, else seconds until the next window opens."""
    now = time.time()
    window = int(now // 60)
    counter = f"{keys.prefix}:rate:{key_id}:{window}"
    pipe = redis.pipeline(transaction=True)
    pipe.incr(counter)
    pipe.expire(counter, 120)
    count = int(pipe.execute()[0])
    if count <= per_minute:
        return None
    return max(1, int((window + 1) * 60 - now) + 1)
