"""The embedded store: a qdrant-edge shard in a local directory, owned by one process."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from hub.embedding import DIMENSIONS, ModelIdentity
from hub.models import Memory, Scope, State
from hub.store import index_copy
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

log = logging.getLogger(__name__)

# ACORN keeps filtered HNSW search accurate when a filter passes only a few percent of the points.
# The engine uses it below a selectivity (0.4 by default), and the visibility filter of an ordinary
# search passes about a third of the memories: there it costs time, and is worth it in recall (the
# numbers are in benchmarks/ingest_search.py).
SEARCH_PARAMS = qe.SearchParams(acorn=qe.AcornSearchParams(enable=True))


# One search thread. A search runs right after the model encodes its query, and the engine's default
# pool (a thread per core) then competes with the model's threads (the numbers:
# benchmarks/ingest_search.py).
SEARCH_THREADS = 1


# Segments as large as the engine makes them (one per ~340k memories on two cores). Capping them
# (`EdgeOptimizersConfig(max_segment_size=...)`) shortens each indexing stop but adds segments, each
# searched on its own, and search latency is what agents wait for (the numbers:
# benchmarks/ingest_search.py).
def shard_config(dimensions: int = DIMENSIONS, *, sentences: bool = True) -> qe.EdgeConfig:
    vectors = {DENSE: qe.EdgeVectorParams(size=dimensions, distance=qe.Distance.Cosine)}
    if sentences:
        vectors[SENTENCES] = qe.EdgeVectorParams(
            size=dimensions,
            distance=qe.Distance.Cosine,
            multivector_config=qe.MultiVectorConfig(qe.MultiVectorComparator.MaxSim),
        )
    return qe.EdgeConfig(
        vectors=vectors,
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        max_search_threads=SEARCH_THREADS,
    )


class StoreInUse(RuntimeError):
    """Another process has the shard open: one process at a time can."""


# The model that wrote the shard, beside the engine's own files: it is copied, moved and lost with them.
MODEL_RECORD = "memhub-model.json"


def stored_vectors(path: Path) -> dict[str, Any] | None:
    """The named vectors an existing shard was created with (name -> its parameters, as the engine
    wrote them); None where there is no shard yet."""
    config = path / "edge_config.json"
    return dict(json.loads(config.read_text())["vectors"]) if config.exists() else None


def stored_config(path: Path, dimensions: int = DIMENSIONS) -> qe.EdgeConfig:
    """The config for the shard at `path` with dense vectors of `dimensions`: with sentences unless the
    shard was made before they were stored. Loading with it checks the stored vectors are what this
    code writes."""
    vectors = stored_vectors(path)
    return shard_config(dimensions, sentences=vectors is None or SENTENCES in vectors)


def _open_shard(path: Path, dimensions: int, *, sentences: bool) -> qe.EdgeShard:
    """The shard at `path`, loaded with the vectors it was made with (`stored_vectors`), or created."""
    path.mkdir(parents=True, exist_ok=True)
    config = shard_config(dimensions, sentences=sentences)
    try:
        if (path / "edge_config.json").exists():
            return qe.EdgeShard.load(str(path), config)
        return qe.EdgeShard.create(str(path), config)
    except Exception as exc:  # the binding raises a bare Exception; only its text says what happened
        if "WouldBlock" not in str(exc):
            raise
        raise StoreInUse(
            f"the embedded store in {path.resolve()} is open in another process (one process at a time "
            "can open it)"
        ) from exc


class EdgeStore:
    """Memories in a qdrant-edge shard at `path`: created if missing, loaded if present.

    Writes are fsynced within a second, or at `flush()`. The shard's WAL alone survives a crash of this
    process but not of the machine: its writes reach the page cache only, and `flush()` is what
    fsyncs them.

    Safe to share between threads: the binding holds the GIL for each call, so calls never
    interleave anyway, and a lock keeps each off the shard while `optimize` swaps it. `update` reads
    then writes, so a lock makes it atomic.
    """

    def __init__(
        self,
        path: Path,
        *,
        flush_interval: float = 1.0,
        dimensions: int = DIMENSIONS,
        index_niceness: int = 10,
    ) -> None:
        index_copy.recover(path)
        # A shard keeps the size it was created with; `dimensions` is the size of a new one. One made
        # before sentences were stored has none: `memhub reembed` writes it anew, with them.
        vectors = stored_vectors(path)
        self.dimensions = int(vectors[DENSE]["size"]) if vectors else dimensions
        self.has_sentences = vectors is None or SENTENCES in vectors
        self._shard = _open_shard(path, self.dimensions, sentences=self.has_sentences)
        self.path = path
        self._index_niceness = index_niceness
        self._lock = threading.RLock()  # held by every call on the shard
        self._write_lock = threading.RLock()  # held by writes and flushes; `optimize` holds it to copy
        self._replay: list[qe.UpdateOperation] | None = None  # the writes a copy being indexed misses
        self._builder: subprocess.Popen[bytes] | None = None
        self._indexing = threading.Lock()  # one `optimize` at a time: they would share the copy
        self._patch_lock = threading.Lock()
        self._closed = False
        self._dirty = threading.Event()
        self._due: list[Callable[[], None]] = []  # what `when_durable` was given since the last flush
        self._due_lock = threading.Lock()
        self._stop = threading.Event()
        self._ensure_indexes()
        # Like Redis's `appendfsync everysec`: writes survive a crash of this process at once (the WAL
        # is in the page cache), and reach the disk within `flush_interval`, or at `flush()`.
        self._flusher = threading.Thread(
            target=self._flush_every, args=(flush_interval,), daemon=True, name="memhub-store-flush"
        )
        self._flusher.start()

    def _ensure_indexes(self) -> None:
        existing = self._shard.info().payload_schema
        # No payload-aware HNSW links: they made `optimize()` several times slower at 100k
        # memories, and ACORN gives filtered searches the same recall without them.
        wanted: list[tuple[str, qe.KeywordIndexParams | qe.FloatIndexParams]] = [
            (name, qe.KeywordIndexParams(enable_hnsw=False)) for name in KEYWORD_FIELDS
        ]
        wanted += [(name, qe.FloatIndexParams(enable_hnsw=False)) for name in FLOAT_FIELDS]
        for name, schema in wanted:
            if name not in existing:
                self._shard.update(qe.UpdateOperation.create_field_index(name, schema))
        self._shard.flush()

    def _write(self, operation: qe.UpdateOperation) -> None:
        with self._write_lock, self._lock:
            self._shard.update(operation)
            if self._replay is not None:
                self._replay.append(operation)
        self._dirty.set()

    def flush(self) -> None:
        """Make every write so far durable on disk (fsync), then call what `when_durable` was given
        before it; cheap when nothing changed."""
        with self._write_lock:  # a caller waits for a flush in progress rather than skip past it
            with self._due_lock:
                due, self._due = self._due, []
            # Dirty is cleared only here, under the write lock: if it is clear, every write before
            # this point is on disk, by a flush that has returned.
            if self._dirty.is_set():
                self._dirty.clear()
                with self._lock:
                    self._shard.flush()
        for callback in due:
            try:
                callback()
            # One failed callback must not stop the others, nor the flusher thread that runs them.
            except Exception:
                log.exception("a callback after the store's flush failed")

    def when_durable(self, callback: Callable[[], None]) -> None:
        """Call `callback` after the next flush (within `flush_interval`, or at `flush()`)."""
        with self._due_lock:
            self._due.append(callback)

    def _flush_every(self, interval: float) -> None:
        while not self._stop.wait(interval):
            self.flush()

    def upsert(self, points: Sequence[MemoryPoint]) -> None:
        if not points:
            return
        self._write(qe.UpdateOperation.upsert_points([_point(point, self.has_sentences) for point in points]))

    def get(self, ids: Sequence[str]) -> list[Memory]:
        wanted = [canonical_id(memory_id) for memory_id in ids]
        points: list[qe.PointId] = list(dict.fromkeys(point for point in wanted if point))
        with self._lock:
            records = self._shard.retrieve(points, with_payload=True, with_vector=False) if points else []
        found = {str(record.id): from_payload(record.payload or {}) for record in records}
        return [found[point] for point in wanted if point in found]

    def vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        points: list[qe.PointId] = list(dict.fromkeys(p for i in ids if (p := canonical_id(i))))
        with self._lock:
            records = self._shard.retrieve(points, with_payload=False, with_vector=[DENSE]) if points else []
        return {str(record.id): dense_of(record.vector) for record in records}

    def search(self, query: SearchQuery) -> list[Hit]:
        flt = memory_filter(query.filter)
        dense = qe.Query.Nearest(query.dense, using=DENSE)
        sparse = qe.Query.Nearest(qe.SparseVector(query.sparse.indices, query.sparse.values), using=SPARSE)
        # A query of stopwords only has no sparse terms: there is nothing for BM25 to rank.
        has_terms = bool(query.sparse.indices)
        stage: dict[str, Any]
        if query.mode is SearchMode.dense or (query.mode is SearchMode.hybrid and not has_terms):
            stage = {"query": dense, "filter": flt, "params": SEARCH_PARAMS}
        elif query.mode is SearchMode.sparse:
            if not has_terms:
                return []
            stage = {"query": sparse, "filter": flt}
        else:
            candidates = prefetch_limit(query.limit)
            prefetches = [qe.Prefetch(limit=candidates, query=dense, filter=flt, params=SEARCH_PARAMS)]
            weights = RRF_WEIGHTS
            if self.has_sentences:
                closest = qe.Query.Nearest([query.dense], using=SENTENCES)
                prefetches.append(
                    qe.Prefetch(limit=candidates, query=closest, filter=flt, params=SEARCH_PARAMS)
                )
                weights = RRF_WEIGHTS_WITH_SENTENCES
            stage = {
                "prefetches": [*prefetches, qe.Prefetch(limit=candidates, query=sparse, filter=flt)],
                "query": qe.Fusion.Rrf(k=RRF_K, weights=list(weights)),
                # No top-level filter: the prefetches are filtered already, and repeating the filter
                # here made the engine run ACORN on a broad filter (5x slower at 100k memories).
            }
        if query.recency is not None:
            # The same candidates, re-scored: newer memories boosted.
            inner = qe.Prefetch(limit=prefetch_limit(query.limit), **stage)
            stage = {"prefetches": [inner], "query": recency_formula(query.recency, now=query.filter.now)}
        request = qe.QueryRequest(
            limit=query.limit,
            with_payload=True,
            with_vector=[DENSE] if query.with_vectors else False,
            **stage,
        )
        with self._lock:
            found = self._shard.query(request)
        return [to_hit(p.payload, p.score, p.vector) for p in found]

    def update(self, memory_id: str, fields: dict[str, Any]) -> None:
        with self._patch_lock:
            current = self.get([memory_id])
            if not current:
                raise KeyError(memory_id)
            changed, removed = payload_patch(current[0], fields)
            if changed:
                self._write(qe.UpdateOperation.set_payload([current[0].id], changed))
            if removed:
                self._write(qe.UpdateOperation.delete_payload([current[0].id], removed))

    def scroll(self, flt: MemoryFilter, *, limit: int = 100, offset: str | None = None) -> Page:
        start = page_start(offset)
        request = qe.ScrollRequest(offset=start, limit=limit, filter=memory_filter(flt), with_payload=True)
        with self._lock:
            records, next_id = self._shard.scroll(request)
        return Page(
            memories=[from_payload(record.payload or {}) for record in records],
            next_offset=None if next_id is None else str(next_id),
        )

    def count(self, flt: MemoryFilter | None = None) -> int:
        request = qe.CountRequest(exact=True, filter=memory_filter(flt) if flt else None)
        with self._lock:
            return self._shard.count(request)

    def delete(self, ids: Sequence[str]) -> None:
        points: list[qe.PointId] = [point for point in map(canonical_id, ids) if point]
        if points:
            self._write(qe.UpdateOperation.delete_points(points))

    def scroll_payloads(self, *, limit: int = 500, offset: str | None = None) -> PayloadPage:
        request = qe.ScrollRequest(offset=page_start(offset), limit=limit, with_payload=True)
        with self._lock:
            records, next_id = self._shard.scroll(request)
        return PayloadPage(
            payloads={str(record.id): record.payload or {} for record in records},
            next_offset=None if next_id is None else str(next_id),
        )

    def patch_payloads(self, patches: Mapping[str, PayloadPatch]) -> None:
        for memory_id, patch in patches.items():
            if (point := canonical_id(memory_id)) is None:
                continue
            # By filter, not by id: a point deleted meanwhile matches nothing, where an id would raise.
            only = qe.Filter(must=[qe.HasIdCondition({point})])
            if patch.set:
                self._write(qe.UpdateOperation.set_payload_by_filter(only, patch.set))
            if patch.delete:
                self._write(qe.UpdateOperation.delete_payload_by_filter(only, list(patch.delete)))

    def unindexed_count(self) -> int:
        """Memories whose dense vector is in no HNSW graph yet: searched by brute force until `optimize()`."""
        with self._lock:
            info = self._shard.info()
        # The engine counts indexed vectors of every kind (a sentences multivector as one), and every
        # sparse vector is always indexed; the dense and sentences graphs are built together.
        kinds = 3 if self.has_sentences else 2
        return max((kinds * info.points_count - info.indexed_vectors_count) // (kinds - 1), 0)

    def optimize(self) -> bool:
        """Build HNSW graphs and merge segments; True once done. Maintenance, not per request.

        Built on a copy of the shard, in a process of its own (`hub.store.index_copy`): searches and
        writes go on meanwhile, and wait only while the copy is made and swapped in. On two cores:
        ~100 s to index 100k memories from scratch, ~30 s to add 10k to an indexed 100k. Until then
        new memories are searched by brute force: a worker runs it once `store_index_threshold` of them
        wait (`hub.store.indexing`). Raises if the build fails or the store is closed meanwhile; the
        shard is as it was, unindexed. False at once if another call is indexing.
        """
        if not self._indexing.acquire(blocking=False):
            return False
        copy = index_copy.copy_of(self.path)
        shutil.rmtree(copy, ignore_errors=True)
        try:
            with self._write_lock:  # searches go on; writes wait for the copy
                self.flush()
                shutil.copytree(self.path, copy)
                self._replay = []
            self._builder = index_copy.start_build(copy, self.dimensions, niceness=self._index_niceness)
            if self._builder.wait() != 0:
                raise RuntimeError(
                    f"indexing a copy of the store in {copy} failed (exit {self._builder.returncode}, "
                    "its log above); the store is as it was, and is searched by brute force until indexed"
                )
            with self._write_lock:  # writes wait from here; searches go on with the old shard
                if self._closed:
                    raise RuntimeError("the store was closed while a copy of it was indexed")
                built = qe.EdgeShard.load(
                    str(copy), shard_config(self.dimensions, sentences=self.has_sentences)
                )
                try:
                    for operation in self._replay:
                        built.update(operation)
                    built.flush()
                finally:
                    built.close()
                index_copy.mark_ready(copy)
                with self._lock:  # searches wait only while one shard is closed and the other opened
                    self._shard.close()
                    index_copy.swap_in(self.path)
                    self._shard = _open_shard(self.path, self.dimensions, sentences=self.has_sentences)
            return True
        finally:
            self._replay = None
            self._builder = None
            shutil.rmtree(copy, ignore_errors=True)
            self._indexing.release()

    def model_identity(self) -> ModelIdentity | None:
        record = self.path / MODEL_RECORD
        return ModelIdentity(**json.loads(record.read_text())) if record.exists() else None

    def record_model(self, identity: ModelIdentity) -> None:
        """Write which model wrote this shard, atomically: a crash leaves the old record or the new one."""
        record, written = self.path / MODEL_RECORD, self.path / f"{MODEL_RECORD}.tmp"
        with written.open("w") as fh:
            json.dump(vars(identity), fh)
            fh.flush()
            os.fsync(fh.fileno())
        written.replace(record)

    def close(self) -> None:
        """Flush and release the shard (and its directory lock); closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        if (builder := self._builder) is not None:
            builder.kill()
        self._stop.set()
        self._flusher.join()
        self.flush()
        with self._write_lock, self._lock:
            self._shard.close()


