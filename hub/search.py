"""Scoped retrieval: embed the query once, search the store within what the asker may see, re-rank."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, time, timedelta, tzinfo
from typing import TypeVar

import numpy as np

from hub.embedding import Encoder
from hub.models import Confidence, Kind, Scope, State, Tier, utcnow
from hub.query_dates import Period, named_periods
from hub.ranking import (
    VERSION_LOOKUP,
    by_exchange_and_length,
    maximal_marginal_relevance,
    newest_versions_first,
)
from hub.sparse import SparseEncoder
from hub.store.base import NO_TERMS, Hit, MemoryFilter, MemoryStore, SearchMode, SearchQuery

# Candidates the re-ranking works among (the newest-version lookup, MMR), whatever `limit` is: were it
# to grow with `limit`, a newer version found further down would move into the first hits, and the
# first k hits would depend on how many were asked for. The lookup stays within them: a store query
# of its own around the first hit cost more than it caught (benchmarks/retrieval.py).
POOL = 20
DIVERSITY_POOL = 30
# Candidates asked of the store, as a multiple of those kept: a tie cut at the store's limit is then
# cut where ties are put in order (`Retriever._best`).
TIE_MARGIN = 2
# Fused scores equal but for the order the store added their parts in (2/5 against 1/3 + 1/15) tie.
SCORE_DIGITS = 6
# Hops followed from a superseded hit to the memory that finally superseded it.
MAX_SUCCESSION = 8
# A day or period the query names ("on 5 January", "last week") is searched on its own too, with the
# day after its last: what happened is often told the next day ("the game yesterday").
DAY_WINDOW = timedelta(days=2)

T = TypeVar("T")


def _set(values: Iterable[T] | None) -> frozenset[T] | None:
    return None if values is None else frozenset(values)


@dataclass(frozen=True)
class Retriever:
    """Everything a search needs, built once per process."""

    store: MemoryStore
    embedder: Encoder
    sparse: SparseEncoder
    # Memory id -> the side an open conflict proposes over it (`ledger.proposed_over`).
    proposed_in_conflict: Callable[[Sequence[str]], dict[str, str]] | None = None
    timezone: tzinfo = UTC  # the owner's: where the days a query names begin

    def search(
        self,
        query: str,
        *,
        project: str | None = None,
        person: str | None = None,
        granted_projects: Iterable[str] | None = None,
        granted_persons: Iterable[str] | None = None,
        everywhere: bool = False,
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

        Empty filters (`None`) do not narrow; an empty list matches nothing. `granted_projects` and
        `granted_persons` are what the asker may read (None: any; see `MemoryFilter`); `everywhere`
        searches every project's and person's memories among them too, named or not. `states` overrides
        `include_superseded`; by default every state but superseded is searched. `recency` is a
        half-life: newer memories score higher. `diversity` (0 to 1) trades relevance for variety.
        The newer version of an updated fact ranks above the old one (`hub.ranking`), and so does the
        side an open conflict proposes (the newer, unless the older is the owner's correction).
        """
        if states is None and include_superseded:
            states = frozenset(State)
        flt = MemoryFilter(
            now=utcnow(),
            project=project,
            person=person,
            granted_projects=_set(granted_projects),
            granted_persons=_set(granted_persons),
            scopes=_set(scopes),
            kinds=_set(kinds),
            agents=_set(agents),
            channels=_set(channels),
            tiers=_set(tiers),
            states=_set(states),
            confidences=_set(confidences),
            occurred_after=occurred_after,
            occurred_before=occurred_before,
            related=_set(related),
            exclude_private=exclude_private,
            all_scopes=everywhere,
        )
        pool = POOL if diversity is None else DIVERSITY_POOL
        candidates = SearchQuery(
            dense=self.embedder.encode_one(query),
            sparse=self.sparse.query(query),
            filter=flt,
            limit=pool,
            mode=mode,
            recency=recency,
            with_vectors=True,
        )
        periods = named_periods(query, flt.now.astimezone(self.timezone)) if mode is SearchMode.hybrid else []
        hits, more = self._ranked(candidates, diversity, periods)
        if limit > len(hits) and more:
            # More asked for than the re-ranked candidates: the rest is what a larger pool ranks below
            # them, so the first hits stay the same whatever the limit.
            placed = {hit.memory.id for hit in hits}
            larger, _ = self._ranked(replace(candidates, limit=limit + pool), diversity, periods)
            hits += [hit for hit in larger if hit.memory.id not in placed]
        return hits[:limit]

    def _ranked(
        self, candidates: SearchQuery, diversity: float | None, periods: Sequence[Period] = ()
    ) -> tuple[list[Hit], bool]:
        """The store's best `candidates.limit` hits, re-ranked; and whether the store had more."""
        flt, dense, pool = candidates.filter, candidates.dense, candidates.limit
        # Unless superseded memories are asked for, they are searched too, to be replaced by what
        # superseded them: `states=["active"]` follows a corrected fact as the default does.
        follow = flt.states is None or State.superseded not in flt.states
        searched = frozenset(State) if flt.states is None else flt.states | {State.superseded}
        hits = self._best(
            replace(candidates, filter=replace(flt, states=searched)) if follow else candidates, periods
        )
        more = len(hits) == pool
        if candidates.mode is SearchMode.hybrid:
            # Before successors take their places: a correction takes the place its fact earned.
            hits = by_exchange_and_length(hits)
        if follow:
            hits = self._successors_in_place(hits, flt, dense)
            if len(hits) < pool and more:
                # The versions of a fact updated many times filled the candidates and gave their places
                # to one successor: the rest of the candidates is what ranks below them.
                placed = {hit.memory.id for hit in hits}
                hits += [hit for hit in self._best(candidates, periods) if hit.memory.id not in placed]
        hits = self._contested_below_newer(hits, flt, dense)
        hits = newest_versions_first(hits)
        if diversity is not None:
            hits = maximal_marginal_relevance(hits, diversity=diversity, limit=pool)
        return hits, more

    def _best(self, query: SearchQuery, periods: Sequence[Period] = ()) -> list[Hit]:
        """The store's best `query.limit` hits, ties in the same order every time.

        Hybrid scores are rank fusions and tie often (a message first for BM25 and another first for
        the model); the store returns tied hits in any order, and may cut a tie at its limit. So more
        are asked for, and ties go to the hit closer to the query in meaning, then by id. For each day
        or period the query names, the same query within it (and `DAY_WINDOW`) is fused in: a memory
        found there adds the score it has there to the one it has among all.
        """
        asked = replace(query, limit=query.limit * TIE_MARGIN)
        found = self.store.search(asked)
        for period in periods:
            dated = _within(asked.filter, period, self.timezone)
            if dated is not None:
                found = _fused(found, self.store.search(replace(asked, filter=dated)))
        cosine = _cosines(query.dense, found)
        order = sorted(
            range(len(found)),
            key=lambda i: (-round(found[i].score, SCORE_DIGITS), -cosine[i], found[i].memory.id),
        )
        return [found[i] for i in order[: query.limit]]

    def _successors_in_place(self, hits: Sequence[Hit], flt: MemoryFilter, dense: list[float]) -> list[Hit]:
        """Each superseded hit gives its place to the memory that superseded it (the last of the
        chain), if the asker may see that one: the question matched the old wording, the answer is
        the new. Hits the asker may not see never come back this way; each memory appears once.
        The successor is the same memory's newer version, whatever its kind: a fact corrected by a
        `correction` is found by a search for facts."""
        successor = self._last_successors(
            {
                h.memory.id: h.memory.superseded_by
                for h in hits
                if h.memory.state is State.superseded and h.memory.superseded_by
            }
        )
        found = self._visible(frozenset(successor.values()), replace(flt, kinds=None), dense)
        placed: list[Hit] = []
        seen: set[str] = set()
        for hit in hits:
            chosen = (
                found.get(successor.get(hit.memory.id, "")) if hit.memory.state is State.superseded else hit
            )
            if chosen is not None and chosen.memory.id not in seen:
                seen.add(chosen.memory.id)
                placed.append(chosen)
        return placed

    def _contested_below_newer(self, hits: Sequence[Hit], flt: MemoryFilter, dense: list[float]) -> list[Hit]:
        """Each of the first hits that an open conflict says another memory may have replaced (the side it
        proposes) gets that memory directly above it, if the asker may see it: until the owner decides,
        both show (each hit carries its open conflicts), the proposed one first."""
        first = [h.memory.id for h in hits[:VERSION_LOOKUP]]
        newer = self.proposed_in_conflict(first) if self.proposed_in_conflict and first else {}
        if not newer:
            return list(hits)
        present = {h.memory.id: h for h in hits}
        present.update(self._visible(frozenset(newer.values()) - present.keys(), flt, dense))
        placed = [h.memory.id for h in hits]
        for older in first:
            newest = newer.get(older)
            if newest is None or newest not in present:
                continue
            if newest in placed:
                if placed.index(newest) < placed.index(older):
                    continue
                placed.remove(newest)
            placed.insert(placed.index(older), newest)
        return [present[i] for i in placed]

    def _visible(self, ids: frozenset[str], flt: MemoryFilter, dense: list[float]) -> dict[str, Hit]:
        """Those of `ids` the asker's filter lets through, as hits scored against the query."""
        if not ids:
            return {}
        query = SearchQuery(
            dense=dense,
            sparse=NO_TERMS,
            filter=replace(flt, ids=ids),
            limit=len(ids),
            mode=SearchMode.dense,
            with_vectors=True,
        )
        return {hit.memory.id: hit for hit in self.store.search(query)}

    def _last_successors(self, superseded_by: dict[str, str]) -> dict[str, str]:
        """Where each chain of supersessions ends, one store read per hop for every chain at once (a
        few hops at most; a cycle stops where it closes)."""
        end = dict(superseded_by)
        seen = {start: {start, after} for start, after in superseded_by.items()}
        for _ in range(MAX_SUCCESSION):
            found = {m.id: m for m in self.store.get(list(set(end.values())))}
            moved = False
            for start, at in end.items():
                memory = found.get(at)
                after = memory.superseded_by if memory and memory.state is State.superseded else None
                if after is not None and after not in seen[start]:
                    seen[start].add(after)
                    end[start] = after
                    moved = True
            if not moved:
                break
        return end


