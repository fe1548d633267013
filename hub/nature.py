"""What a memory records: a state that holds until it changes, an event, or a chat message.

The agent says so where it knows (the SDK's `nature`, the markdown import for daily logs); otherwise
the kind decides (a task done, a session's summary, a loop to close are events), then a log line's
leading time. Everything else is a state. A chat message is never guessed from its shape: "Dentist:
Dr. Levi" in a core file reads like "Priya: see you at 8", and a message taken for a state is only
judged, while a state taken for a message would hide a conflict. The agent that logs a chat says so.
"""

from __future__ import annotations

import re

from hub.models import Kind, Memory, Nature

EVENT_KINDS = frozenset({Kind.task, Kind.summary, Kind.open_loop})
# "08:30 dropped the kids", "- 7.40 left for work", "[14:05] ...": the time a log line was written.
LOG_TIME = re.compile(r"^\W{0,3}\d{1,2}[:.h]\d{2}(?:\s*[ap]\.?m\.?)?\W{0,3}\s", re.IGNORECASE)


def infer_nature(kind: Kind, text: str) -> Nature:
    """The nature of a memory nobody named: from its kind, then the shape of its text."""
    if kind in EVENT_KINDS:
        return Nature.event
    if LOG_TIME.match(text):
        return Nature.event
    return Nature.state


def nature_of(memory: Memory) -> Nature:
    """A memory's nature: as stored, or inferred for a memory written before natures were kept."""
    return memory.nature or infer_nature(memory.kind, memory.text)


def content(text: str) -> str:
    """What a memory says, without the time a log line was written at ("08:30 Netanel said ...")."""
    found = LOG_TIME.match(text)
    return text[found.end() :].strip() if found else text
