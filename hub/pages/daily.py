"""A day as the `memory/daily/YYYY-MM-DD.md` an agent keeps: sessions, decisions, work done, notes."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, tzinfo

from pydantic import BaseModel, Field

from hub.models import Kind, Memory, State, utcnow
from hub.pages.common import EVERY_STATE, marks, one_line, ref, text_of
from hub.store.base import MemoryFilter, MemoryStore, scroll_all
from hub.summaries import Part, part_of


class DailyPage(BaseModel):
    day: date
    agent: str | None = Field(description="Whose day; null: every agent's.")
    path: str = Field(description="Where an agent keeps this file, e.g. `memory/daily/2026-11-29.md`.")
    markdown: str
    memory_ids: list[str] = Field(description="The memories on the page, in page order.")


def day_memories(
    store: MemoryStore, day: date, *, agent: str | None, zone: tzinfo = UTC, exclude_private: bool = False
) -> list[Memory]:
    """What happened on `day` in the owner's time `zone`, in every scope and state, in the order it happened;
    none private to direct conversations when `exclude_private` (a page read in a group chat)."""
    start = datetime.combine(day, time(), tzinfo=zone)
    end = datetime.combine(day + timedelta(days=1), time(), tzinfo=zone)  # 23 or 25 hours on a DST change
    flt = MemoryFilter(
        now=utcnow(), agents=frozenset({agent}) if agent else None, states=EVERY_STATE, all_scopes=True,
        occurred_after=start, occurred_before=end, exclude_private=exclude_private,
    )  # fmt: skip
    return sorted(scroll_all(store, flt), key=lambda m: (m.occurred_at, m.created_at, m.id))


def _line(memory: Memory, *, agent: str | None, zone: tzinfo, box: bool = False, tag: bool = False) -> str:
    """One memory as a bullet (time, text, kind for notes, author on every agent's page), with a
    decision's why and a deduction's evidence beneath it."""
    checkbox = ("[x] " if _done(memory) else "[ ] ") if box else ""
    kind = f" ({memory.kind.value})" if tag and memory.kind is not Kind.fact else ""
    who = "" if agent else f" ({memory.agent})"
    nominated = " _(nominated for long-term memory)_" if part_of(memory.event_id) is Part.promote else ""
    lines = [
        f"- {checkbox}{memory.occurred_at.astimezone(zone):%H:%M} {text_of(memory)}{kind}{who}{marks(memory)}{nominated}"
    ]
    lines[0] += ref(memory)
    lines += [f"  - why: {one_line(memory.why)}"] if memory.why and memory.kind is Kind.decision else []
    lines += [f"  - evidence: {one_line(e)}" for e in memory.evidence]
    return "\n".join(lines)


def _done(memory: Memory) -> bool:
    return memory.state is State.resolved or part_of(memory.event_id) is Part.task


SECTIONS = (("Decisions", Kind.decision), ("Tasks", Kind.task), ("Patterns noticed", Kind.deduced),
            ("Open loops", Kind.open_loop))  # fmt: skip


def render(day: date, memories: list[Memory], *, agent: str | None, zone: tzinfo = UTC) -> DailyPage:
    """The page, its times in the owner's time `zone` (the one `day_memories` cut the day in)."""
    title = f"{agent}'s day" if agent else "every agent's day"
    lines = [f"# {day.isoformat()}", "", f"_{title}: {len(memories)} memories_"]
    order: list[Memory] = []

    def section(heading: str, group: list[Memory], bullets: list[str]) -> None:
        if group:
            lines.extend(["", f"## {heading}", "", *bullets])
            order.extend(group)

    summaries = [m for m in memories if m.kind is Kind.summary]
    section("Sessions", summaries, [
        f"- **{m.session or 'session'}** ({m.agent}, {m.occurred_at.astimezone(zone):%H:%M}): "
        f"{one_line(m.text)}{ref(m)}"
        for m in summaries
    ])  # fmt: skip
    for heading, kind in SECTIONS:
        group = [m for m in memories if m.kind is kind]
        boxes = heading in ("Tasks", "Open loops")
        section(heading, group, [_line(m, agent=agent, zone=zone, box=boxes) for m in group])
    listed = {m.id for m in order}
    notes = [m for m in memories if m.id not in listed]
    section("Notes", notes, [_line(m, agent=agent, zone=zone, tag=True) for m in notes])
    if not memories:
        lines.extend(["", "Nothing was recorded on this day."])
    return DailyPage(
        day=day, agent=agent, path=f"memory/daily/{day.isoformat()}.md", markdown="\n".join(lines) + "\n",
        memory_ids=[m.id for m in order],
    )  # fmt: skip