def _cosines(query: Sequence[float], hits: Sequence[Hit]) -> np.ndarray:
    """Each hit's vector against the query (0 for a hit without one), in one matrix product: the
    vectors are converted once, not once per hit."""
    width = len(query)
    vectors = np.asarray([h.vector if h.vector else [0.0] * width for h in hits], dtype=np.float64)
    return vectors.reshape(-1, width) @ np.asarray(query, dtype=np.float32)


def _within(flt: MemoryFilter, period: Period, zone: tzinfo) -> MemoryFilter | None:
    """`flt` narrowed to what happened from the period's first day to `DAY_WINDOW` after its last day's
    start; None if it lets nothing of those days through."""
    first, last = period
    start = datetime.combine(first, time(), tzinfo=zone)
    end = datetime.combine(last, time(), tzinfo=zone) + DAY_WINDOW
    after = max(start, flt.occurred_after) if flt.occurred_after else start
    before = min(end, flt.occurred_before) if flt.occurred_before else end
    return replace(flt, occurred_after=after, occurred_before=before) if after < before else None


def _fused(found: Sequence[Hit], dated: Sequence[Hit]) -> list[Hit]:
    """Both lists' hits, a hit in both with the sum of its scores, as rank fusion over more lists adds
    them up (`Retriever._best` puts them in order)."""
    extra = {hit.memory.id: hit.score for hit in dated}
    merged = [replace(hit, score=hit.score + extra.pop(hit.memory.id, 0.0)) for hit in found]
    return merged + [hit for hit in dated if hit.memory.id in extra]
