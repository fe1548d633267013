"""Scoped retrieval: embed the query once, search the store within what the asker may see."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hub.embedding import Embedder
from hub.models import Kind, Scope, State, utcnow
from hub.sparse import SparseEncoder
from hub.store.base import Hit, MemoryFilter, MemoryStore, SearchMode, SearchQuery


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
        limit: int = 10,
        mode: SearchMode = SearchMode.hybrid,
        include_superseded: bool = False,
    ) -> list[Hit]:
        flt = MemoryFilter(
            now=utcnow(),
            project=project,
            person=person,
            scopes=frozenset(scopes) if scopes else None,
            kinds=frozenset(kinds) if kinds else None,
            states=frozenset(State) if include_superseded else None,
        )
        return self.store.search(
            SearchQuery(
                dense=self.embedder.encode_one(query),
                sparse=self.sparse.query(query),
                filter=flt,
                limit=limit,
                mode=mode,
            )
        )
