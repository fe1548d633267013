"""Gathering what the signals need beyond a memory: uses, corrections, core ties, open loops."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from redis import Redis

from hub.conflicts import ledger
from hub.conflicts.ledger import Conflict, ConflictStatus
from hub.keys import Keys
from hub.models import Kind, Memory, Scope, State, Tier, utcnow
from hub.promotion.signals import Context
from hub.promotion.usage import use_counts
from hub.settings import Settings
from hub.store.base import MemoryFilter, MemoryStore

IN_PLAY = frozenset({Kind.decision, Kind.open_loop})


@dataclass
class ContextLoader:
    """Loads contexts for one batch of memories, asking the store about each person or project once."""

    store: MemoryStore
    redis: Redis
    keys: Keys
    settings: Settings
    _core: dict[tuple[Scope, str], bool] = field(default_factory=dict)

    def load(self, memories: Sequence[Memory]) -> dict[str, Context]:
        if not memories:
            return {}
        used = use_counts(self.redis, self.keys, [m.id for m in memories])
        # The memories' own conflicts: reading those recorded since the oldest memory was, a use of a
        # memory from last year read every conflict recorded since.
        about = ledger.conflicts_about(self.redis, self.keys, [m.id for m in memories])
        decided = [c for c in about if c.resolution is not None]
        return {m.id: self._context(m, used.get(m.id, 0), decided) for m in memories}

    def _context(self, memory: Memory, used: int, decided: Sequence[Conflict]) -> Context:
        kept = [c for c in decided if c.resolution and c.resolution.keep == memory.id]
        corrects: list[Memory] = []
        if memory.kind is Kind.correction:
            losers = {*memory.related, *(m for c in kept for m in c.memory_ids)} - {memory.id}
            corrects = [m for m in self.store.get(sorted(losers)) if m.superseded_by == memory.id]
        by_owner = [
            c.id
            for c in kept
            if c.status is ConflictStatus.resolved and c.resolution and c.resolution.by != "hub"
        ]
        links = self.store.get([r for r in memory.related if r != memory.id])
        return Context(
            used=used,
            corrects=tuple(corrects),
            kept_by_owner=tuple(by_owner),
            core_people=self._core_names(Scope.person, memory.person, memory.subject),
            core_projects=self._core_names(Scope.project, memory.project),
            open_links=tuple(m for m in links if m.kind in IN_PLAY and m.state is State.active),
            project_in_play=self._in_play(memory),
        )

    def _core_names(self, scope: Scope, *names: str | None) -> frozenset[str]:
        """Which of `names` are core: named in the settings, or with memories of their own in core."""
        configured = self.settings.core_people if scope is Scope.person else self.settings.core_projects
        wanted = {n.casefold() for n in configured}
        return frozenset(
            n.casefold() for n in names if n and (n.casefold() in wanted or self._has_core(scope, n))
        )

    def _has_core(self, scope: Scope, name: str) -> bool:
        if (scope, name) not in self._core:
            project, person = (name, None) if scope is Scope.project else (None, name)
            flt = MemoryFilter(
                now=utcnow(),
                project=project,
                person=person,
                scopes=frozenset({scope}),
                tiers=frozenset({Tier.core}),
            )
            self._core[(scope, name)] = self.store.count(flt) > 0
        return self._core[(scope, name)]

    def _in_play(self, memory: Memory) -> int:
        """Other active decisions and open loops in the memory's project."""
        if memory.scope is not Scope.project or memory.project is None:
            return 0
        flt = MemoryFilter(
            now=utcnow(),
            project=memory.project,
            scopes=frozenset({Scope.project}),
            kinds=IN_PLAY,
            states=frozenset({State.active}),
        )
        itself = memory.kind in IN_PLAY and memory.state is State.active
        return max(self.store.count(flt) - int(itself), 0)
