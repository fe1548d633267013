"""Reading a workspace: every memory line becomes an event, or a reason why it did not."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time
from pathlib import Path
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from pydantic import ValidationError

from hub.errors import describe_validation_error
from hub.imported import read_note, why_for
from hub.markdown.blocks import Block, read_blocks
from hub.markdown.entries import Entry, clean, parse_entry, split_tags
from hub.markdown.layout import FileKind, FileRef, Layout
from hub.markdown.vocabulary import (
    DAILY_SECTIONS,
    DATED_BY_FILE,
    DONE_SECTIONS,
    NOMINATIONS,
    PROJECT_SECTIONS,
    STANDING,
    TAGS_SECTION,
    canonical_section,
    file_base,
    section_kind,
)
from hub.models import CLOSABLE, EventCreate, Kind, Memory, Nature, Origin
from hub.screening import SecretInEvent, screen

# Imported events get ids derived from what they say and where, so importing twice stores once.
IMPORT_NAMESPACE = uuid.UUID("0c6f3a52-6d61-4b1e-9c8e-6d61726b646e")
_CLOCK = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")
_LEADING_CLOCK = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")
_NAMED_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}")  # what a daily file's name looks like
_LABEL = re.compile(r"^(?P<label>[A-Za-z][A-Za-z ]{0,20}):\s*(?P<rest>.*)$")
# Lines of a conflict block that carry the settled statement, and those that say it was settled.
NOW_LABELS = {"now", "new", "correct", "current"}
RESOLVED_LABELS = {"resolution", "resolved", "decision", "decided"}


def event_id_for(agent: str, path: str, text: str) -> str:
    normalised = " ".join(text.casefold().split())
    return "md-" + uuid.uuid5(IMPORT_NAMESPACE, f"{agent}\n{path}\n{normalised}").hex


@dataclass(frozen=True)
class Provenance:
    section: str | None
    tags: tuple[str, ...] = ()


def provenance(memory: Memory, path: str) -> Provenance | None:
    """Where a memory imported from `path` sat in it (its origin, or an older memory's note); else None."""
    if memory.origin is not None:
        origin = memory.origin
        return Provenance(origin.section, tuple(origin.tags)) if origin.path == path else None
    note = read_note(memory.why, path)
    return Provenance(note.section, tuple(split_tags(note.tags))) if note else None


@dataclass(frozen=True)
class Skipped:
    source: str
    reason: str


@dataclass
class Reading:
    events: list[EventCreate] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    files: int = 0
    # Open loops checked off (`- [x] …`): an event cannot say so, so the importer closes them once stored.
    closed: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class _Item:
    line: int
    entry: Entry
    section: str | None
    session: str | None = None
    when: time | None = None  # a time of day from the heading above it


class Progress(Protocol):
    """Where reading reports the lines it has read (a tqdm bar is one)."""

    total: float | None

    def update(self, n: float | None = 1) -> bool | None: ...


@dataclass
class _Lines:
    """The lines of one file read so far, counted into `progress`."""

    progress: Progress | None
    done: int = 0

    def reach(self, line: int) -> None:
        if self.progress is not None and line > self.done:
            self.progress.update(line - self.done)
        self.done = max(self.done, line)


def read_workspace(
    root: Path, *, layout: Layout, agent: str, channel: str | None = None, progress: Progress | None = None
) -> Reading:
    """Every memory in the workspace at `root`, as events ready to publish; `progress` counts its lines."""
    reading = Reading()
    reading.skipped += [Skipped(path, _unmatched_reason(path)) for path in layout.unmatched(root)]
    texts: list[tuple[FileRef, str]] = []
    for ref in layout.files(root):
        reading.files += 1
        try:
            # utf-8-sig: a byte order mark (Notepad writes one) would hide the first line's markup.
            texts.append((ref, (root / ref.path).read_text(encoding="utf-8-sig")))
        except (OSError, UnicodeDecodeError) as exc:
            reading.skipped.append(Skipped(ref.path, f"unreadable: {exc}"))
    if progress is not None:
        progress.total = sum(text.count("\n") + 1 for _, text in texts)
    for ref, text in texts:
        blocks, skips = read_blocks(text)
        reading.skipped += [Skipped(f"{ref.path}:{s.line}", s.reason) for s in skips]
        lines = _Lines(progress)
        _read_file(ref, blocks, reading, agent=agent, channel=channel, tz=layout.tz, lines=lines)
        lines.reach(text.count("\n") + 1)
    reading.skipped.sort(key=lambda s: _source_order(s.source))
    kinds = {ref.kind for ref, _ in texts}
    if FileKind.long_term in kinds and FileKind.core not in kinds:
        # An agent that loaded MEMORY.md whole every session finds its core block empty: say why.
        reading.notes.append(
            f"no {layout.core[0].template}: this agent's core block starts empty; {layout.long_term[0].template}'s "
            "lines are long-term memories, searched, and move to core as they come up often "
            "(memhub promotions list)"
        )
    return reading


def _unmatched_reason(path: str) -> str:
    """Why a file the layout does not match was left out, and what would bring it in."""
    if found := _NAMED_DATE.search(path.rpartition("/")[2]):
        year, month, day = (int(part) for part in found[0].split("-"))
        try:
            date(year, month, day)
        except ValueError:
            return f"not imported: {found[0]} is not a date (a daily file is named YYYY-MM-DD.md)"
        return "not imported: a daily file is named YYYY-MM-DD.md (`--layout` can add other patterns)"
    return "not imported: not a memory file of the layout (`--layout` can add other patterns)"


def _source_order(source: str) -> tuple[str, int]:
    path, _, line = source.rpartition(":")
    return (path, int(line)) if line.isdigit() else (source, 0)


def _read_file(
    ref: FileRef,
    blocks: list[Block],
    reading: Reading,
    *,
    agent: str,
    channel: str | None,
    tz: ZoneInfo,
    lines: _Lines,
) -> None:
    base = file_base(ref)
    tags = _tags(ref, blocks)
    seen: dict[str, int] = {}
    items = (
        _conflict_items(ref, blocks, reading.skipped)
        if ref.kind is FileKind.conflicts
        else _items(ref, blocks, reading.skipped)
    )
    for item in items:
        lines.reach(item.line)
        source = f"{ref.path}:{item.line}"
        entry = item.entry
        kind = entry.kind or section_kind(ref, item.section)
        section = canonical_section(ref.kind, item.section) if item.section else None
        if entry.boxed and section == NOMINATIONS:
            # "- [x] Yes: voice-notes preference" answers the session's question whether to keep a fact
            # long-term; the hub proposes promotions itself from how often a memory comes up.
            reading.skipped.append(
                Skipped(source, "an answer to a promotion question: see memhub promotions list")
            )
            continue
        if entry.kind is None and entry.boxed and kind not in CLOSABLE:
            # A box is something to do wherever it sits ("## 09:15 session", "- [ ] Call the plumber"):
            # an open loop, or a task done when checked.
            kind = Kind.task if entry.done else Kind.open_loop
        if kind is Kind.deduced and not entry.evidence:
            kind = Kind.fact
            reading.notes.append(f"{source}: a deduction without evidence, imported as a fact")
        event_id = event_id_for(agent, ref.path, entry.text)
        if event_id in seen:
            reading.skipped.append(Skipped(source, f"the same text as line {seen[event_id]}"))
            continue
        day = entry.day or base.day  # None: the line and its file say no date
        fields: dict[str, Any] = {
            "id": event_id,
            "text": entry.text,
            "agent": agent,
            "kind": kind,
            "evidence": list(entry.evidence),
            "tier": base.tier,
            "scope": base.scope,
            "project": base.project,
            "person": base.person,
            "channel": base.channel or channel,
            "chat": base.chat,
            "session": item.session,
            "private": entry.private,
            "nature": _nature(ref, kind, section),
            "occurred_at": _occurred_at(day, item.when, tz),
            "source": source,
            "why": why_for(ref.path, item.section, tags, undated=day is None),
            "origin": Origin(
                path=ref.path, section=item.section, line=item.line, tags=tags, undated=day is None
            ),
        }
        try:
            # The hub's own screen: a line it would refuse for a secret is skipped here, not sent.
            event = screen(EventCreate.model_validate({k: v for k, v in fields.items() if v is not None}))
        except ValidationError as exc:
            reading.skipped.append(Skipped(source, describe_validation_error(exc)))
            continue
        except SecretInEvent as exc:
            kinds = ", ".join(dict.fromkeys(f.kind for f in exc.findings))
            reading.skipped.append(Skipped(source, f"holds a secret ({kinds}) in its {exc.field}"))
            continue
        seen[event_id] = item.line
        reading.events.append(event)
        # Checked off, or listed as done: an open loop or a task is closed once stored.
        done = entry.done or item.section in DONE_SECTIONS
        if done and kind in CLOSABLE:
            reading.closed.add(event_id)


def _nature(ref: FileRef, kind: Kind, section: str | None) -> Nature | None:
    """A daily log records what happened, short of its decisions, deductions and the facts it nominates
    for long-term memory, which hold until they change; elsewhere the hub infers it."""
    if ref.kind is FileKind.daily and kind not in STANDING and section != NOMINATIONS:
        return Nature.event
    return None


def _occurred_at(day: date | None, when: time | None, tz: ZoneInfo) -> datetime | None:
    return datetime.combine(day, when or time(0), tzinfo=tz) if day else None


def _clock(heading: str | None) -> time | None:
    found = _CLOCK.search(heading or "")
    return time(int(found[1]), int(found[2])) if found else None


def _tags(ref: FileRef, blocks: list[Block]) -> list[str]:
    """An archival file's Tags section, which applies to every memory in the file."""
    if ref.kind is not FileKind.archival:
        return []
    tags: list[str] = []
    for block in blocks:
        if block.headings and canonical_section(ref.kind, block.headings[-1]) == TAGS_SECTION:
            tags += split_tags(block.text)
    return list(dict.fromkeys(tags))


def _items(ref: FileRef, blocks: list[Block], skipped: list[Skipped]) -> Iterator[_Item]:
    dated = ref.kind not in DATED_BY_FILE
    for block in blocks:
        entry = parse_entry(block.text, dated=dated)
        if not entry.text:
            continue
        if ref.kind is FileKind.long_term and not block.bullet:
            skipped.append(
                Skipped(f"{ref.path}:{block.line}", "not an entry (MEMORY.md entries are `- [FACT] …`)")
            )
            continue
        if block.items and _lead_in(entry.text):
            skipped.append(
                Skipped(f"{ref.path}:{block.line}", "a lead-in: the items under it carry its words")
            )
            continue
        entry = _under_parents(entry, [parse_entry(p, dated=dated) for p in block.parents])
        if ref.kind is not FileKind.daily:
            section = canonical_section(ref.kind, block.headings[-1]) if block.headings else None
            if ref.kind is FileKind.project and section not in PROJECT_SECTIONS:
                entry, section = _labelled_section(entry, section)
            if section != TAGS_SECTION or ref.kind is not FileKind.archival:
                yield _Item(block.line, entry, section)
            continue
        # Daily files: a `##` heading is a session ("Session Summary — 09:40") unless it names a known
        # section; the known section under it (or the innermost heading) is the line's section.
        known = [canonical_section(ref.kind, h) for h in block.headings]
        session = clean(block.headings[0]) if block.headings and known[0] not in DAILY_SECTIONS else None
        inner = [h for h in known if h in DAILY_SECTIONS] or known[1 if session else 0 :]
        # The time a line starts with ("09:15 Booked the dentist") is more precise than its session's.
        when = _clock(leading[0]) if (leading := _LEADING_CLOCK.match(entry.text)) else _clock(session)
        yield _Item(block.line, entry, inner[-1] if inner else None, session, when)


def _labelled_section(entry: Entry, section: str | None) -> tuple[Entry, str | None]:
    """A project's "**Status:** tiles ordered" under no known heading: the label names the section."""
    label = _LABEL.match(entry.text)
    named = canonical_section(FileKind.project, label["label"]) if label and label["rest"] else None
    if entry.kind is not None or label is None or named not in PROJECT_SECTIONS:
        return entry, section
    return replace(entry, text=label["rest"]), named


def _lead_in(text: str) -> bool:
    """ "Noa's kids:" or "**Noa**" above a list: words that mean something only with the items under them."""
    return text.endswith(":") or (len(text.split()) <= 3 and not text.endswith((".", "!", "?")))


def _under_parents(entry: Entry, parents: list[Entry]) -> Entry:
    """A nested item with the words of the bullets it sits under ("Noa's kids: Maya is allergic to
    kiwi"), and their tag and date where it has none of its own."""
    if not parents:
        return entry
    text = ""
    for words in [p.text for p in parents if p.text] + [entry.text]:
        joiner = " " if not text or text.endswith((".", "!", "?", ":")) else ": "
        text = f"{text}{joiner}{words}"
    kind = entry.kind or next((p.kind for p in reversed(parents) if p.kind), None)
    day = entry.day or next((p.day for p in reversed(parents) if p.day), None)
    private = entry.private or any(p.private for p in parents)
    return replace(entry, text=text.strip(), kind=kind, day=day, private=private)


def _conflict_items(ref: FileRef, blocks: list[Block], skipped: list[Skipped]) -> Iterator[_Item]:
    """One memory per `##` block: a correction when it was settled, else an open loop.

    The `Now:` line is the memory's text (the block's heading when there is none); the other lines
    are its evidence, kept word for word.
    """
    groups: dict[int, list[Block]] = {}
    for block in blocks:
        if block.headings:
            groups.setdefault(block.heading_line, []).append(block)
        else:
            skipped.append(
                Skipped(f"{ref.path}:{block.line}", "outside a conflict (no `##` heading above it)")
            )
    for heading_line, group in groups.items():
        heading = clean(group[0].headings[0])
        text, evidence, settled = heading, [], False
        for block in group:
            line = clean(block.text)
            label = _LABEL.match(line)
            name = label["label"].strip().casefold() if label else ""
            if name in NOW_LABELS and text == heading and label and label["rest"]:
                text = label["rest"]
                continue
            settled = settled or name in RESOLVED_LABELS
            evidence.append(line)
        kind = Kind.correction if settled else Kind.open_loop
        yield _Item(heading_line, Entry(text, kind, None, tuple(evidence)), heading, None, _clock(heading))
