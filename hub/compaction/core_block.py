"""The core block: an agent's most important memories as markdown, within a hard budget.

The sections are the ones agents already keep (Identity, User, Active Context, Quick Reference).
Memories are taken most important first (promotion score, then recency), each that fits beside the
ones before it, so one long memory leaves out itself and not everything after it; what does not fit is
counted in one closing "See archival" line, and search still finds it. The same
cut decides what compaction demotes, so after a compaction the block shows every core memory.

A memory in an open conflict says so in its line ("disputed: open conflict c-..."), as its search
hits carry `conflict_ids`: the block is in the agent's context at every turn, and without the mark it
would state a fact another agent contradicts, and the owner has not settled, as settled. The mark's
words count toward the budget, in the block and in the cut compaction makes alike.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime

from pydantic import BaseModel, Field
from redis import Redis

from hub.compaction.scan import LIVE
from hub.conflicts.judge.text import parse
from hub.conflicts.ledger import open_conflicts_of
from hub.imported import imported_section
from hub.keys import Keys
from hub.models import Kind, Memory, Scope, Tier
from hub.settings import CoreBudget, Settings
from hub.store.base import MemoryFilter, MemoryStore, scroll_all

SECTIONS = ("Identity", "User", "Active Context", "Quick Reference")
ACTIVE_KINDS = frozenset({Kind.status, Kind.open_loop, Kind.task})
# A structured subject that names the agent itself puts the memory under Identity.
SELF_SUBJECTS = frozenset({"self", "agent", "assistant"})


class CoreBlock(BaseModel):
    """The rendered block and what went into it."""

    agent: str
    markdown: str = Field(description="Put this in the agent's context at session start.")
    words: int
    lines: int
    budget: CoreBudget
    memory_ids: list[str] = Field(description="The memories shown, most important first.")
    left_out: list[str] = Field(
        description="Core memories over budget, not shown: the next compaction moves them to archival."
    )
    archived: int = Field(description="Archival memories of this agent the closing line points to.")
    conflicts: dict[str, list[str]] = Field(
        default_factory=dict,
        description="For each memory shown that sits in an open conflict, the conflicts' ids "
        "(its line is marked disputed): settle them with the owner before relying on it.",
    )


# Memory id -> ids of the open conflicts it sits in; memories in none are absent.
Disputed = Mapping[str, Sequence[str]]
NONE_DISPUTED: Disputed = {}


def disputed_of(redis: Redis, keys: Keys, memories: Sequence[Memory]) -> dict[str, list[str]]:
    """Which of `memories` sit in open conflicts, and in which (the ledger's sets, one round trip)."""
    found = open_conflicts_of(redis, keys, [m.id for m in memories])
    return {memory_id: ids for memory_id, ids in found.items() if ids}


def importance(memory: Memory) -> tuple[float, float, float, str]:
    """Sort key, most important first: promotion score, last verified, occurred; id breaks ties."""
    verified, occurred = memory.last_verified.timestamp(), memory.occurred_at.timestamp()
    return (-memory.promotion_score, -verified, -occurred, memory.id)


def section_of(memory: Memory, agent: str) -> str:
    # A line imported from a core file stays in its section: "I am Tali, Noa's assistant" under
    # Identity was shown under User, as a fact about someone the owner knows.
    # (The import wrote the section's usual spelling: "## 📌 **identity:**" is Identity.)
    section = imported_section(memory)
    if section is not None and section in SECTIONS:
        return section
    subject = (memory.subject or "").casefold()
    if subject in SELF_SUBJECTS or subject == agent.casefold():
        return "Identity"
    if memory.kind in ACTIVE_KINDS or memory.scope in (Scope.project, Scope.temporary):
        return "Active Context"
    if memory.kind is Kind.preference or memory.scope is Scope.person or parse(memory.text).subject.key:
        return "User"  # about the owner or someone they know
    return "Quick Reference"


def bullet(memory: Memory, conflicts: Sequence[str] = ()) -> str:
    line = "- " + " ".join(memory.text.split())
    if conflicts:
        line += f" (disputed: open conflict{'s' if len(conflicts) > 1 else ''} {', '.join(conflicts)})"
    return line


def pointer(count: int) -> str:
    return f"- See archival: {count} more memories; search finds them."


def _heading(agent: str) -> list[str]:
    return [f"# Core memory: {agent}"] + [f"## {section}" for section in SECTIONS]


def fitting(
    ordered: Sequence[Memory], agent: str, budget: CoreBudget, *, archived: int, disputed: Disputed
) -> list[Memory]:
    """Those of `ordered` (most important first) the block can show within `budget`, in that order."""
    fixed = _heading(agent)
    words = sum(len(line.split()) for line in fixed)
    lines = len(fixed)
    costs = [len(bullet(m, disputed.get(m.id, ())).split()) for m in ordered]
    pointer_words = len(pointer(1).split())
    if archived == 0 and words + sum(costs) <= budget.words and lines + len(costs) <= budget.lines:
        return list(ordered)
    # Something is or will be in archival: keep room for the line that points there.
    words, lines = words + pointer_words, lines + 1
    shown = []
    for memory, cost in zip(ordered, costs, strict=True):
        # Skipped, not stopped at: a memory longer than the room left must not push out all after it.
        if words + cost <= budget.words and lines + 1 <= budget.lines:
            words, lines = words + cost, lines + 1
            shown.append(memory)
    return shown


def split_core(
    memories: Sequence[Memory], agent: str, budget: CoreBudget, *, archived: int, disputed: Disputed
) -> tuple[list[Memory], list[Memory]]:
    """(kept, over budget): the most important memories that fit, and the rest, each most important first.

    `disputed` (see `disputed_of`) marks lines, which costs words: block and compaction must pass the same.
    """
    ordered = sorted(memories, key=importance)
    kept = fitting(ordered, agent, budget, archived=archived, disputed=disputed)
    shown = {m.id for m in kept}
    return kept, [m for m in ordered if m.id not in shown]


def render_core(
    agent: str,
    memories: Sequence[Memory],
    *,
    budget: CoreBudget,
    archived: int,
    disputed: Disputed = NONE_DISPUTED,
) -> CoreBlock:
    """The block for these core memories; deterministic for the same memories, conflicts and budget."""
    shown, left_out = split_core(memories, agent, budget, archived=archived, disputed=disputed)
    sections: dict[str, list[str]] = {section: [] for section in SECTIONS}
    for memory in shown:
        sections[section_of(memory, agent)].append(bullet(memory, disputed.get(memory.id, ())))
    lines = [f"# Core memory: {agent}"]
    for section, bullets in sections.items():
        lines += [f"## {section}", *bullets]
    if archived or left_out:
        lines.append(pointer(archived + len(left_out)))
    markdown = "\n".join(lines) + "\n"
    return CoreBlock(
        agent=agent,
        markdown=markdown,
        words=len(markdown.split()),
        lines=len(lines),
        budget=budget,
        memory_ids=[m.id for m in shown],
        left_out=[m.id for m in left_out],
        archived=archived,
        conflicts={m.id: list(disputed[m.id]) for m in shown if disputed.get(m.id)},
    )


def read_core(
    store: MemoryStore,
    redis: Redis,
    keys: Keys,
    budget: CoreBudget,
    *,
    agent: str,
    now: datetime,
    person: str | None = None,
    project: str | None = None,
    exclude_private: bool = False,
) -> CoreBlock:
    """The agent's core block as it may see it: global memories, plus the named person's and project's;
    none `private` to direct conversations when `exclude_private` (a session in a group chat)."""

    def visible(tier: Tier) -> MemoryFilter:
        return MemoryFilter(
            now=now,
            person=person,
            project=project,
            agents=frozenset({agent}),
            tiers=frozenset({tier}),
            states=LIVE,
            exclude_private=exclude_private,
        )

    core = list(scroll_all(store, visible(Tier.core)))
    archived = store.count(visible(Tier.archival))
    return render_core(agent, core, budget=budget, archived=archived, disputed=disputed_of(redis, keys, core))


def agents_over_budget(
    store: MemoryStore, redis: Redis, keys: Keys, settings: Settings, *, now: datetime
) -> list[str]:
    """Agents whose whole core (every scope) no longer fits their budget, sorted."""
    unscoped = MemoryFilter(now=now, all_scopes=True, tiers=frozenset({Tier.core}), states=LIVE)
    cores: dict[str, list[Memory]] = defaultdict(list)
    for memory in scroll_all(store, unscoped):
        cores[memory.agent].append(memory)
    over = []
    for agent, core in sorted(cores.items()):
        archival = MemoryFilter(
            now=now, all_scopes=True, agents=frozenset({agent}), tiers=frozenset({Tier.archival}), states=LIVE
        )
        _, left_out = split_core(
            core,
            agent,
            settings.core_budget(agent),
            archived=store.count(archival),
            disputed=disputed_of(redis, keys, core),
        )
        if left_out:
            over.append(agent)
    return over
