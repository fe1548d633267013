"""Reading memories page by page, as maintenance sees them: every scope, and expired ones too."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime

from hub.models import Memory, State
from hub.store.base import MemoryFilter, MemoryStore, scroll_all

LIVE = frozenset({State.active, State.stale})
# Visibility is judged at `now`; at the epoch nothing has expired yet, so maintenance sees the
# expired temporary memories it has to purge.
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def agent_memories(store: MemoryStore, agent: str) -> list[Memory]:
    """Every memory the agent published: any scope, any state, expired or not."""
    flt = MemoryFilter(now=EPOCH, all_scopes=True, agents=frozenset({agent}), states=frozenset(State))
    return list(scroll_all(store, flt))


def known_agents(store: MemoryStore) -> list[str]:
    """Every agent with a memory in the store, sorted."""
    flt = MemoryFilter(now=EPOCH, all_scopes=True, states=frozenset(State))
    return sorted({memory.agent for memory in scroll_all(store, flt)})


def superseded_by_winner(store: MemoryStore) -> dict[str, list[str]]:
    """The ids of superseded memories, by the id of the memory that superseded each."""
    flt = MemoryFilter(now=EPOCH, all_scopes=True, states=frozenset({State.superseded}))
    losers: dict[str, list[str]] = defaultdict(list)
    for memory in scroll_all(store, flt):
        if memory.superseded_by:
            losers[memory.superseded_by].append(memory.id)
    return losers
