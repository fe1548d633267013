"""Bringing the keys `to_payload` derives up to date in memories stored before they existed, once per store.

The filters read derived keys, not the memory: `stated_ts` (every time the memory was stated, which
the daily page reads), `audience` (group chats), the `*_ts` times. A memory stored before a key
existed lacks it, and `update` never writes it: it writes only what differs between the memory
before and after. So a worker, as it starts, rewrites the derived keys of every memory whose payload
lacks them or holds others, page by page, and marks the store done at DERIVED_VERSION in Redis.
A second worker starting meanwhile leaves it to the first (a claim); one that runs anyway, or again,
writes the same keys. Each page is read and patched holding the writers' lock, so a sighting a review
appends meanwhile is not overwritten by the times read before it.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from dataclasses import dataclass
from typing import Any

from redis import Redis

from hub.keys import Keys
from hub.locks import CLAIM_SECONDS, claimed, writing
from hub.store.base import DERIVED_KEYS, MemoryStore, PayloadPatch, from_payload, to_payload

log = logging.getLogger(__name__)

# Bumped when `to_payload` derives a new key, or an old one differently: every store is done again.
# 1: `stated_ts` (every sighting's time) and `audience` were added after memories were stored.
DERIVED_VERSION = 1
PAGE_SIZE = 500
LOG_EVERY = 10_000  # memories read between two progress lines


@dataclass
class Backfill:
    """What a backfill did."""

    read: int = 0
    patched: int = 0
    seconds: float = 0.0


def derived_patch(payload: dict[str, Any]) -> PayloadPatch | None:
    """What brings a stored payload's derived keys in line with its memory; None when they are."""
    wanted = to_payload(from_payload(payload))
    stale = {key: wanted[key] for key in DERIVED_KEYS if key in wanted and payload.get(key) != wanted[key]}
    extra = tuple(key for key in DERIVED_KEYS if key in payload and key not in wanted)
    return PayloadPatch(set=stale, delete=extra) if stale or extra else None


def backfill_derived_keys(
    store: MemoryStore, redis: Redis, keys: Keys, *, collection: str, page_size: int = PAGE_SIZE
) -> Backfill | None:
    """Bring every stored memory's derived keys up to date, then mark `collection` done; None when it
    was done already or another process is doing it."""
    version, claim = keys.derived_keys_version(collection), keys.derived_keys_claim(collection)
    if _done(redis, version):
        return None
    with claimed(redis, claim, by=f"{socket.gethostname()}:{os.getpid()}") as mine:
        if not mine:
            log.info("derived payload keys: another process is bringing them up to date")
            return None
        if _done(redis, version):  # checked again holding the claim: whoever held it before finished
            return None
        done = _backfill(store, redis, keys, claim=claim, page_size=page_size)
        redis.set(version, DERIVED_VERSION)
    log.info(
        "derived payload keys up to date: %d memories read, %d patched in %.1f s",
        done.read,
        done.patched,
        done.seconds,
    )
    return done


def _done(redis: Redis, version: str) -> bool:
    return int(redis.get(version) or 0) >= DERIVED_VERSION


def _backfill(store: MemoryStore, redis: Redis, keys: Keys, *, claim: str, page_size: int) -> Backfill:
    started = time.perf_counter()
    total = store.count()
    done = Backfill()
    offset: str | None = None
    while True:
        with writing(redis, keys):
            page = store.scroll_payloads(limit=page_size, offset=offset)
            patches = {i: patch for i, payload in page.payloads.items() if (patch := derived_patch(payload))}
            store.patch_payloads(patches)
        redis.expire(claim, CLAIM_SECONDS)  # still at it
        before, done.read, done.patched = (
            done.read,
            done.read + len(page.payloads),
            done.patched + len(patches),
        )
        if done.read // LOG_EVERY > before // LOG_EVERY:
            log.info(
                "derived payload keys: %d of %d memories read, %d patched", done.read, total, done.patched
            )
        if page.next_offset is None:
            break
        offset = page.next_offset
    store.flush()
    done.seconds = time.perf_counter() - started
    return done


def backfill_at_start(store: MemoryStore, redis: Redis, keys: Keys, *, collection: str) -> None:
    """`backfill_derived_keys` as a worker starts: a failure is logged, and the next start tries again."""
    try:
        backfill_derived_keys(store, redis, keys, collection=collection)
    except Exception:  # a repair of old memories must not keep the worker from new ones
        log.exception("derived payload keys: the backfill failed; the next start tries again")
