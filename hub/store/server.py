"""The server store: a collection on a Qdrant server, through qdrant-client.

qdrant-client's local mode (`location=":memory:"` or `path=`) runs the same code in pure Python;
it is far too slow for a real hub and is used only in tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient, models

from hub.embedding import DIMENSIONS, ModelIdentity
from hub.models import Memory, Scope, State
from hub.store.base import (
    DENSE,
    DIRECT_ONLY,
    FLOAT_FIELDS,
    KEYWORD_FIELDS,
    RECENCY_WEIGHT,
    RRF_K,
    RRF_WEIGHTS,
    RRF_WEIGHTS_WITH_SENTENCES,
    SENTENCES,
    SPARSE,
    Hit,
    MemoryFilter,
    MemoryPoint,
    Page,
    PayloadPage,
    PayloadPatch,
    SearchMode,
    SearchQuery,
    canonical_id,
    dense_of,
    from_payload,
    page_start,
    payload_patch,
    prefetch_limit,
    to_hit,
    to_payload,
)

# ACORN keeps filtered HNSW search accurate when a filter passes only a few percent of the points;
# the engine uses it only below its selectivity threshold, so broad filters pay nothing.
SEARCH_PARAMS = models.SearchParams(acorn=models.AcornSearchParams(enable=True))
MODEL_RECORD = "memhub_model"


class ServerStore:
    """Memories in one Qdrant collection, created (with its payload indexes) if missing."""

    def __init__(
        self,
        url: str | None = None,
        *,
        api_key: str | None = None,
        location: str | None = None,
        path: Path | None = None,
        collection: str = "memories",
        dimensions: int = DIMENSIONS,
    ) -> None:
        if url is not None:
            self._client = QdrantClient(url=url, api_key=api_key)
        elif path is not None:
            self._client = QdrantClient(path=str(path))
        else:
            self._client = QdrantClient(location=location or ":memory:")
        # Local mode has no payload indexes or HNSW, and warns if asked for them.
        self._server = url is not None
        self._search_params = SEARCH_PARAMS if self._server else None
        self.collection = collection
        self._ensure_collection(dimensions)
        # A collection keeps the size it was created with; `dimensions` is the size of a new one.
        vectors = self._client.get_collection(collection).config.params.vectors
        self.dimensions = vectors[DENSE].size if isinstance(vectors, dict) else dimensions
        # A collection made before sentences were stored has none: `memhub reembed` writes it anew.
        self.has_sentences = isinstance(vectors, dict) and SENTENCES in vectors

    def _ensure_collection(self, dimensions: int) -> None:
        if not self._client.collection_exists(self.collection):
            self._client.create_collection(
                self.collection,
                vectors_config={
                    DENSE: models.VectorParams(size=dimensions, distance=models.Distance.COSINE),
                    SENTENCES: models.VectorParams(
                        size=dimensions,
                        distance=models.Distance.COSINE,
                        multivector_config=models.MultiVectorConfig(
                            comparator=models.MultiVectorComparator.MAX_SIM
                        ),
                    ),
                },
                sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            )
        if not self._server:
            return
        existing = self._client.get_collection(self.collection).payload_schema
        wanted = [(name, models.PayloadSchemaType.KEYWORD) for name in KEYWORD_FIELDS]
        wanted += [(name, models.PayloadSchemaType.FLOAT) for name in FLOAT_FIELDS]
        for name, schema in wanted:
            if name not in existing:
                self._client.create_payload_index(self.collection, name, schema, wait=True)

    def upsert(self, points: Sequence[MemoryPoint]) -> None:
        if not points:
            return
        self._client.upsert(
            self.collection, [_point(point, self.has_sentences) for point in points], wait=True
        )

    def get(self, ids: Sequence[str]) -> list[Memory]:
        wanted = [canonical_id(memory_id) for memory_id in ids]
        points = list(dict.fromkeys(point for point in wanted if point))
        records = self._client.retrieve(self.collection, points, with_payload=True) if points else []
        found = {str(record.id): from_payload(record.payload or {}) for record in records}
        return [found[point] for point in wanted if point in found]

    def vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        points = list(dict.fromkeys(p for i in ids if (p := canonical_id(i))))
        if not points:
            return {}
        records = self._client.retrieve(self.collection, points, with_payload=False, with_vectors=[DENSE])
        return {str(record.id): dense_of(record.vector) for record in records}

    def search(self, query: SearchQuery) -> list[Hit]:
        flt = memory_filter(query.filter)
        sparse = models.SparseVector(indices=query.sparse.indices, values=query.sparse.values)
        # A query of stopwords only has no sparse terms: there is nothing for BM25 to rank.
        has_terms = bool(query.sparse.indices)
        # What to rank and how, held in a Prefetch so that a re-scoring stage can wrap it.
        if query.mode is SearchMode.dense or (query.mode is SearchMode.hybrid and not has_terms):
            stage = models.Prefetch(
                query=query.dense, using=DENSE, filter=flt, params=self._search_params, limit=query.limit
            )
        elif query.mode is SearchMode.sparse:
            if not has_terms:
                return []
            stage = models.Prefetch(query=sparse, using=SPARSE, filter=flt, limit=query.limit)
        else:
            candidates = prefetch_limit(query.limit)
            halves: list[tuple[list[float] | list[list[float]], str]] = [(query.dense, DENSE)]
            weights = RRF_WEIGHTS
            if self.has_sentences:
                halves.append(([query.dense], SENTENCES))
                weights = RRF_WEIGHTS_WITH_SENTENCES
            stage = models.Prefetch(
                prefetch=[
                    *(
                        models.Prefetch(
                            query=vector, using=name, filter=flt, limit=candidates, params=self._search_params
                        )
                        for vector, name in halves
                    ),
                    models.Prefetch(query=sparse, using=SPARSE, filter=flt, limit=candidates),
                ],
                # The prefetches are filtered; a top-level filter would only be merged into them again.
                query=models.RrfQuery(rrf=models.Rrf(k=RRF_K, weights=list(weights))),
                limit=query.limit,
            )
        if query.recency is not None:
            # The same candidates, re-scored: newer memories boosted.
            inner = stage.model_copy(update={"limit": prefetch_limit(query.limit)})
            stage = models.Prefetch(
                prefetch=[inner],
                query=recency_formula(query.recency, now=query.filter.now),
                limit=query.limit,
            )
        response = self._client.query_points(
            self.collection,
            query=stage.query,
            using=stage.using,
            prefetch=stage.prefetch,
            query_filter=stage.filter,
            search_params=stage.params,
            limit=query.limit,
            with_payload=True,
            with_vectors=[DENSE] if query.with_vectors else False,
        )
        return [to_hit(p.payload, p.score, p.vector) for p in response.points]

    def update(self, memory_id: str, fields: dict[str, Any]) -> None:
        current = self.get([memory_id])
        if not current:
            raise KeyError(memory_id)
        changed, removed = payload_patch(current[0], fields)
        if changed:
            self._client.set_payload(self.collection, changed, points=[current[0].id], wait=True)
        if removed:
            self._client.delete_payload(self.collection, removed, points=[current[0].id], wait=True)

    def scroll(self, flt: MemoryFilter, *, limit: int = 100, offset: str | None = None) -> Page:
        start = page_start(offset)
        records, next_id = self._client.scroll(
            self.collection, scroll_filter=memory_filter(flt), limit=limit, offset=start, with_payload=True
        )
        return Page(
            memories=[from_payload(record.payload or {}) for record in records],
            next_offset=None if next_id is None else str(next_id),
        )

    def count(self, flt: MemoryFilter | None = None) -> int:
        result = self._client.count(
            self.collection, count_filter=memory_filter(flt) if flt else None, exact=True
        )
        return result.count

    def delete(self, ids: Sequence[str]) -> None:
        points: list[models.ExtendedPointId] = [point for point in map(canonical_id, ids) if point]
        if points:
            self._client.delete(self.collection, models.PointIdsList(points=points), wait=True)

    def scroll_payloads(self, *, limit: int = 500, offset: str | None = None) -> PayloadPage:
        records, next_id = self._client.scroll(
            self.collection, limit=limit, offset=page_start(offset), with_payload=True, with_vectors=False
        )
        return PayloadPage(
            payloads={str(record.id): record.payload or {} for record in records},
            next_offset=None if next_id is None else str(next_id),
        )

    def patch_payloads(self, patches: Mapping[str, PayloadPatch]) -> None:
        operations: list[models.UpdateOperation] = []
        for memory_id, patch in patches.items():
            if (point := canonical_id(memory_id)) is None:
                continue
            # By filter, not by id: a point deleted meanwhile matches nothing, where an id fails the batch.
            only = models.Filter(must=[models.HasIdCondition(has_id=[point])])
            if patch.set:
                operations.append(
                    models.SetPayloadOperation(set_payload=models.SetPayload(payload=patch.set, filter=only))
                )
            if patch.delete:
                operations.append(
                    models.DeletePayloadOperation(
                        delete_payload=models.DeletePayload(keys=list(patch.delete), filter=only)
                    )
                )
        if operations:
            # One request for the whole batch.
            self._client.batch_update_points(self.collection, operations, wait=True)

    def unindexed_count(self) -> int:
        """None waits for `optimize()`: the server indexes in the background."""
        return 0

    def optimize(self) -> bool:
        """Nothing to do: the server optimizes in the background."""
        return False

    def flush(self) -> None:
        """Writes wait for the server (`wait=True`): they are durable when they return."""

    def when_durable(self, callback: Callable[[], None]) -> None:
        callback()

    def model_identity(self) -> ModelIdentity | None:
        # In the collection's own metadata: it goes wherever the collection's snapshots go.
        record = (self._client.get_collection(self.collection).config.metadata or {}).get(MODEL_RECORD)
        return ModelIdentity(**record) if record else None

    def record_model(self, identity: ModelIdentity) -> None:
        self._client.update_collection(self.collection, metadata={MODEL_RECORD: vars(identity)})

    def close(self) -> None:
        self._client.close()


def _point(point: MemoryPoint, sentences: bool) -> models.PointStruct:
    sparse = models.SparseVector(indices=point.sparse.indices, values=point.sparse.values)
    vectors: dict[str, Any] = {DENSE: point.dense, SPARSE: sparse}
    if sentences:
        vectors[SENTENCES] = point.sentence_rows
    return models.PointStruct(id=point.memory.id, vector=vectors, payload=to_payload(point.memory))


def _any(key: str, values: frozenset[str]) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchAny(any=sorted(str(value) for value in values)))


def _is(key: str, value: str) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchValue(value=str(value)))


def _granted(key: str, granted: frozenset[str] | None) -> list[models.Condition]:
    """The conditions for a memory's `key` (project, person) to be one the asker may read: none when it
    may read any; else the memory names none, or one of `granted`."""
    if granted is None:
        return []
    options: list[models.Condition] = [models.IsEmptyCondition(is_empty=models.PayloadField(key=key))]
    if granted:
        options.append(_any(key, granted))
    return [models.Filter(should=options)]


def memory_filter(flt: MemoryFilter) -> models.Filter:
    """The qdrant-client form of a MemoryFilter; mirrors `hub.store.edge.memory_filter` line for line."""
    must: list[models.Condition] = []
    granted = [*_granted("project", flt.granted_projects), *_granted("person", flt.granted_persons)]
    if flt.all_scopes:
        must.extend(granted)
    else:
        shared = _any("scope", frozenset({Scope.global_, Scope.temporary}))
        visible: list[models.Condition] = [models.Filter(must=[shared, *granted])]
        if flt.project is not None:
            visible.append(models.Filter(must=[_is("scope", Scope.project), _is("project", flt.project)]))
        if flt.person is not None:
            visible.append(models.Filter(must=[_is("scope", Scope.person), _is("person", flt.person)]))
        must.append(models.Filter(should=visible))
    must_not: list[models.Condition] = [
        models.FieldCondition(key="expires_ts", range=models.Range(lte=flt.now.timestamp()))
    ]
    for key, values in (
        ("scope", flt.scopes),
        ("kind", flt.kinds),
        ("agent", flt.agents),
        ("channel", flt.channels),
        ("tier", flt.tiers),
        ("confidence", flt.confidences),
        # Every state at once narrows nothing: no condition (a needless one slows filtered search).
        ("state", None if flt.states == frozenset(State) else flt.states),
        ("related", flt.related),
    ):
        if values is not None:
            must.append(_any(key, values))
    if flt.ids is not None:
        points: list[models.ExtendedPointId] = [p for i in sorted(flt.ids) if (p := canonical_id(i))]
        must.append(models.HasIdCondition(has_id=points))
    if flt.states is None:
        must_not.append(_is("state", State.superseded))
    if flt.exclude_private:
        must_not.append(_is("audience", DIRECT_ONLY))
    for key, start, end in (
        ("occurred_ts", flt.occurred_after, flt.occurred_before),
        ("stated_ts", flt.stated_after, flt.stated_before),  # a list: any statement in the range
    ):
        if start is not None or end is not None:
            after, before = (t.timestamp() if t else None for t in (start, end))
            must.append(models.FieldCondition(key=key, range=models.Range(gte=after, lt=before)))
    return models.Filter(must=must, must_not=must_not)


def recency_formula(half_life: timedelta, *, now: datetime) -> models.FormulaQuery:
    """score + |score| x RECENCY_WEIGHT x 2^(-age / half_life); mirrors `hub.store.edge.recency_formula`."""
    age_decay = models.ExpDecayExpression(
        exp_decay=models.DecayParamsExpression(
            x="occurred_ts", target=now.timestamp(), scale=half_life.total_seconds(), midpoint=0.5
        )
    )
    boost = models.MultExpression(mult=[models.AbsExpression(abs="$score"), RECENCY_WEIGHT, age_decay])
    return models.FormulaQuery(
        formula=models.SumExpression(sum=["$score", boost]), defaults={"occurred_ts": 0.0}
    )
