"""A project file rendered from its project-scoped memories: status, open loops, key decisions and why."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from hub.models import Kind, Memory, Scope, State, utcnow
from hub.pages.common import EVERY_STATE, marks, one_line, ref
from hub.promotion.tiers import RANK
from hub.store.base import MemoryFilter, MemoryStore, scroll_all

CLOSED_SHOWN = 10


class ProjectPage(BaseModel):
    name: str
    path: str = Field(description="Where an agent keeps this file, e.g. `memory/projects/memhub.md`.")
    markdown: str
    status: Memory | None = Field(description="The latest status reported; null when none was.")
    open_loops: list[Memory] = Field(description="Still open, oldest first.")
    decisions: list[Memory] = Field(description="In force, long-term and best-scored first.")
    closed_loops: list[Memory] = Field(description=f"The {CLOSED_SHOWN} most recently closed.")


def project_memories(store: MemoryStore, name: str) -> list[Memory]:
    flt = MemoryFilter(now=utcnow(), project=name, scopes=frozenset({Scope.project}), states=EVERY_STATE)
    return sorted(scroll_all(store, flt), key=lambda m: (m.occurred_at, m.created_at, m.id))


def closed_at(memory: Memory) -> datetime:
    """When a loop was closed: its latest `resolved` change (when it happened, should none be recorded)."""
    return max((c.at for c in memory.history if c.action == "resolved"), default=memory.occurred_at)


def _when(memory: Memory) -> str:
    return f"{memory.occurred_at:%Y-%m-%d}, {memory.agent}"


def render(name: str, memories: list[Memory]) -> ProjectPage:
    in_force = [m for m in memories if m.state in (State.active, State.stale)]
    statuses = [m for m in in_force if m.kind is Kind.status]
    status = statuses[-1] if statuses else None
    loops = [m for m in in_force if m.kind is Kind.open_loop]
    resolved = [m for m in memories if m.kind is Kind.open_loop and m.state is State.resolved]
    # Most recently closed first: an old loop closed today belongs on top, not under newer ones.
    closed = sorted(resolved, key=lambda m: (closed_at(m), m.occurred_at), reverse=True)[:CLOSED_SHOWN]
    decisions = sorted(
        (m for m in in_force if m.kind is Kind.decision),
        key=lambda m: (-RANK[m.tier], -m.promotion_score, -m.occurred_at.timestamp()),
    )

    lines = [f"# {name}", "", "## Status", ""]
    if status is None:
        lines.append("_No status reported yet._")
    else:
        lines.append(f"{one_line(status.text)} _({_when(status)})_{ref(status)}")
    lines.extend(["", "## Open loops", ""])
    lines.extend([f"- [ ] {one_line(m.text)} _(since {_when(m)})_{ref(m)}" for m in loops] or ["_None._"])
    lines.extend(["", "## Key decisions", ""])
    for m in decisions:
        lines.append(f"- **{one_line(m.text)}** _({_when(m)})_{marks(m)}{ref(m)}")
        lines.append(f"  - why: {one_line(m.why)}" if m.why else "  - why: _not recorded_")
    if not decisions:
        lines.append("_No decisions recorded._")
    if closed:
        lines.extend(["", "## Recently closed", ""])
        lines.extend(f"- [x] {one_line(m.text)} _({_when(m)})_{ref(m)}" for m in closed)
    return ProjectPage(
        name=name, path=f"memory/projects/{name}.md", markdown="\n".join(lines) + "\n", status=status,
        open_loops=loops, decisions=decisions, closed_loops=closed,
    )  # fmt: skip
