"""Where an imported memory sat in the agent's files: its `origin` (`hub.models.Origin`), or, for
memories imported before origins were kept, the note in its `why`:
"imported from PATH[, section NAME][; tags: A, B][; undated]" (NAME as the import canonicalised it;
"undated": the line said no date, so when it was said is not known, only that it was by the import).

`hub.markdown` writes it on import and reads it back on export; the pages and the core block read it
too, and cannot import `hub.markdown`, whose package imports the SDK, which imports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hub.models import Memory, Origin

PREFIX = "imported from "
SECTION = ", section "
TAGS = "; tags: "
UNDATED = "; undated"


def why_for(path: str, section: str | None, tags: Sequence[str] = (), *, undated: bool = False) -> str:
    """The note for a line of `path`, in `section`, with an archival file's `tags`; `undated`: the line
    and its file said no date."""
    section_part = f"{SECTION}{section}" if section else ""
    tags_part = f"{TAGS}{', '.join(tags)}" if tags else ""
    return f"{PREFIX}{path}{section_part}{tags_part}{UNDATED if undated else ''}"


@dataclass(frozen=True)
class Note:
    path: str
    section: str | None
    tags: str  # as written: "family, Haifa"
    undated: bool = False


def read_note(why: str | None, path: str | None = None) -> Note | None:
    """The note `why` holds, or None (no note: a reason, or nothing). With `path`, only a note of that
    file, read knowing where its path ends (one file's name may start like another's)."""
    if why is None or not why.startswith(PREFIX):
        return None
    undated = why.endswith(UNDATED)
    rest = why.removeprefix(PREFIX).removesuffix(UNDATED)
    if path is None:
        head, _, tags = rest.partition(TAGS)
        path, _, section = head.partition(SECTION)
        return Note(path, section or None, tags, undated)
    if not rest.startswith(path):
        return None
    head, _, tags = rest.removeprefix(path).partition(TAGS)
    if head and not head.startswith(SECTION):
        return None  # another file whose name starts like this one's
    return Note(path, head.removeprefix(SECTION) or None, tags, undated)


def is_import_note(why: str | None) -> bool:
    """Whether `why` is such a note: where a line was found, not why something was decided."""
    return read_note(why) is not None


def origin_of(memory: Memory) -> Origin | None:
    """Where the memory was imported from: its origin, else what its `why` note says (a memory imported
    before origins were kept), else None."""
    if memory.origin is not None:
        return memory.origin
    note = read_note(memory.why)
    if note is None:
        return None
    tags = [tag.strip() for tag in note.tags.split(",") if tag.strip()]
    return Origin(path=note.path, section=note.section, tags=tags, undated=note.undated)


def imported_section(memory: Memory) -> str | None:
    """The section the memory was imported from, or None (not imported, or outside any section)."""
    origin = origin_of(memory)
    return origin.section if origin else None


def said_when_unknown(memory: Memory) -> bool:
    """Whether the memory is a line imported without a date: its time is the import's, not when it was said."""
    origin = origin_of(memory)
    return origin is not None and origin.undated
