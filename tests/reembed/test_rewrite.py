"""Switching a hub to a second model with `memhub reembed`: refused before, answered with after, nothing lost."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import qdrant_edge as qe
from redis import Redis

from hub.cli import main
from hub.embedded import EmbeddedHub
from hub.embedding import Embedder
from hub.keys import Keys
from hub.redis_publisher import RedisPublisher
from hub.reembed.intake import may_take_events
from hub.reembed.rewrite import Progress, reembed
from hub.services import Services, build_services
from hub.settings import Settings, get_settings
from hub.sparse import SparseEncoder
from hub.store.base import MemoryFilter, SearchMode, SearchQuery, scroll_all
from hub.store.edge import EdgeStore, shard_config
from hub.store.pinning import ModelMismatch
from tests.conftest import SECOND_DIMENSIONS

FACTS = [
    "Dana's son starts school on 1 September",
    "Netanel finishes work at 18:00 on weekdays",
    "The car is due for its annual service in March",
    "Yael is allergic to peanuts and carries an epipen",
    "The wifi password is kept in the kitchen drawer notebook",
    "Grandma's birthday dinner is at the Italian place on Friday",
    "The project deadline for the grant report moved to the 14th",
    "Noa's dentist appointment is on Tuesday morning",
]
QUESTIONS = {
    "when does school start for Dana's son?": 0,
    "what is Yael allergic to?": 3,
    "where is Grandma's birthday dinner?": 5,
}


@pytest.fixture
def start_hub(redis: Redis) -> Iterator[Callable[..., EmbeddedHub]]:
    """A hub on the test's data folder with a given model: services and one worker thread."""
    running: list[EmbeddedHub] = []

    def factory(settings: Settings, embedder: Embedder) -> EmbeddedHub:
        hub = EmbeddedHub(services=build_services(settings, redis, embedder=embedder), redis_server=None)
        hub.start_workers(1, sweep_interval=0.2)
        running.append(hub)
        return hub

    yield factory
    for hub in running:
        hub.stop()


def _publish(services: Services, texts: list[str]) -> list[str]:
    publisher = RedisPublisher(
        services.redis,
        agent="tester",
        prefix=services.settings.redis_prefix,
        queue_name=services.settings.queue_name,
    )
    return [publisher.publish(text) for text in texts]


