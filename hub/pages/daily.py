"""A day as the `memory/daily/YYYY-MM-DD.md` an agent keeps: sessions, decisions, work done, notes."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from pydantic import BaseModel, Field

from hub.imported import is_import_note
from hub.models import Kind, Memory, Sighting, State, utcnow
from hub.pages.common import EVERY_STATE, marks, one_line, reason, ref, text_of
from hub.store.base import MemoryFilter, MemoryStore, scroll_all
from hub.summaries import Part, part_of


class DailyPage(BaseModel):
    day: date
    agent: str | None = Field(description="Whose day; null: every agent's.")
    path: str = Field(description="Where an agent keeps this file, e.g. `memory/daily/2026-11-29.md`.")
    markdown: str
    memory_ids: list[str] = Field(description="The memories on the page, in page order.")


def _window(day: date, zone: tzinfo) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time(), tzinfo=zone)
    end = datetime.combine(day + timedelta(days=1), time(), tzinfo=zone)  # 23 or 25 hours on a DST change
    return start, end


def _first(memory: Memory) -> Sighting:
    """The statement that made the memory."""
    return Sighting(
        event_id=memory.event_id, agent=memory.agent, channel=memory.channel, at=memory.occurred_at
    )


def stated_on(memory: Memory, day: date, *, agent: str | None, zone: tzinfo = UTC) -> Sighting | None:
    """When and by whom `memory` was first said on `day` (by `agent`; by anyone: None): it happened then,
    or it was said again then (a restatement the hub folded into the memory first noted earlier)."""
    start, end = _window(day, zone)
    if start <= memory.occurred_at < end and agent in (None, memory.agent):
        return _first(memory)
    again = [s for s in memory.sightings if start <= s.at < end and agent in (None, s.agent)]
    return min(again, key=lambda s: s.at, default=None)


def day_memories(
    store: MemoryStore, day: date, *, agent: str | None, zone: tzinfo = UTC, exclude_private: bool = False
) -> list[Memory]:
    """What happened or was said again on `day` in the owner's time `zone`, in every scope and state, in
    the order it was said that day; none private to direct conversations when `exclude_private` (a page
    read in a group chat)."""
    start, end = _window(day, zone)
    every = MemoryFilter(now=utcnow(), states=EVERY_STATE, all_scopes=True, exclude_private=exclude_private)
    mine = frozenset({agent}) if agent else None
    happened = replace(every, agents=mine, occurred_after=start, occurred_before=end)
    # Said again that day, by whoever said it: `stated_on` keeps those `agent` said.
    restated = replace(every, stated_after=start, stated_before=end)
    found = {m.id: m for flt in (happened, restated) for m in scroll_all(store, flt)}
    # A copy compaction merged away is superseded and kept: its statement shows once, in what kept it.
    kept = {s.event_id for m in found.values() for s in m.sightings[1:]}
    found = {i: m for i, m in found.items() if not (m.state is State.superseded and m.event_id in kept)}
    said = {i: s.at for i, m in found.items() if (s := stated_on(m, day, agent=agent, zone=zone)) is not None}
    return sorted((found[i] for i in said), key=lambda m: (said[m.id], m.created_at, m.id))


def _line(
    memory: Memory, said: Sighting, *, agent: str | None, zone: tzinfo, box: bool = False, tag: bool = False
) -> str:
    """One memory as a bullet (when it was said that day, text, kind for notes, who said it on every
    agent's page, when it was first noted if earlier), with a decision's why and a deduction's evidence
    beneath it."""
    checkbox = ("[x] " if _done(memory) else "[ ] ") if box else ""
    kind = f" ({memory.kind.value})" if tag and memory.kind is not Kind.fact else ""
    who = "" if agent else f" ({said.agent})"
    again = ""
    if said.at != memory.occurred_at:
        again = (
            f" _(said again; first noted {memory.occurred_at.astimezone(zone):%Y-%m-%d} by {memory.agent})_"
        )
    nominated = " _(nominated for long-term memory)_" if part_of(memory.event_id) is Part.promote else ""
    at = f"{clock} " if (clock := _clock(memory, said, zone)) else ""
    lines = [f"- {checkbox}{at}{text_of(memory)}{kind}{who}{marks(memory)}{again}{nominated}"]
    lines[0] += ref(memory)
    why = reason(memory) if memory.kind is Kind.decision else None
    lines += [f"  - why: {why}"] if why else []
    lines += [f"  - evidence: {one_line(e)}" for e in memory.evidence]
    return "\n".join(lines)


def _clock(memory: Memory, said: Sighting, zone: tzinfo) -> str:
    """When it was said that day ("09:40"), or "" for a line imported from a file that gave its day but
    no time of day: the import dates it at midnight in the owner's zone, and "00:00" would be news."""
    at = said.at.astimezone(zone)
    untimed = said.at == memory.occurred_at and at.time() == time(0) and is_import_note(memory.why)
    return "" if untimed else f"{at:%H:%M}"


def _done(memory: Memory) -> bool:
    return memory.state is State.resolved or part_of(memory.event_id) is Part.task


SECTIONS = (
    ("Decisions", Kind.decision),
    ("Tasks", Kind.task),
    ("Patterns noticed", Kind.deduced),
    ("Open loops", Kind.open_loop),
)


def render(day: date, memories: list[Memory], *, agent: str | None, zone: tzinfo = UTC) -> DailyPage:
    """The page, its times in the owner's time `zone` (the one `day_memories` cut the day in)."""
    title = f"{agent}'s day" if agent else "every agent's day"
    lines = [f"# {day.isoformat()}", "", f"_{title}: {len(memories)} memories_"]
    order: list[Memory] = []
    said = {m.id: stated_on(m, day, agent=agent, zone=zone) or _first(m) for m in memories}

    def section(heading: str, group: list[Memory], bullets: list[str]) -> None:
        if group:
            lines.extend(["", f"## {heading}", "", *bullets])
            order.extend(group)

    def who_when(m: Memory) -> str:
        """Who said it that day, and when: "tali, 09:40" ("tali" for an imported line with no time)."""
        return ", ".join(filter(None, [said[m.id].agent, _clock(m, said[m.id], zone)]))

    summaries = [m for m in memories if m.kind is Kind.summary]
    section(
        "Sessions",
        summaries,
        [f"- **{m.session or 'session'}** ({who_when(m)}): {one_line(m.text)}{ref(m)}" for m in summaries],
    )
    for heading, kind in SECTIONS:
        group = [m for m in memories if m.kind is kind]
        boxes = heading in ("Tasks", "Open loops")
        section(heading, group, [_line(m, said[m.id], agent=agent, zone=zone, box=boxes) for m in group])
    listed = {m.id for m in order}
    notes = [m for m in memories if m.id not in listed]
    section("Notes", notes, [_line(m, said[m.id], agent=agent, zone=zone, tag=True) for m in notes])
    if not memories:
        lines.extend(["", "Nothing was recorded on this day."])
    return DailyPage(
        day=day,
        agent=agent,
        path=f"memory/daily/{day.isoformat()}.md",
        markdown="\n".join(lines) + "\n",
        memory_ids=[m.id for m in order],
    )
