"""Memories into workspace files, written so that reading them back gives the same memories.

Each memory goes back to the file and section it was imported from, unless the hub has moved it
since (promoted, re-scoped); memories published live go where their tier, scope and date say.
Everything written is read back by the importer: the order within a section follows where each
memory came from, so that export, import and export again write the same bytes.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, time
from zoneinfo import ZoneInfo

from hub.markdown.entries import clean, render_entry
from hub.markdown.layout import FileKind, FileRef, Layout
from hub.markdown.reader import provenance
from hub.markdown.vocabulary import (
    DATED_BY_FILE,
    DONE_SECTIONS,
    PEOPLE,
    PROJECTS,
    SECTIONS,
    TAGS_SECTION,
    archival_category,
    belongs,
    default_section,
    section_kind,
)
from hub.models import CLOSABLE, Kind, Memory, Scope, State, Tier

SOURCE = re.compile(r"^(?P<path>.+\.md):(?P<line>\d+)$")
_LABEL = re.compile(r"^(?P<label>[A-Za-z][A-Za-z ]{0,20}):")

SortKey = tuple[int, str, int, float, str]


@dataclass(frozen=True)
class Placed:
    memory: Memory
    ref: FileRef
    section: str | None
    session: str | None = None


@dataclass
class Rendering:
    files: dict[str, str] = field(default_factory=dict)
    placed: dict[str, Placed] = field(default_factory=dict)  # memory id -> where it went
    left_out: dict[str, str] = field(default_factory=dict)  # memory id -> why


def sort_key(memory: Memory) -> SortKey:
    """Imported memories in the order of the lines they came from; the others after, oldest first."""
    if found := SOURCE.match(memory.source or ""):
        return (0, found["path"], int(found["line"]), 0.0, "")
    return (1, "", 0, memory.occurred_at.timestamp(), memory.text)


def path_safe(name: str) -> str:
    """A name usable as one path component (a project called `a/b` is written to `a-b.md`)."""
    return re.sub(r"[/\\]+", "-", name).lstrip(".") or "unnamed"


def place(memory: Memory, layout: Layout) -> Placed | None:
    """The file and section a memory is written to; None for memories that expire (never exported)."""
    if memory.scope is Scope.temporary or memory.expires_at is not None:
        return None
    day = memory.occurred_at.astimezone(layout.tz).date()
    found = SOURCE.match(memory.source or "")
    ref = layout.classify(found["path"]) if found else None
    if ref is not None and belongs(memory, ref, zone_day=day):
        section = _section_from_why(memory, ref)
    else:
        ref = home(memory, layout, day)
        section = default_section(ref.kind, memory.kind)
    return Placed(memory, ref, section, memory.session if ref.kind is FileKind.daily else None)


def _section_from_why(memory: Memory, ref: FileRef) -> str | None:
    if (found := provenance(memory, ref.path)) is not None:
        return found.section
    return memory.text if ref.kind is FileKind.conflicts else default_section(ref.kind, memory.kind)


def home(memory: Memory, layout: Layout, day: date) -> FileRef:
    """Where a memory goes by its fields alone."""
    if memory.scope is Scope.person and memory.person:
        return layout.ref(FileKind.archival, category=PEOPLE, name=path_safe(memory.person))
    if memory.scope is Scope.project and memory.project:
        if memory.tier is Tier.archival:
            return layout.ref(FileKind.archival, category=PROJECTS, name=path_safe(memory.project))
        return layout.ref(FileKind.project, project=path_safe(memory.project))
    if memory.tier is Tier.core:
        return layout.ref(FileKind.core)
    if memory.tier is Tier.archival:
        return layout.ref(FileKind.archival, category=archival_category(memory), name=f"{day:%Y-%m}")
    if memory.tier is Tier.semantic and memory.chat:
        chat_type = "groups" if "@g.us" in memory.chat or "group" in memory.chat.lower() else "dms"
        channel = path_safe(memory.channel or "chat")
        return layout.ref(FileKind.chat, channel=channel, chat_type=chat_type, chat=path_safe(memory.chat))
    if memory.tier is Tier.semantic:
        return layout.ref(FileKind.long_term)
    return layout.ref(FileKind.daily, date=day.isoformat())


def render_workspace(memories: Iterable[Memory], *, layout: Layout) -> Rendering:
    rendering = Rendering()
    by_file: dict[str, list[Placed]] = defaultdict(list)
    for memory in memories:
        placed = place(memory, layout)
        if placed is None:
            rendering.left_out[memory.id] = "temporary: it expires, so it is not written to files"
            continue
        rendering.placed[memory.id] = placed
        by_file[placed.ref.path].append(placed)
    for path in sorted(by_file):
        placed_here = sorted(by_file[path], key=lambda p: sort_key(p.memory))
        rendering.files[path] = render_file(placed_here[0].ref, placed_here, layout=layout)
    return rendering


def _title(ref: FileRef) -> str:
    p = ref.params
    match ref.kind:
        case FileKind.long_term:
            return "Long-term memory"
        case FileKind.core:
            return "Core memory"
        case FileKind.daily:
            return p["date"]
        case FileKind.conflicts:
            return f"Conflicts {p['date']}"
        case FileKind.project:
            return p["project"]
        case FileKind.archival:
            return p["name"]
        case FileKind.chat:
            return f"{p['channel']} {p['chat_type'].rstrip('s')} {p['chat']}"
    raise AssertionError(ref.kind)


def render_file(ref: FileRef, placed: list[Placed], *, layout: Layout) -> str:
    """One file's text; `placed` in sort order."""
    out = [f"# {_title(ref)}"]
    if ref.kind is FileKind.conflicts:
        for p in placed:
            out += _conflict_block(p)
    elif ref.kind is FileKind.daily:
        out += _sections(ref, [p for p in placed if p.session is None], level=2, tz=layout.tz)
        sessions: dict[str, list[Placed]] = defaultdict(list)
        for p in placed:
            if p.session is not None:
                sessions[p.session].append(p)
        for session, items in sessions.items():  # in order of their first memory
            out += ["", f"## {clean(session)}", *_sections(ref, items, level=3, tz=layout.tz)]
    else:
        out += _sections(ref, placed, level=2, tz=layout.tz)
    if ref.kind is FileKind.archival:
        found = [provenance(p.memory, ref.path) for p in placed]
        tags = sorted({t for f in found if f for t in f.tags}, key=lambda t: (t.casefold(), t))
        if tags:
            out += ["", f"## {TAGS_SECTION}", "", ", ".join(tags)]
    return "\n".join(out) + "\n"