def _wait_for(services: Services, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while services.store.count() < count or services.redis.xlen(services.keys.stream):
        assert time.monotonic() < deadline, f"{services.store.count()} of {count} memories stored"
        time.sleep(0.05)


def _ids(services: Services) -> set[str]:
    flt = MemoryFilter(now=datetime.now(UTC), all_scopes=True)
    return {memory.id for memory in scroll_all(services.store, flt)}


def _dense_top(services: Services, question: str) -> str:
    """The best memory for `question` by the dense vectors alone: what the model answers."""
    query = SearchQuery(
        dense=services.embedder.encode_one(question),
        sparse=services.sparse.query(question),
        filter=MemoryFilter(now=datetime.now(UTC)),
        limit=1,
        mode=SearchMode.dense,
    )
    return services.store.search(query)[0].memory.text


def test_a_hub_switched_with_reembed_answers_with_the_new_model_and_keeps_every_memory(
    make_settings: Callable[..., Settings],
    start_hub: Callable[..., EmbeddedHub],
    embedder: Embedder,
    second_embedder: Embedder,
    second_model_path: Path,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = make_settings()
    first = start_hub(settings, embedder)
    _publish(first.services, FACTS)
    _wait_for(first.services, len(FACTS))
    before = _ids(first.services)
    first.stop()

    with pytest.raises(ModelMismatch, match=r"all-MiniLM-L6-v2 .*384 dims.*memhub reembed --model"):
        build_services(settings, Redis.from_url(redis_url), embedder=second_embedder)

    monkeypatch.setenv("MEMHUB_REDIS_URL", redis_url)
    monkeypatch.setenv("MEMHUB_DATA_DIR", str(settings.data_dir))
    get_settings.cache_clear()
    try:
        assert main(["reembed", "--model", str(second_model_path)]) == 0
    finally:
        get_settings.cache_clear()
    progress = capsys.readouterr().err
    assert f"copy: {len(FACTS)} of {len(FACTS)} memories read" in progress
    assert "switched" in progress

    second = start_hub(settings, second_embedder)
    assert second.services.store.dimensions == SECOND_DIMENSIONS
    assert second.services.store.model_identity() == second_embedder.identity
    assert _ids(second.services) == before  # every memory, by id
    for question, fact in QUESTIONS.items():
        assert _dense_top(second.services, question) == FACTS[fact]
        hits = second.services.retriever.search(question, limit=3)
        assert hits[0].memory.text == FACTS[fact]
    second.stop()
    with pytest.raises(ModelMismatch, match=r"MEMHUB_MODEL=.*minilm-128"):
        build_services(settings, Redis.from_url(redis_url), embedder=embedder)


def test_a_write_published_while_reembed_runs_is_stored_with_the_new_model(
    make_settings: Callable[..., Settings],
    start_hub: Callable[..., EmbeddedHub],
    redis: Redis,
    embedder: Embedder,
    second_embedder: Embedder,
) -> None:
    settings = make_settings()
    first = start_hub(settings, embedder)
    _publish(first.services, FACTS)
    _wait_for(first.services, len(FACTS))
    first.stop()
    keys = Keys(settings.redis_prefix)
    late = "The plumber comes on Thursday at nine to fix the boiler"
    published: list[str] = []

    def publish_once(progress: Progress) -> None:
        if not published:
            published.extend(_publish(first.services, [late]))
            # Workers of either model leave it on the stream while the rewrite runs.
            for model in (embedder, second_embedder):
                assert not may_take_events(
                    redis, keys, settings.collection, model_sha256=model.identity.sha256
                )

    reembed(
        settings, redis, embedder=second_embedder, sparse=SparseEncoder(), progress=publish_once, page_size=3
    )
    assert not may_take_events(redis, keys, settings.collection, model_sha256=embedder.identity.sha256)
    assert may_take_events(redis, keys, settings.collection, model_sha256=second_embedder.identity.sha256)

    second = start_hub(settings, second_embedder)
    _wait_for(second.services, len(FACTS) + 1)
    assert _dense_top(second.services, "when is the plumber coming?") == late


def test_a_reembed_that_dies_midway_leaves_the_old_hub_whole_and_a_rerun_finishes_it(
    make_settings: Callable[..., Settings],
    start_hub: Callable[..., EmbeddedHub],
    redis: Redis,
    embedder: Embedder,
    second_embedder: Embedder,
) -> None:
    settings = make_settings()
    first = start_hub(settings, embedder)
    _publish(first.services, FACTS)
    _wait_for(first.services, len(FACTS))
    before = _ids(first.services)
    first.stop()

    def die_on_the_second_page(progress: Progress) -> None:
        if progress.read > 3:
            raise KeyboardInterrupt  # as a kill would, mid-way through the copy

    with pytest.raises(KeyboardInterrupt):
        reembed(
            settings,
            redis,
            embedder=second_embedder,
            sparse=SparseEncoder(),
            progress=die_on_the_second_page,
            page_size=3,
        )
    old = start_hub(settings, embedder)  # the old model still serves the whole hub
    assert _ids(old.services) == before
    assert _dense_top(old.services, "what is Yael allergic to?") == FACTS[3]
    old.stop()

    done = reembed(settings, redis, embedder=second_embedder, sparse=SparseEncoder(), page_size=3)
    assert done.embedded < len(FACTS)  # the first run's pages were kept
    second = start_hub(settings, second_embedder)
    assert _ids(second.services) == before
    assert _dense_top(second.services, "what is Yael allergic to?") == FACTS[3]


def test_a_store_made_before_sentences_is_searched_without_them_until_reembed_gives_them(
    make_settings: Callable[..., Settings],
    start_hub: Callable[..., EmbeddedHub],
    redis: Redis,
    embedder: Embedder,
) -> None:
    settings = make_settings()
    old = settings.data_dir / "store" / settings.collection
    old.mkdir(parents=True)
    qe.EdgeShard.create(str(old), shard_config(sentences=False)).close()
    first = start_hub(settings, embedder)
    assert isinstance(first.services.store, EdgeStore) and not first.services.store.has_sentences
    _publish(first.services, FACTS)
    _wait_for(first.services, len(FACTS))
    before = _ids(first.services)
    assert first.services.retriever.search("what is Yael allergic to?", limit=1)[0].memory.text == FACTS[3]
    first.stop()

    reembed(settings, redis, embedder=embedder, sparse=SparseEncoder())

    second = start_hub(settings, embedder)
    assert isinstance(second.services.store, EdgeStore) and second.services.store.has_sentences
    assert _ids(second.services) == before
    for question, fact in QUESTIONS.items():
        assert second.services.retriever.search(question, limit=1)[0].memory.text == FACTS[fact]
