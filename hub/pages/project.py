"""A project file rendered from its project-scoped memories: status, open loops, key decisions and why,
and the notes (everything else said about the project)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from hub.models import Kind, Memory, Scope, State, utcnow
from hub.pages.common import EVERY_STATE, line_start, marks, one_line, reason, ref
from hub.promotion.tiers import RANK
from hub.store.base import MemoryFilter, MemoryStore, scroll_all

CLOSED_SHOWN = 10
# A project file is read whole by an agent: the newest notes, the rest found by searching the project.
NOTES_SHOWN = 20
# What the page's own sections hold; every other kind in force is a note, but a session's summary: it
# repeats the items it became, and the daily page lists the sessions.
NOT_NOTES = frozenset({Kind.status, Kind.open_loop, Kind.decision, Kind.summary})


class ProjectPage(BaseModel):
    name: str
    path: str = Field(description="Where an agent keeps this file, e.g. `memory/projects/memhub.md`.")
    markdown: str
    status: Memory | None = Field(description="The latest status reported; null when none was.")
    open_loops: list[Memory] = Field(description="Still open, oldest first.")
    decisions: list[Memory] = Field(
        description="In force, long-term and best-scored first; a decision reversed since is replaced by "
        "what reversed it (a correction, often)."
    )
    notes: list[Memory] = Field(
        description=f"The {NOTES_SHOWN} newest of the rest in force (facts, preferences, deductions, ...; "
        "no session summaries), newest first."
    )
    notes_left_out: int = Field(description="Notes in force beyond those shown: search the project for them.")
    closed_loops: list[Memory] = Field(description=f"The {CLOSED_SHOWN} most recently closed.")


def project_memories(store: MemoryStore, name: str, *, exclude_private: bool = False) -> list[Memory]:
    """The project's memories in every state, and what superseded them wherever it was published (a
    correction reversing a project's decision may name no project), none private when `exclude_private`."""
    flt = MemoryFilter(
        now=utcnow(),
        project=name,
        scopes=frozenset({Scope.project}),
        states=EVERY_STATE,
        exclude_private=exclude_private,
    )
    found = list(scroll_all(store, flt))
    known = {m.id for m in found}
    missing = {m.superseded_by for m in found if m.superseded_by} - known
    while missing:
        newer = [m for m in store.get(sorted(missing)) if not (exclude_private and m.private)]
        found.extend(newer)
        known |= {m.id for m in newer}
        missing = {m.superseded_by for m in newer if m.superseded_by} - known
    return sorted(found, key=lambda m: (m.occurred_at, m.created_at, m.id))


def reversals(memories: list[Memory]) -> dict[str, Memory]:
    """What stands now for each decision superseded (the end of its chain of supersessions), by its id,
    with the decision it replaced: a reversed decision is shown as its newest version, never dropped."""
    by_id = {m.id: m for m in memories}
    found: dict[str, Memory] = {}
    for old in memories:
        if old.kind is not Kind.decision or old.state is not State.superseded:
            continue
        newest, seen = old, {old.id}
        while newest.superseded_by in by_id and newest.superseded_by not in seen:
            newest = by_id[newest.superseded_by]
            seen.add(newest.id)
        if newest.state in (State.active, State.stale) and newest.kind is not Kind.decision:
            found.setdefault(newest.id, old)
    return found


def closed_at(memory: Memory) -> datetime:
    """When a loop was closed: its latest `resolved` change (when it happened, should none be recorded)."""
    return max((c.at for c in memory.history if c.action == "resolved"), default=memory.occurred_at)


def _when(memory: Memory) -> str:
    return f"{memory.occurred_at:%Y-%m-%d}, {memory.agent}"


def _kind(memory: Memory) -> str:
    return "" if memory.kind is Kind.fact else f" ({memory.kind.value})"


def render(name: str, memories: list[Memory]) -> ProjectPage:
    in_force = [m for m in memories if m.state in (State.active, State.stale)]
    statuses = [m for m in in_force if m.kind is Kind.status]
    status = statuses[-1] if statuses else None
    loops = [m for m in in_force if m.kind is Kind.open_loop]
    resolved = [m for m in memories if m.kind is Kind.open_loop and m.state is State.resolved]
    # Most recently closed first: an old loop closed today belongs on top, not under newer ones.
    closed = sorted(resolved, key=lambda m: (closed_at(m), m.occurred_at), reverse=True)[:CLOSED_SHOWN]
    replaced = reversals(memories)
    decisions = sorted(
        (m for m in in_force if m.kind is Kind.decision or m.id in replaced),
        key=lambda m: (-RANK[m.tier], -m.promotion_score, -m.occurred_at.timestamp()),
    )
    in_notes = [m for m in reversed(in_force) if m.kind not in NOT_NOTES and m.id not in replaced]
    notes = in_notes[:NOTES_SHOWN]

    lines = [f"# {line_start(name)}", "", "## Status", ""]
    if status is None:
        lines.append("_No status reported yet._")
    else:
        lines.append(f"{line_start(status.text)} _({_when(status)})_{ref(status)}")
    lines.extend(["", "## Open loops", ""])
    lines.extend([f"- [ ] {one_line(m.text)} _(since {_when(m)})_{ref(m)}" for m in loops] or ["_None._"])
    lines.extend(["", "## Key decisions", ""])
    for m in decisions:
        lines.append(f"- **{one_line(m.text)}** _({_when(m)})_{marks(m)}{ref(m)}")
        lines.append(f"  - why: {why}" if (why := reason(m)) else "  - why: _not recorded_")
        if m.id in replaced:
            lines.append(f"  - replaces: ~~{one_line(replaced[m.id].text)}~~{ref(replaced[m.id])}")
    if not decisions:
        lines.append("_No decisions recorded._")
    if notes:
        lines.extend(["", "## Notes", ""])
        lines.extend(f"- {one_line(m.text)}{_kind(m)} _({_when(m)})_{marks(m)}{ref(m)}" for m in notes)
    if len(in_notes) > len(notes):
        lines.extend(["", f"_{len(in_notes) - len(notes)} older notes: search the project for them._"])
    if closed:
        lines.extend(["", "## Recently closed", ""])
        lines.extend(f"- [x] {one_line(m.text)} _({_when(m)})_{ref(m)}" for m in closed)
    return ProjectPage(
        name=name,
        path=f"memory/projects/{name}.md",
        markdown="\n".join(lines) + "\n",
        status=status,
        open_loops=loops,
        decisions=decisions,
        notes=notes,
        notes_left_out=len(in_notes) - len(notes),
        closed_loops=closed,
    )
