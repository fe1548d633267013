"""Scoped retrieval: embed the query once, search the store within what the asker may see, re-rank."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

from hub.embedding import Embedder
from hub.models import Confidence, Kind, Scope, State, Tier, utcnow
from hub.ranking import maximal_marginal_relevance, newest_versions_first
from hub.sparse import SparseEncoder
from hub.store.base import Hit, MemoryFilter, MemoryStore, SearchMode, SearchQuery

# Candidates fetched, as multiples of `limit`: the newest-version lookup searches among them, and MMR
# chooses among them when diversity is on.
VERSION_POOL = 2
DIVERSITY_POOL = 3
MIN_POOL = 20

T = TypeVar("T")


def _set(values: Iterable[T] | None) -> frozenset[T] | None:
    return None if values is None else frozenset(values)


@dataclass(frozen=True)
class Retriever:
    """Everything a search needs, built once per process."""

    store: MemoryStore
    embedder: Embedder
    sparse: SparseEncoder

    def search(
        self,
        query: str,
        *,
        project: str | None = None,
        person: str | None = None,
        scopes: Iterable[Scope] | None = None,
        kinds: Iterable[Kind] | None = None,
        agents: Iterable[str] | None = None,
        channels: Iterable[str] | None = None,
        tiers: Iterable[Tier] | None = None,
        states: Iterable[State] | None = None,
        confidences: Iterable[Confidence] | None = None,
        occurred_after: datetime | None = None,
        occurred_before: datetime | None = None,
        related: Iterable[str] | None = None,
        exclude_private: bool = False,
        include_superseded: bool = False,
        limit: int = 10,
        mode: SearchMode = SearchMode.hybrid,
        recency: timedelta | None = None,
        diversity: float | None = None,
    ) -> list[Hit]:
        """The `limit` best memories for `query` that the filters let through, best first.

        Empty filters (`None`) do not narrow; an empty list matches nothing. `states` overrides
        `include_superseded`; by default every state but superseded is searched. `recency` is a
        half-life: newer memories score higher. `diversity` (0 to 1) trades relevance for variety.
        The newer version of an updated fact ranks above the old one (`hub.ranking`).
        """
        if states is None and include_superseded:
            states = frozenset(State)
        flt = MemoryFilter(
            now=utcnow(), project=project, person=person, scopes=_set(scopes), kinds=_set(kinds),
            agents=_set(agents), channels=_set(channels), tiers=_set(tiers), states=_set(states),
            confidences=_set(confidences), occurred_after=occurred_after, occurred_before=occurred_before,
            related=_set(related), exclude_private=exclude_private,
        )  # fmt: skip
        # More candidates than asked for: newer versions of the first hits are looked for among them.
        pool = max(limit * (VERSION_POOL if diversity is None else DIVERSITY_POOL), MIN_POOL)
        hits = self.store.search(
            SearchQuery(
                dense=self.embedder.encode_one(query),
                sparse=self.sparse.query(query),
                filter=flt,
                limit=pool,
                mode=mode,
                recency=recency,
                with_vectors=True,
            )
        )
        hits = newest_versions_first(hits)
        if diversity is not None:
            hits = maximal_marginal_relevance(hits, diversity=diversity, limit=limit)
        return hits[:limit]
