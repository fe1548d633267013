"""Requests per key per minute, counted in Redis so that every API process shares the count.

The count is `limits`' moving window (one atomic script per request) on the hub's own Redis
connections, embedded Redis included. The limit holds over any 60 s, not per minute of the clock:
with fixed windows a key could send the limit just before a minute turns and again just after. A
refused request is not counted, so a caller that waits as told is let through.
"""

from __future__ import annotations

import math
import time

from limits import RateLimitItemPerMinute
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter
from redis import Redis

from hub.keys import Keys


class RateLimit:
    """The request counts of every API key, in the hub's Redis."""

    def __init__(self, redis: Redis, keys: Keys) -> None:
        # The URI names the kind of store only: the connections are the hub's own.
        storage = RedisStorage("redis://", connection_pool=redis.connection_pool, key_prefix=keys.rate_limits)
        self._limiter = MovingWindowRateLimiter(storage)

    def retry_after(self, key_id: str, *, per_minute: int) -> int | None:
        """Count one request; None when within the limit, else seconds until the key may send again
        (when the oldest of the requests in the window is a minute old)."""
        item = RateLimitItemPerMinute(per_minute)
        if self._limiter.hit(item, key_id):
            return None
        reset_at, _ = self._limiter.get_window_stats(item, key_id)
        return max(1, math.ceil(reset_at - time.time()))