def _sections(ref: FileRef, placed: list[Placed], *, level: int, tz: ZoneInfo) -> list[str]:
    groups: dict[str | None, list[Placed]] = defaultdict(list)
    for p in placed:
        groups[p.section].append(p)
    known = list(SECTIONS.get(ref.kind, {}))
    order = sorted(groups, key=lambda s: (s is not None, known.index(s) if s in known else len(known)))
    out: list[str] = []
    for section in order:
        if section is not None:
            out += ["", f"{'#' * level} {clean(section)}"]
        out.append("")
        out += [_line(ref, p, tz=tz) for p in groups[section]]
    return out


def _line(ref: FileRef, p: Placed, *, tz: ZoneInfo) -> str:
    memory = p.memory
    text = clean(memory.text)
    # A closed loop or task written like an open one would be taken up again by the agent reading it
    # (and come back open from an import); checked off, or under "Tasks completed", the importer
    # closes it again.
    done = memory.kind in CLOSABLE and memory.state is State.resolved and p.section not in DONE_SECTIONS
    # Something to do outside a section of them is written with its box, as agents write it; the box
    # says its kind (an open loop, or a task once checked).
    in_section = section_kind(ref, p.section)
    boxed = memory.kind in CLOSABLE and in_section not in CLOSABLE
    said = (Kind.task if done else Kind.open_loop) if boxed else in_section
    show_kind = ref.kind is FileKind.long_term or memory.kind is not said or text.startswith("[")
    return render_entry(
        text,
        kind=memory.kind if show_kind else None,
        day=_shown_day(memory, ref, tz),
        evidence=memory.evidence,
        done=done,
        boxed=boxed,
        # Written without it, a private memory would come back from an import for group chats to see.
        private=memory.private,
    )


def _shown_day(memory: Memory, ref: FileRef, tz: ZoneInfo) -> date | None:
    """A line's date, written when the hub knows it: the file said so, or the memory came from elsewhere."""
    if ref.kind in DATED_BY_FILE:
        return None
    local = memory.occurred_at.astimezone(tz)
    found = SOURCE.match(memory.source or "")
    from_here = found is not None and found["path"] == ref.path
    return local.date() if local.time() == time(0) or not from_here else None


def _conflict_block(p: Placed) -> list[str]:
    memory = p.memory
    heading = clean(p.section or memory.text)
    evidence = [clean(e) for e in memory.evidence]
    was = [e for e in evidence if _label(e) == "was"]
    lines = [*was]
    if clean(memory.text) != heading:
        lines.append(f"Now: {clean(memory.text)}")
    lines += [e for e in evidence if _label(e) != "was"]
    return ["", f"## {heading}", "", *(f"- {line}" for line in lines)]


def _label(line: str) -> str:
    found = _LABEL.match(line)
    return found["label"].strip().casefold() if found else ""
