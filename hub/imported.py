"""The note an imported memory keeps in its `why` of where it sat in the agent's files:
"imported from PATH[, section NAME][; tags: A, B]" (NAME as the import canonicalised it).

`hub.markdown` writes it on import and reads it back on export; the pages and the core block read it
too, and cannot import `hub.markdown`, whose package imports the SDK, which imports them.
"""

from __future__ import annotations

from collections.abc import Sequence

PREFIX = "imported from "
SECTION = ", section "
TAGS = "; tags: "


def why_for(path: str, section: str | None, tags: Sequence[str] = ()) -> str:
    """The note for a line of `path`, in `section`, with an archival file's `tags`."""
    section_part = f"{SECTION}{section}" if section else ""
    tags_part = f"{TAGS}{', '.join(tags)}" if tags else ""
    return f"{PREFIX}{path}{section_part}{tags_part}"


def is_import_note(why: str | None) -> bool:
    """Whether `why` is such a note: where a line was found, not why something was decided."""
    return why is not None and why.startswith(PREFIX)


def imported_section(why: str | None) -> str | None:
    """The section a note names, or None (no note, or a line outside any section)."""
    if why is None or not is_import_note(why):
        return None
    _, found, section = why.partition(TAGS)[0].partition(SECTION)
    return section if found else None
