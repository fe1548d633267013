"""Requests per key per minute, counted in Redis so that every API process shares the count."""

from __future__ import annotations

import math
import secrets
import time

from redis import Redis

from hub.keys import Keys

WINDOW_SECONDS = 60


def retry_after(
    redis: Redis, keys: Keys, key_id: str, *, per_minute: int, now: float | None = None
) -> int | None:
    """Count one request; None when within the limit, else seconds until the key may send again.

    The limit holds over any 60 s, not per minute of the clock: with fixed windows a key could send
    the limit just before a minute turns and again just after, twice the limit in a second or two.
    Each request is kept, by when it came, for a minute; a refused one is not kept, so a caller that
    waits as told is let through.
    """
    now = time.time() if now is None else now
    log = f"{keys.prefix}:rate:{key_id}"
    request = f"{now}:{secrets.token_hex(4)}"
    pipe = redis.pipeline(transaction=True)
    pipe.zremrangebyscore(log, "-inf", now - WINDOW_SECONDS)
    pipe.zadd(log, {request: now})
    pipe.zcard(log)
    pipe.expire(log, WINDOW_SECONDS)
    count = int(pipe.execute()[2])
    if count <= per_minute:
        return None
    # The key may send again once enough of the requests before this one are a minute old (none
    # left to wait for: another process's request has just let them go).
    freeing = count - per_minute - 1
    pipe.zrem(log, request)
    pipe.zrange(log, freeing, freeing, withscores=True)
    freed = pipe.execute()[1]
    freed_at = freed[0][1] if freed else now - WINDOW_SECONDS
    return max(1, math.ceil(freed_at + WINDOW_SECONDS - now))
