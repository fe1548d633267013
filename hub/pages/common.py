"""What the pages share: reading every matching memory, and one memory as a markdown bullet."""

from __future__ import annotations

from collections.abc import Iterator

from hub.models import Memory, State, Tier
from hub.store.base import MemoryFilter, MemoryStore

EVERY_STATE = frozenset(State)


def every(store: MemoryStore, flt: MemoryFilter, *, page_size: int = 500) -> Iterator[Memory]:
    """Every memory the filter matches, page after page."""
    offset: str | None = None
    while True:
        page = store.scroll(flt, limit=page_size, offset=offset)
        yield from page.memories
        if page.next_offset is None:
            return
        offset = page.next_offset


def one_line(text: str) -> str:
    """Text on one line, so that a memory never breaks the page's markdown structure."""
    return " ".join(text.split())


def marks(memory: Memory) -> str:
    """Where the memory stands, when that is worth a reader's attention."""
    found = []
    if memory.tier in (Tier.semantic, Tier.core):
        found.append("long-term" if memory.tier is Tier.semantic else "core")
    if memory.state is State.stale:
        found.append("stale")
    return f" _({', '.join(found)})_" if found else ""


def ref(memory: Memory) -> str:
    """The memory id, invisible when rendered, for an agent that reports use or closes a loop."""
    return f" <!-- memory:{memory.id} -->"


def text_of(memory: Memory) -> str:
    """The memory's text, struck through when a newer memory superseded it."""
    text = one_line(memory.text)
    if memory.state is State.superseded:
        return f"~~{text}~~ (superseded)"
    return text
