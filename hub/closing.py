"""Closing an open loop or a task, and the older loops the one closed answers.

One owner's loops are kept by several agents: the WhatsApp agent noted "Renew Ido's passport", the
Telegram one checked off "Renewed Ido's passport at the Interior Ministry office". Closing the second
closes the first, with a note naming what was done, by whom and where, in its history: a loop another
agent finished is not left for the owner to chase.

A loop is answered when every word it says (folded: "renew", "renewed") is in what was done, it says at
least two, it was noted no later than the thing was done, and the two are close in meaning: "Renew
Shira's passport" is not answered by Ido's, nor next month's "Pay the electricity bill" by this month's.
Only loops the closer may read are closed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from hub.conflicts.judge.tokens import content_words, words_match
from hub.models import CLOSABLE, Change, Memory, State
from hub.store.base import NO_TERMS, MemoryFilter, MemoryStore, SearchMode, SearchQuery

# Close loops looked at for each one closed: the nearest by meaning.
NEAREST = 10
# Words a loop must say to be answered by what another says: one ("Call") could be anything.
MIN_WORDS = 2


class NotClosable(ValueError):
    """A memory that is no open loop or task, or no longer open."""


def close(store: MemoryStore, memory: Memory, *, by: str, note: str | None, now: datetime) -> Memory:
    """Resolve `memory`, recording who closed it and why in its history. Call under the writers' lock."""
    if memory.kind not in CLOSABLE:
        raise NotClosable(f"only open loops and tasks close, not a {memory.kind.value}")
    if memory.state is not State.active:
        raise NotClosable(f"memory {memory.id} is {memory.state.value}, not open")
    change = Change(
        at=now,
        action="resolved",
        by=by,
        note=note,
        changes={"state": [memory.state.value, State.resolved.value]},
    )
    fields = {"state": State.resolved, "history": [*memory.history, change]}
    store.update(memory.id, fields)
    return memory.model_copy(update=fields)


def answers(done: Memory, loop: Memory) -> bool:
    """Whether closing `done` means `loop` was done too (the words test; closeness is the caller's)."""
    if loop.id == done.id or loop.kind not in CLOSABLE or loop.state is not State.active:
        return False
    if loop.occurred_at > done.occurred_at:
        return False  # noted after it was done: another time ("pay the bill" again next month)
    said = content_words(loop.text)
    did = content_words(done.text)
    return len(said) >= MIN_WORDS and all(any(words_match(w, v) for v in did) for w in said)


def close_answered(
    store: MemoryStore,
    done: Memory,
    *,
    by: str,
    min_similarity: float,
    may_read: Callable[[Memory], bool],
    now: datetime,
) -> list[Memory]:
    """Close the open loops and tasks `done` (just closed by `by`) answers; the ones closed. Call under
    the writers' lock."""
    dense = store.vectors([done.id]).get(done.id)
    if dense is None:
        return []
    flt = MemoryFilter(now=now, all_scopes=True, states=frozenset({State.active}), kinds=frozenset(CLOSABLE))
    query = SearchQuery(dense=dense, sparse=NO_TERMS, filter=flt, limit=NEAREST, mode=SearchMode.dense)
    where = f"{done.agent} on {done.channel or 'an unknown channel'}" + (
        f", {done.source}" if done.source else ""
    )
    closed = []
    for hit in store.search(query):
        if hit.score >= min_similarity and may_read(hit.memory) and answers(done, hit.memory):
            note = f"done: {done.text} ({where}; memory {done.id})"
            closed.append(close(store, hit.memory, by=by, note=note, now=now))
    return closed