def _point(point: MemoryPoint, sentences: bool) -> qe.Point:
    vectors: dict[str, Any] = {
        DENSE: point.dense,
        SPARSE: qe.SparseVector(point.sparse.indices, point.sparse.values),
    }
    if sentences:
        vectors[SENTENCES] = point.sentence_rows
    return qe.Point(point.memory.id, vectors, to_payload(point.memory))


def _any(key: str, values: frozenset[str]) -> qe.FieldCondition:
    return qe.FieldCondition(key, match=qe.MatchAny(sorted(str(value) for value in values)))


def _is(key: str, value: str) -> qe.FieldCondition:
    return qe.FieldCondition(key, match=qe.MatchValue(str(value)))


def _granted(key: str, granted: frozenset[str] | None) -> list[Any]:
    """The conditions for a memory's `key` (project, person) to be one the asker may read: none when it
    may read any; else the memory names none, or one of `granted`."""
    if granted is None:
        return []
    options: list[Any] = [qe.IsEmptyCondition(key)]
    if granted:
        options.append(_any(key, granted))
    return [qe.Filter(should=options)]


def memory_filter(flt: MemoryFilter) -> qe.Filter:
    """The qdrant-edge form of a MemoryFilter: visibility, expiry and the narrowing filters."""
    must: list[Any] = []
    # A global or temporary memory that names a project or a person ("Noa's dentist is ...", person
    # Noa) is found without naming them, by every asker that may read them: a key not granted that
    # project or person does not find it.
    granted = [*_granted("project", flt.granted_projects), *_granted("person", flt.granted_persons)]
    if flt.all_scopes:
        must.extend(granted)  # a project's and a person's memories name them: granted, or not seen
    else:
        shared = _any("scope", frozenset({Scope.global_, Scope.temporary}))
        visible: list[Any] = [qe.Filter(must=[shared, *granted])]
        if flt.project is not None:
            visible.append(qe.Filter(must=[_is("scope", Scope.project), _is("project", flt.project)]))
        if flt.person is not None:
            visible.append(qe.Filter(must=[_is("scope", Scope.person), _is("person", flt.person)]))
        must.append(qe.Filter(should=visible))
    must_not: list[Any] = [qe.FieldCondition("expires_ts", range=qe.RangeFloat(lte=flt.now.timestamp()))]
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
        must.append(qe.HasIdCondition({p for i in flt.ids if (p := canonical_id(i))}))
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
            must.append(qe.FieldCondition(key, range=qe.RangeFloat(gte=after, lt=before)))
    return qe.Filter(must=must, must_not=must_not)


def recency_formula(half_life: timedelta, *, now: datetime) -> qe.Formula:
    """score + |score| x RECENCY_WEIGHT x 2^(-age / half_life), the age of what happened counted from `now`.

    For a positive score, score x (1 + boost); a negative one (a dense cosine can be) moves towards
    zero instead of away from it, so the newer memory still ranks higher.
    """
    e = qe.Expression
    age_decay = e.Decay(
        qe.DecayKind.Exp,
        e.Variable("occurred_ts"),
        target=e.Constant(now.timestamp()),
        scale=half_life.total_seconds(),
        midpoint=0.5,
    )
    score = e.Variable("$score")
    boost = e.Mult([e.Abs(score), e.Constant(RECENCY_WEIGHT), age_decay])
    return qe.Formula(e.Sum([score, boost]), defaults={"occurred_ts": 0.0})
