import json
import time
from collections.abc import Callable

import pytest
from redis import Redis

from clients import RedisPublisher
from hub.models import memory_id_for
from hub.services import Services
from hub.status import EventState, list_dead_letters, read_status
from hub.store.base import SearchMode
from workers.ingest import drain_stream, take_batch
from workers.worker import run_worker


def publisher(services: Services, agent: str = "wa") -> RedisPublisher:
    s = services.settings
    return RedisPublisher(services.redis, agent=agent, prefix=s.redis_prefix, queue_name=s.queue_name)


def statuses(services: Services, ids: list[str]) -> list[EventState]:
    found = [read_status(services.redis, services.keys, i) for i in ids]
    return [f.status for f in found if f]


def test_a_backlog_is_embedded_many_per_model_call(make_services: Callable[..., Services]) -> None:
    services = make_services(ingest_batch_size=32)
    ids = [publisher(services).publish(f"Backlog memory number {i} about the garden") for i in range(100)]

    report = drain_stream(services, consumer="test", max_batches=10)

    assert report.batch_sizes == [32, 32, 32, 4]
    assert report.stored == 100
    assert statuses(services, ids) == [EventState.stored] * 100
    assert services.store.count() == 100


def test_a_single_event_on_an_idle_hub_is_embedded_alone(make_services: Callable[..., Services]) -> None:
    services = make_services()
    event_id = publisher(services).publish("Netanel works until 20:00")
    report = drain_stream(services, consumer="test")
    assert report.batch_sizes == [1]
    status = read_status(services.redis, services.keys, event_id)
    assert status is not None and status.memory_id
    assert services.store.get([status.memory_id])[0].text == "Netanel works until 20:00"


def test_rq_worker_runs_the_drain_job(make_services: Callable[..., Services]) -> None:
    services = make_services()
    ids = [publisher(services).publish(f"fact {i}") for i in range(3)]
    run_worker(services, burst=True, sweep_interval=60)
    assert statuses(services, ids) == [EventState.stored] * 3


def test_malformed_entries_are_dead_lettered_and_others_stored(
    make_services: Callable[..., Services],
) -> None:
    services = make_services()
    keys, redis = services.keys, services.redis
    good_before = publisher(services).publish("Dana likes green tea")
    redis.xadd(keys.stream, {"id": "bad-json", "event": "{not json"})
    redis.xadd(keys.stream, {"id": "bad-shape", "event": json.dumps([1, 2])})
    bad_field = {
        "received_at": "2026-11-29T10:00:00+00:00",
        "event": {"text": "x", "agent": "wa", "scope": "project"},
    }
    redis.xadd(keys.stream, {"id": "bad-field", "event": json.dumps(bad_field)})
    good_after = publisher(services).publish("Dana's birthday is on 3 May")

    report = drain_stream(services, consumer="test")

    assert (report.stored, report.rejected) == (2, 3)
    assert statuses(services, [good_before, good_after]) == [EventState.stored] * 2
    letters = {d.id: d for d in list_dead_letters(redis, keys)}
    assert set(letters) == {"bad-json", "bad-shape", "bad-field"}
    assert letters["bad-field"].error.startswith("project:")
    assert "not valid JSON" in letters["bad-json"].error
    rejected = read_status(redis, keys, "bad-field")
    assert rejected is not None and rejected.status is EventState.rejected and rejected.error
    assert redis.xlen(keys.stream) == 0


def test_events_a_crashed_worker_left_unacknowledged_are_stored_once(
    make_services: Callable[..., Services],
) -> None:
    services = make_services(claim_idle_ms=300)
    ids = [publisher(services).publish(f"memory {i} of the crashed batch") for i in range(10)]
    # A worker takes the batch and dies before acknowledging it.
    taken, _ = take_batch(services.redis, services.keys, "crashed", size=64, claim_idle_ms=300)
    assert len(taken) == 10

    assert drain_stream(services, consumer="survivor").stored == 0  # not idle long enough yet
    time.sleep(0.4)
    report = drain_stream(services, consumer="survivor")

    assert report.stored == 10
    assert statuses(services, ids) == [EventState.stored] * 10
    assert services.store.count() == 10
    assert drain_stream(services, consumer="survivor").batches == 0


def test_an_event_delivered_too_often_is_dead_lettered_as_failed(
    make_services: Callable[..., Services], redis: Redis
) -> None:
    services = make_services(claim_idle_ms=0, max_deliveries=2)
    event_id = publisher(services).publish("a poison event")
    for consumer in ("c1", "c2"):
        take_batch(services.redis, services.keys, consumer, size=8, claim_idle_ms=0)

    report = drain_stream(services, consumer="c3")

    assert report.failed == 1
    status = read_status(redis, services.keys, event_id)
    assert status is not None and status.status is EventState.failed
    assert "delivered 3 times" in (status.error or "")
    assert services.store.count() == 0


def test_a_store_outage_costs_time_not_events(make_services: Callable[..., Services]) -> None:
    import threading

    from hub.store.edge import EdgeStore

    services = make_services()
    ids = [
        publisher(services).publish(f"{name} prefers window seats on long flights")
        for name in ("Dana", "Avi")
    ]
    assert isinstance(services.store, EdgeStore)
    path = services.store.path
    services.store.close()  # the store goes away...

    def come_back() -> None:
        time.sleep(1.2)
        services.store = EdgeStore(path)  # ...and comes back a little later

    threading.Thread(target=come_back).start()
    report = drain_stream(services, consumer="test")

    assert report.stored == 2
    assert statuses(services, ids) == [EventState.stored] * 2
    assert list_dead_letters(services.redis, services.keys) == []


@pytest.mark.parametrize("mode", list(SearchMode))
def test_a_message_is_found_by_its_context_and_shown_without_it(
    make_services: Callable[..., Services], mode: SearchMode
) -> None:
    services = make_services()
    agent = publisher(services)
    message = "Netanel: make it 17:30, I have the kids before that"
    bare = agent.publish(message)
    told = agent.publish(message, context="assistant: Reminder Thursday 16:30 to collect the dry cleaning?")
    for text in (
        "Dana: I'll pick up Noa from the party at 18:00",
        "Netanel: picked up the car from the garage",
        "Dana: can you get Itai at 16:30 today?",
        "Netanel: the parcel is at the post office",
    ):
        agent.publish(text)
    drain_stream(services, consumer="test")

    hits = services.retriever.search("When do I pick up the dry cleaning?", limit=6, mode=mode)
    ids = [h.memory.id for h in hits]
    found = hits[ids.index(memory_id_for(told))]
    assert found.memory.text == message and "dry cleaning" in (found.memory.context or "")
    # BM25 counts a context's words at CONTEXT_WEIGHT (hub.sparse): alone, it puts the two messages
    # that say "pick up" in their own words first; dense and hybrid put the dry cleaning's first.
    if mode is not SearchMode.sparse:
        assert ids[0] == found.memory.id
    # The same words without the context score lower, or (BM25: no shared term) are not found.
    without = [h.score for h in hits if h.memory.id == memory_id_for(bare)]
    assert all(score < found.score for score in without)
