"""What the pages share: reading every matching memory, and one memory as a markdown bullet."""

from __future__ import annotations

import re

from hub.imported import is_import_note
from hub.models import Memory, State, Tier

EVERY_STATE = frozenset(State)


def one_line(text: str) -> str:
    """Text on one line, so that a memory never breaks the page's markdown structure."""
    return " ".join(text.split())


# What makes a line that starts with it a heading, list item, quote, rule, table or code fence in
# markdown; an ordered item's marker is the `.` or `)` after its number.
BLOCK_START = re.compile(r"^(?:[#>=|`~*+-]|\d+(?=[.)](?:\s|$)))")


def line_start(text: str) -> str:
    """Text on one line that can stand at the start of a line: a status "# Done" is not a heading."""
    text = one_line(text)
    found = BLOCK_START.match(text)
    if found is None:
        return text
    if found.group().isdigit():
        return f"{found.group()}\\{text[found.end() :]}"
    return f"\\{text}"


def marks(memory: Memory) -> str:
    """Where the memory stands, when that is worth a reader's attention."""
    found = []
    if memory.tier in (Tier.semantic, Tier.core):
        found.append("long-term" if memory.tier is Tier.semantic else "core")
    if memory.state is State.stale:
        found.append("stale")
    return f" _({', '.join(found)})_" if found else ""


def reason(memory: Memory) -> str | None:
    """A decision's why, on one line; None where the why only says where an import found the line
    (`hub.imported`), which is no reason."""
    if memory.why is None or is_import_note(memory.why):
        return None
    return one_line(memory.why)


def ref(memory: Memory) -> str:
    """The memory id, invisible when rendered, for an agent that reports use or closes a loop."""
    return f" <!-- memory:{memory.id} -->"


def text_of(memory: Memory) -> str:
    """The memory's text, struck through when a newer memory superseded it."""
    text = one_line(memory.text)
    if memory.state is State.superseded:
        return f"~~{text}~~ (superseded)"
    return text
