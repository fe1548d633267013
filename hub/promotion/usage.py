"""How often agents reported a retrieved memory as used: the owner referring back to it."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel
from redis import Redis

from hub.keys import Keys


class UseRecorded(BaseModel):
    memory_id: str
    used_count: int


def record_use(redis: Redis, keys: Keys, memory_id: str) -> int:
    """Count one use; returns the memory's count so far."""
    return int(redis.hincrby(keys.promotion_uses, memory_id, 1))


def use_counts(redis: Redis, keys: Keys, memory_ids: Sequence[str]) -> dict[str, int]:
    if not memory_ids:
        return {}
    counts = redis.hmget(keys.promotion_uses, list(memory_ids))
    return {m: int(c or 0) for m, c in zip(memory_ids, counts, strict=True)}


def forget_uses(redis: Redis, keys: Keys, memory_id: str) -> None:
    redis.hdel(keys.promotion_uses, memory_id)
