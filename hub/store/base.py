"""The store interface: one small protocol that both Qdrant backends implement."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol

from hub.embedding import ModelIdentity
from hub.models import Confidence, Kind, Memory, Scope, State, Tier

DENSE = "dense"
SPARSE = "bm25"
# Each sentence of the memory's text embedded alone (`hub.sentences`), scored by its closest sentence:
# a third list in hybrid search. A store made before it has none, and searches without it.
SENTENCES = "sentences"

# Payload fields that searches filter on; every backend builds a payload index for each.
KEYWORD_FIELDS = (
    "event_id",
    "agent",
    "kind",
    "scope",
    "project",
    "person",
    "channel",
    "chat",
    "session",
    "confidence",
    "state",
    "tier",
    "related",
    "subject",
    "audience",
)
# `stated_ts` holds the time of every statement of the memory (its sightings), the first included.
FLOAT_FIELDS = ("occurred_ts", "expires_ts", "created_ts", "stated_ts")

# The keys `to_payload` adds to a memory's fields, for filters to read; `from_payload` ignores them.
DERIVED_KEYS = ("occurred_ts", "created_ts", "stated_ts", "expires_ts", "audience")

# `audience` is derived from `private`: qdrant-edge 0.9 reads `MatchValue(True)` as the integer 1,
# which matches no boolean payload, so a keyword stands in for the flag in filters.
DIRECT_ONLY = "direct"


class SearchMode(StrEnum):
    hybrid = "hybrid"
    dense = "dense"
    sparse = "sparse"


@dataclass(frozen=True)
class SparseVec:
    indices: list[int]
    values: list[float]


NO_TERMS = SparseVec(indices=[], values=[])  # for dense-only queries, which use no terms


@dataclass(frozen=True)
class MemoryPoint:
    """A memory with its vectors, ready to write."""

    memory: Memory
    dense: list[float]
    sparse: SparseVec
    # The vectors of the text's sentences (`SENTENCES`); None: the dense vector is the only one.
    sentences: list[list[float]] | None = None

    @property
    def sentence_rows(self) -> list[list[float]]:
        return self.sentences or [self.dense]


@dataclass(frozen=True)
class MemoryFilter:
    """What a search may return: visibility plus optional narrowing filters.

    Visibility: global memories always; project memories only for `project`; person memories only
    for `person`; temporary memories too, never after `now` passes their expiry. A global or temporary
    memory that names a project or a person stays out only when the asker may not read that one
    (`granted_projects`, `granted_persons`: a key's grants; None, the owner's: any). `all_scopes`: every
    memory the grants let through, whatever its scope.
    """

    now: datetime
    project: str | None = None
    person: str | None = None
    granted_projects: frozenset[str] | None = None
    granted_persons: frozenset[str] | None = None
    scopes: frozenset[Scope] | None = None
    kinds: frozenset[Kind] | None = None
    agents: frozenset[str] | None = None
    channels: frozenset[str] | None = None
    tiers: frozenset[Tier] | None = None
    states: frozenset[State] | None = None  # None: every state but superseded
    confidences: frozenset[Confidence] | None = None
    occurred_after: datetime | None = None
    occurred_before: datetime | None = None
    # Stated, first or again (a sighting), in [stated_after, stated_before).
    stated_after: datetime | None = None
    stated_before: datetime | None = None
    related: frozenset[str] | None = None  # names at least one of these entities
    ids: frozenset[str] | None = None  # only these memories
    # A search from a group chat: memories private to direct conversations stay out.
    exclude_private: bool = False
    # Every scope, each project's and person's memories too, still within `granted_projects` and
    # `granted_persons`: listings by the owner (export, `GET /v1/memories`), and a search asked to look
    # everywhere (`everywhere`: a key sees what its grants let it read).
    all_scopes: bool = False


@dataclass(frozen=True)
class SearchQuery:
    dense: list[float]
    sparse: SparseVec
    filter: MemoryFilter
    limit: int = 10
    mode: SearchMode = SearchMode.hybrid
    # Half-life of the recency boost: a memory this old gets half the boost of one from `filter.now`.
    recency: timedelta | None = None
    # Return each hit's dense vector too (the retriever re-ranks with them).
    with_vectors: bool = False


# Hybrid fusion, chosen on the dev questions of both retrieval sets (the project's own and REALTALK's):
# equal weights, since on real chat BM25 finds what MiniLM misses as often as the reverse; k=2 is
# Qdrant's default (the numbers: benchmarks/retrieval.py).
RRF_K = 2
RRF_WEIGHTS: tuple[float, ...] = (1.0, 1.0)  # dense, BM25
# The closest sentence's list counts half the others: it adds to them, and at full weight it put chat
# messages matched word for word above versions of a fact and replies read with their context.
RRF_WEIGHTS_WITH_SENTENCES: tuple[float, ...] = (1.0, 0.5, 1.0)  # dense, sentences, BM25
# With `recency`, a memory from now scores RECENCY_WEIGHT x |its score| more than a very old one would.
RECENCY_WEIGHT = 1.0


def prefetch_limit(limit: int) -> int:
    """Candidates each half of a hybrid search (dense, BM25) contributes to the RRF fusion.

    20 to 100 per half scored alike on the retrieval benchmark; at 100k memories 80 cost 1.7 ms more
    at p95 than 40 for the retriever's usual 20 candidates.
    """
    return max(limit * 2, 40)


@dataclass(frozen=True)
class Hit:
    memory: Memory
    score: float
    vector: list[float] | None = None  # the dense vector, when the query asked for it


@dataclass
class Page:
    memories: list[Memory] = field(default_factory=list)
    next_offset: str | None = None


@dataclass
class PayloadPage:
    """Payloads as stored, by point id, and where the next page starts."""

    payloads: dict[str, dict[str, Any]] = field(default_factory=dict)
    next_offset: str | None = None


@dataclass(frozen=True)
class PayloadPatch:
    """Payload keys to set on one point, as given, and keys to delete from it."""

    set: dict[str, Any] = field(default_factory=dict)
    delete: tuple[str, ...] = ()


def to_payload(memory: Memory) -> dict[str, Any]:
    """The JSON payload stored with a point: the memory plus numeric times for range filters."""
    payload = memory.model_dump(mode="json")
    payload["occurred_ts"] = memory.occurred_at.timestamp()
    payload["created_ts"] = memory.created_at.timestamp()
    payload["stated_ts"] = [sighting.at.timestamp() for sighting in memory.sightings]
    if memory.expires_at is not None:
        payload["expires_ts"] = memory.expires_at.timestamp()
    if memory.private:
        payload["audience"] = DIRECT_ONLY
    return payload


def from_payload(payload: dict[str, Any]) -> Memory:
    return Memory.model_validate(payload)


def dense_of(vectors: Any) -> list[float]:
    """The dense vector out of a point's named vectors (either backend's)."""
    return list(vectors[DENSE])


def to_hit(payload: dict[str, Any] | None, score: float, vectors: Any) -> Hit:
    """A scored point of either backend as a Hit; `vectors` is empty unless the query asked for them."""
    return Hit(from_payload(payload or {}), score, dense_of(vectors) if vectors else None)


def canonical_id(memory_id: str) -> str | None:
    """The point id a memory id names (a UUID, canonical form), or None: such a memory cannot exist."""
    try:
        return str(uuid.UUID(memory_id))
    except ValueError:
        return None


def page_start(offset: str | None) -> str | None:
    """The point a scroll resumes from; ValueError for an offset no scroll returned."""
    if offset is None:
        return None
    if (start := canonical_id(offset)) is None:
        raise ValueError(f"offset: {offset!r} is not a page offset")
    return start


def payload_patch(current: Memory, fields: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """What `update(fields)` writes: the payload keys to set and the keys to delete.

    Fields are validated as Memory fields; derived keys (the `*_ts` times) follow their fields.
    Only changed keys are written, so concurrent patches of different fields do not clobber each other.
    """
    if unknown := set(fields) - set(Memory.model_fields):
        raise ValueError(f"not memory fields: {sorted(unknown)}")
    if {"id", "event_id"} & set(fields):
        raise ValueError("a memory's id and event_id never change")
    old = to_payload(current)
    new = to_payload(Memory.model_validate({**current.model_dump(), **fields}))
    changed = {key: value for key, value in new.items() if key not in old or old[key] != value}
    return changed, [key for key in old if key not in new]


def scroll_all(store: MemoryStore, flt: MemoryFilter, *, page_size: int = 500) -> Iterator[Memory]:
    """Every memory the filter matches, page after page."""
    offset: str | None = None
    while True:
        page = store.scroll(flt, limit=page_size, offset=offset)
        yield from page.memories
        if page.next_offset is None:
            return
        offset = page.next_offset


class MemoryStore(Protocol):
    """Where memories live. Writes are idempotent by memory id and durable when they return."""

    def upsert(self, points: Sequence[MemoryPoint]) -> None: ...

    def get(self, ids: Sequence[str]) -> list[Memory]: ...

    def vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """The dense vectors of these memories, by id; ids not in the store are left out."""
        ...

    def search(self, query: SearchQuery) -> list[Hit]: ...

    def update(self, memory_id: str, fields: dict[str, Any]) -> None:
        """Patch payload fields of one memory (state, tier, links); vectors stay."""
        ...

    def scroll(self, flt: MemoryFilter, *, limit: int = 100, offset: str | None = None) -> Page: ...

    def count(self, flt: MemoryFilter | None = None) -> int: ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def scroll_payloads(self, *, limit: int = 500, offset: str | None = None) -> PayloadPage:
        """Every point's payload as stored, whatever its scope, state or expiry, page after page."""
        ...

    def patch_payloads(self, patches: Mapping[str, PayloadPatch]) -> None:
        """Set and delete payload keys point by point, as given; vectors stay, points not stored are skipped.

        For migrations (`hub.store.migrations`): `update` writes only what differs between a memory
        before and after, so it never writes a derived key the stored payload lacks.
        """
        ...

    def flush(self) -> None:
        """Make every write so far durable, then call what `when_durable` was given before it."""
        ...

    def when_durable(self, callback: Callable[[], None]) -> None:
        """Call `callback` once every write so far is durable: at once where writes are durable when
        they return, else after the store's next flush, on the thread that flushes.

        The ingest acknowledges a batch's events this way, so that one flush covers every batch
        written since the last one instead of each batch waiting for a flush of its own.
        """
        ...

    def unindexed_count(self) -> int:
        """Memories searched by brute force until `optimize()` indexes them; 0 where the store indexes itself."""
        ...

    def optimize(self) -> bool:
        """Index what waits (`hub.store.indexing`); True if anything changed."""
        ...

    @property
    def dimensions(self) -> int:
        """The size of the dense vectors the store holds (set when it was created)."""
        ...

    def model_identity(self) -> ModelIdentity | None:
        """Which model wrote the store's vectors, as recorded with the store; None: not recorded yet."""
        ...

    def record_model(self, identity: ModelIdentity) -> None:
        """Record, with the store, which model writes its vectors (`hub.store.pinning`)."""
        ...

    def close(self) -> None: ...
