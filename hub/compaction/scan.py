"""Reading memories page by page, as maintenance sees them: every scope, and expired ones too."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from datetime import UTC, datetime
from itertools import islice

from hub.models import Memory, Scope, State
from hub.store.base import MemoryFilter, MemoryStore, scroll_all

LIVE = frozenset({State.active, State.stale})
# Visibility is judged at `now`; at the epoch nothing has expired yet, so maintenance sees the
# expired temporary memories it has to purge.
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Naming the agents reads memories page by page (2 s per 50,000 on the embedded store), where a count
# takes milliseconds: the answer to a mistyped name reads at most this many, quick at any size.
NAMED_FROM = 10_000


def agent_memories(store: MemoryStore, agent: str) -> list[Memory]:
    """Every memory the agent published: any scope, any state, expired or not."""
    flt = MemoryFilter(now=EPOCH, all_scopes=True, agents=frozenset({agent}), states=frozenset(State))
    return list(scroll_all(store, flt))


def known_agents(store: MemoryStore, *, most: int | None = None) -> list[str]:
    """Every agent with a memory in the store, sorted; with `most`, those among the first `most` memories."""
    flt = MemoryFilter(now=EPOCH, all_scopes=True, states=frozenset(State))
    return sorted({memory.agent for memory in islice(scroll_all(store, flt), most)})


def unknown_agent(store: MemoryStore, agent: str, *, most: int = NAMED_FROM) -> str | None:
    """Why `agent` has nothing to compact, naming the agents among the first `most` memories; None if it
    has some."""
    every = MemoryFilter(now=EPOCH, all_scopes=True, states=frozenset(State))
    if store.count(replace(every, agents=frozenset({agent}))):
        return None
    named = known_agents(store, most=most)
    if not named:
        return f"agent {agent!r} has no memories to compact: the hub holds none yet"
    some = " include" if store.count(every) > most else " are"
    return f"agent {agent!r} has no memories to compact; the agents with memories{some}: {', '.join(named)}"


def expired_memories(store: MemoryStore, now: datetime) -> list[str]:
    """The ids of every agent's temporary memories expired by `now`, in any state."""
    flt = MemoryFilter(
        now=EPOCH, all_scopes=True, scopes=frozenset({Scope.temporary}), states=frozenset(State)
    )
    return sorted(memory.id for memory in scroll_all(store, flt) if memory.expired(now))


def superseded_by_winner(store: MemoryStore) -> dict[str, list[str]]:
    """The ids of superseded memories, by the id of the memory that superseded each."""
    flt = MemoryFilter(now=EPOCH, all_scopes=True, states=frozenset({State.superseded}))
    losers: dict[str, list[str]] = defaultdict(list)
    for memory in scroll_all(store, flt):
        if memory.superseded_by:
            losers[memory.superseded_by].append(memory.id)
    return losers
