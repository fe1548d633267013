"""Holding events on the stream while a reembed runs, and after it until workers load the new model.

Publishing goes on (the API and the SDKs append to the Redis stream); only workers stop taking events,
so a write that arrives meanwhile waits, durable, and is embedded by the first worker with the new model.
"""

from __future__ import annotations

from redis import Redis

from hub.connections import as_text
from hub.keys import Keys

# A reembed renews its hold at every page; one killed mid-way lets intake resume this long after,
# into the old store with the old model, which is still whole (a rerun resumes the rewrite).
HOLD_SECONDS = 120


def hold(redis: Redis, keys: Keys, collection: str, *, by: str) -> None:
    """Hold intake, or renew the hold, for HOLD_SECONDS."""
    redis.set(keys.reembedding(collection), by, ex=HOLD_SECONDS)


def release(redis: Redis, keys: Keys, collection: str) -> None:
    redis.delete(keys.reembedding(collection))


def may_take_events(redis: Redis, keys: Keys, collection: str, *, model_sha256: str) -> bool:
    """Whether a worker with this model may take events: no reembed holds intake, and the store is
    still written with its model (after a switch, only workers started with the new one may)."""
    held, current = redis.mget(keys.reembedding(collection), keys.store_model(collection))
    return held is None and (current is None or as_text(current) == model_sha256)
