"""The expensive things a process builds once (Redis, store, model) and passes around explicitly."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, partial
from zoneinfo import ZoneInfo

from redis import Redis
from redis.exceptions import ResponseError
from rq import Queue

from hub.auth.ratelimit import RateLimit
from hub.conflicts import ledger
from hub.conflicts.judge import Judge, RuleJudge
from hub.conflicts.judge.combined import judge_from_settings
from hub.conflicts.judge.pairmodel import PairScorer
from hub.conflicts.review import Reviewer
from hub.embedding import Encoder, load_embedder
from hub.keys import Keys
from hub.metrics import Metrics
from hub.queue import make_queue
from hub.search import Retriever
from hub.settings import Settings
from hub.sparse import SparseEncoder
from hub.store import EdgeStore, MemoryStore, open_store
from hub.store.current import embedded_store_exists
from hub.store.pinning import check_model


@dataclass
class Services:
    settings: Settings
    redis: Redis
    store: MemoryStore
    embedder: Encoder
    sparse: SparseEncoder = field(default_factory=SparseEncoder)
    judge: Judge = field(default_factory=RuleJudge)
    metrics: Metrics = field(default_factory=Metrics)
    closed: bool = field(default=False, init=False)
    # Stream entries this process stored and acknowledges after the store's next flush: not stale,
    # however long they have waited (`workers.ingest.take_batch`).
    unacknowledged: set[bytes] = field(default_factory=set, init=False)

    @property
    def keys(self) -> Keys:
        return Keys(self.settings.redis_prefix)

    @property
    def queue(self) -> Queue:
        return make_queue(self.redis, self.settings.queue_name)

    @property
    def background_queue(self) -> Queue:
        return make_queue(self.redis, self.settings.background_queue_name)

    @property
    def queues(self) -> list[Queue]:
        """What a worker listens to, most urgent first: a backlog of events before its follow-up work."""
        return [self.queue, self.background_queue]

    def watch_hub(self) -> None:
        """Export the hub-wide gauges from this process's metrics too (the API's; `memhub up`'s)."""
        self.metrics.watch_hub(redis=self.redis, keys=self.keys, store=self.store, settings=self.settings)

    @cached_property
    def rate_limit(self) -> RateLimit:
        """Each API key's request count, built once: its Redis scripts are registered at build."""
        return RateLimit(self.redis, self.keys)

    @property
    def reviewer(self) -> Reviewer:
        return Reviewer(
            store=self.store, redis=self.redis, keys=self.keys, settings=self.settings, judge=self.judge
        )

    @property
    def retriever(self) -> Retriever:
        return Retriever(
            store=self.store,
            embedder=self.embedder,
            sparse=self.sparse,
            proposed_in_conflict=partial(ledger.proposed_over, self.redis, self.keys),
            timezone=ZoneInfo(self.settings.timezone),
        )

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.store.close()
            close_judge = getattr(self.judge, "close", None)  # a judge that holds connections
            if close_judge is not None:
                close_judge()


def ensure_stream(redis: Redis, keys: Keys) -> None:
    """Create the event stream and its consumer group if missing (safe to call from every process)."""
    try:
        # From id 0: a group created after events were appended still delivers them.
        redis.xgroup_create(keys.stream, keys.group, id="0", mkstream=True)
    except ResponseError as exc:
        if "BUSYGROUP" not in str(exc):
            raise


def open_pinned_store(
    settings: Settings, redis: Redis, embedder: Encoder, store: MemoryStore | None = None
) -> MemoryStore:
    """The hub's store (`store`, if opened already), refused (ModelMismatch) when another model wrote it."""
    store = store or open_store(settings, dimensions=embedder.dimensions)
    try:
        check_model(store, embedder.identity)
    except BaseException:
        store.close()  # the embedded store's lock goes with it
        raise
    keys = Keys(settings.redis_prefix)
    # For processes already running, which compare it with their own model before taking events.
    redis.set(keys.store_model(settings.collection), embedder.identity.sha256)
    if isinstance(store, EdgeStore):
        # This process owns the embedded store, so no indexing of it runs anywhere now: the mark of
        # one whose process was killed would hold off the next for up to an hour.
        redis.delete(keys.index_scheduled)
    return store


def build_services(
    settings: Settings,
    redis: Redis,
    *,
    embedder: Encoder | None = None,
    pair_model: PairScorer | None = None,
) -> Services:
    """Open the store and load the models once, for a whole process (pass them in to share them)."""
    ensure_stream(redis, Keys(settings.redis_prefix))
    # An embedded store that exists opens before the model loads: one that another process holds is
    # refused at once, not after the seconds the model takes.
    store = open_store(settings) if embedder is None and embedded_store_exists(settings) else None
    try:
        embedder = embedder or load_embedder(settings)
    except BaseException:
        if store is not None:
            store.close()
        raise
    return Services(
        settings=settings,
        redis=redis,
        store=open_pinned_store(settings, redis, embedder, store),
        embedder=embedder,
        judge=judge_from_settings(settings, pair_model=pair_model),
    )
