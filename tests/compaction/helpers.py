"""Helpers for compaction scenarios: publishing through the real pipeline, reading the store whole."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hub.compaction.scan import EPOCH, scroll_all
from hub.models import Memory, State
from hub.store.base import MemoryFilter, MemoryStore
from memhub_client import Memhub


def days_ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).isoformat()


def stored(agent: Memhub, text: str, **fields: object) -> str:
    """Publish and wait until stored; the memory id it was stored under (or folded into)."""
    status = agent.wait(agent.publish(text, **fields))
    assert status.status == "stored", status
    assert status.memory_id
    return status.memory_id


def everything(store: MemoryStore) -> dict[str, Memory]:
    """Every memory in the store, any scope, state or expiry."""
    flt = MemoryFilter(now=EPOCH, all_scopes=True, states=frozenset(State))
    return {m.id: m for m in scroll_all(store, flt)}
