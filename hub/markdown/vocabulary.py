"""What each kind of file means: the tier and scope of its memories, its sections and their kinds.

The reader and the renderer both work from these tables, so that what export writes, import reads
back as the same memories.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from hub.markdown.entries import clean
from hub.markdown.layout import FileKind, FileRef
from hub.models import Kind, Memory, Scope, Tier

_AROUND_WORDS = re.compile(r"^\W+|\W+$")

# Known sections, in the order export writes them, with the kind of an untagged line in each.
# A file may hold other sections too: their lines take the file's default kind.
DAILY_SECTIONS = {
    "Summary": Kind.summary,
    "Decisions made": Kind.decision,
    "Tasks completed": Kind.task,
    "Deduced patterns": Kind.deduced,
    "Open loops": Kind.open_loop,
    "Notes": Kind.fact,
    "Promote?": Kind.fact,
}
# A session's question which facts to keep long-term; its lines are facts nominated.
NOMINATIONS = "Promote?"
# Kinds that hold until they change, wherever they are written (a daily log's lines are otherwise events).
STANDING = frozenset({Kind.decision, Kind.deduced, Kind.preference, Kind.correction, Kind.status})
# Sections whose tasks and loops were done when written: they are closed once imported.
DONE_SECTIONS = frozenset({"Tasks completed"})
PROJECT_SECTIONS = {
    "Status": Kind.status,
    "Open loops": Kind.open_loop,
    "Key decisions": Kind.decision,
    "Notes": Kind.fact,
}
CORE_SECTIONS = {
    "Identity": Kind.fact,
    "User": Kind.fact,
    "Active Context": Kind.status,
    "Quick Reference": Kind.fact,
}
ARCHIVAL_SECTIONS = {"Summary": Kind.summary, "Details": Kind.fact, "Tags": Kind.fact}
TAGS_SECTION = "Tags"

SECTIONS: dict[FileKind, dict[str, Kind]] = {
    FileKind.daily: DAILY_SECTIONS,
    FileKind.project: PROJECT_SECTIONS,
    FileKind.core: CORE_SECTIONS,
    FileKind.archival: ARCHIVAL_SECTIONS,
}

# Archival folders and what they hold.
PEOPLE, PROJECTS, DECISIONS, LEARNINGS, REFERENCE = (
    "people",
    "projects",
    "decisions",
    "learnings",
    "reference",
)

# Files whose lines carry no date of their own: the file name gives it.
DATED_BY_FILE = {FileKind.daily, FileKind.conflicts}


def section_key(name: str) -> str:
    """What identifies a section: its words, whatever their case, bold markers, emoji or punctuation
    around them ("## 📌 **Decisions Made:**" is "Decisions made")."""
    return _AROUND_WORDS.sub("", clean(name)).casefold()


# Other names agents give the known sections (by `section_key`): "## Decisions" holds decisions in a
# daily log as in a project file. Export writes the known name.
_ALIASES: dict[FileKind, dict[str, str]] = {
    FileKind.daily: {
        "decisions": "Decisions made",
        "key decisions": "Decisions made",
        "done": "Tasks completed",
        "completed": "Tasks completed",
        "tasks done": "Tasks completed",
        "completed tasks": "Tasks completed",
        "todo": "Open loops",
        "to do": "Open loops",
        "to-do": "Open loops",
        "open items": "Open loops",
        "patterns": "Deduced patterns",
        "promote": "Promote?",
        "promote to memory.md": "Promote?",
        "promote to long-term memory": "Promote?",
    },
    FileKind.project: {
        "decisions": "Key decisions",
        "decisions made": "Key decisions",
        "todo": "Open loops",
        "to do": "Open loops",
        "to-do": "Open loops",
        "open items": "Open loops",
        "current status": "Status",
    },
}


def canonical_section(kind: FileKind, name: str) -> str:
    """A known section's usual spelling ("decisions made:" -> "Decisions made", "Decisions" in a daily
    log too), else the name as written."""
    key = section_key(name)
    for known in SECTIONS.get(kind, {}):
        if section_key(known) == key:
            return known
    return _ALIASES.get(kind, {}).get(key) or name.strip().rstrip(":").strip()


@dataclass(frozen=True)
class FileBase:
    """The fields every memory of one file shares."""

    tier: Tier
    scope: Scope = Scope.global_
    project: str | None = None
    person: str | None = None
    channel: str | None = None
    chat: str | None = None
    day: date | None = None
    default_kind: Kind = Kind.fact


def file_base(ref: FileRef) -> FileBase:
    p = ref.params
    match ref.kind:
        case FileKind.long_term:
            return FileBase(Tier.semantic)
        case FileKind.core:
            return FileBase(Tier.core)
        case FileKind.daily:
            return FileBase(Tier.episodic, day=ref.day, default_kind=Kind.summary)
        case FileKind.conflicts:
            return FileBase(Tier.episodic, day=ref.day, default_kind=Kind.correction)
        case FileKind.project:
            return FileBase(Tier.semantic, scope=Scope.project, project=p["project"])
        case FileKind.chat:
            return FileBase(Tier.semantic, channel=p["channel"], chat=p["chat"])
        case FileKind.archival:
            category = p.get("category")
            if category == PEOPLE:
                return FileBase(Tier.archival, scope=Scope.person, person=p["name"])
            if category == PROJECTS:
                return FileBase(Tier.archival, scope=Scope.project, project=p["name"])
            return FileBase(Tier.archival, default_kind=Kind.decision if category == DECISIONS else Kind.fact)
    raise AssertionError(ref.kind)


def section_kind(ref: FileRef, section: str | None) -> Kind:
    """The kind of an untagged line in `section` of this file."""
    base = file_base(ref)
    name = None if section is None else canonical_section(ref.kind, section)
    if ref.kind is FileKind.archival and name != "Summary":
        return base.default_kind  # Details of a decisions folder are decisions
    return SECTIONS.get(ref.kind, {}).get(name or "", base.default_kind)


def belongs(memory: Memory, ref: FileRef, *, zone_day: date | None) -> bool:
    """Whether importing `ref` could have produced this memory as it is now (tier, scope, chat, day).

    A memory goes back to the file it came from unless the hub has moved it since (promoted it,
    re-scoped it); then it goes where its fields say.
    """
    base = file_base(ref)
    return (
        memory.tier is base.tier
        and memory.scope is base.scope
        and memory.project == base.project
        and memory.person == base.person
        and memory.chat == base.chat
        and (base.channel is None or memory.channel == base.channel)
        and (base.day is None or zone_day == base.day)
        and (ref.kind is not FileKind.conflicts or memory.kind in {Kind.correction, Kind.open_loop})
    )


def default_section(kind: FileKind, memory_kind: Kind) -> str | None:
    """Where a memory that did not come from this file goes in it (None: before any section)."""
    match kind:
        case FileKind.daily:
            if memory_kind is Kind.summary:
                return None
            return next((s for s, k in DAILY_SECTIONS.items() if k is memory_kind), "Notes")
        case FileKind.project:
            return next((s for s, k in PROJECT_SECTIONS.items() if k is memory_kind), "Notes")
        case FileKind.core:
            return "Active Context" if memory_kind in {Kind.status, Kind.open_loop} else "Quick Reference"
        case FileKind.archival:
            return "Summary" if memory_kind is Kind.summary else "Details"
    return None


def archival_category(memory: Memory) -> str:
    if memory.scope is Scope.person:
        return PEOPLE
    if memory.scope is Scope.project:
        return PROJECTS
    return {Kind.decision: DECISIONS, Kind.deduced: LEARNINGS}.get(memory.kind, REFERENCE)
