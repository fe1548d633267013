import json
import time
from collections.abc import Callable
from dataclasses import replace

import pytest
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from hub.embedded import EmbeddedHub
from hub.models import memory_id_for
from hub.redis_publisher import RedisPublisher, build_event
from hub.services import Services
from hub.status import EventState, list_dead_letters, read_status
from hub.store.base import SearchMode
from workers.ingest import drain_stream, parse_entry, release_abandoned, take_batch, write_memories
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


def test_stored_events_are_acknowledged_by_the_store_flush_that_makes_them_durable(
    make_services: Callable[..., Services],
) -> None:
    services = make_services(ingest_batch_size=1, store_flush_seconds=3600)
    keys, redis = services.keys, services.redis
    ids = [publisher(services).publish(f"Fact number {i} about the garden") for i in range(3)]

    report = drain_stream(services, consumer="test")

    assert report.batch_sizes == [1, 1, 1]
    assert statuses(services, ids) == [EventState.stored] * 3  # searchable at once
    # Until the store's flush they stay on the stream, taken: a crash now redelivers them, and the
    # drain that takes them again finds them stored.
    assert redis.xpending(keys.stream, keys.group)["pending"] == 3
    services.store.flush()  # one flush for the three batches
    assert redis.xlen(keys.stream) == 0


def test_rq_worker_runs_the_drain_job(make_services: Callable[..., Services]) -> None:
    services = make_services()
    ids = [publisher(services).publish(f"fact {i}") for i in range(3)]
    run_worker(services, burst=True, sweep_interval=60)
    assert statuses(services, ids) == [EventState.stored] * 3


def test_malformed_entries_are_dead_lettered_and_others_stored(
    make_services: Callable[..., Services],
) -> None:
    services = make_services(store_flush_seconds=3600)
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
    assert redis.xlen(keys.stream) == 2  # the refused are acknowledged at once, the stored once durable
    services.store.flush()
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


def envelope(event: dict[str, object], received_at: str = "2026-11-29T10:00:00+00:00") -> str:
    return json.dumps({"received_at": received_at, "event": event})


TEMPORARY = {
    "text": "Parking permit code for today",
    "agent": "wa",
    "scope": "temporary",
    "ttl_seconds": 3600,
}


@pytest.mark.parametrize(
    ("raw", "cause"),
    [
        # Refused by name: stored, a naive time made every search that met the memory fail.
        (
            envelope({"text": "Dana likes green tea", "agent": "wa"}, received_at="2026-11-29T10:00:00"),
            "received_at: give a time with a timezone",
        ),
        # Was a TypeError (naive against aware), taking the whole batch down with it.
        (
            envelope({**TEMPORARY, "expires_at": "2030-01-01T00:00:00Z"}, received_at="2026-11-29T10:00:00"),
            "received_at: give a time with a timezone",
        ),
        # Was an OverflowError: received_at plus the TTL passed year 9999.
        (envelope(TEMPORARY, received_at="9999-12-31T23:00:00+00:00"), "received_at: give a time between"),
        # Was a RecursionError in json.loads.
        ('{"event":' + "[" * 100_000 + "]" * 100_000 + "}", "event: nested too deeply to read"),
    ],
    ids=["naive", "naive-with-ttl", "overflow", "deep"],
)
def test_an_entry_the_parser_chokes_on_is_rejected_alone_with_its_cause(
    make_services: Callable[..., Services], raw: str, cause: str
) -> None:
    services = make_services(store_retries=0)
    keys, redis = services.keys, services.redis
    good = publisher(services).publish("The staging database moved to eu-west-1")
    redis.xadd(keys.stream, {"id": "bad", "event": raw})

    report = drain_stream(services, consumer="test")

    assert (report.stored, report.rejected, report.failed) == (1, 1, 0)
    assert statuses(services, [good]) == [EventState.stored]
    rejected = read_status(redis, keys, "bad")
    assert rejected is not None and rejected.status is EventState.rejected
    assert (rejected.error or "").startswith(cause)
    services.store.flush()
    assert services.store.count() == 1 and redis.xlen(keys.stream) == 0


TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def test_no_dead_letter_keeps_a_secret_and_each_can_still_be_replayed(
    make_services: Callable[..., Services],
) -> None:
    services = make_services(claim_idle_ms=0, max_deliveries=1)
    keys, redis = services.keys, services.redis
    entries = {
        # In the JSON text the token follows `\n`: redacting the text missed it.
        "after-newline": envelope({"text": f"deploy token for CI:\n{TOKEN}", "agent": "ci"}),
        # Rejected for another cause: it used to be kept unscreened.
        "invalid": envelope({"text": f"deploy token for CI is {TOKEN}", "kind": "nonsense"}),
        # Redacting the text ate the closing quote's escape: the letter was no longer JSON.
        "quoted": envelope({"text": 'db password: "Zq7#kP2!mW9x"', "agent": "ops"}),
        "not-json": f'{{"event": "deploy token:\\n{TOKEN}"',
        # The cause names the unknown field: the token.
        "secret-field": envelope({"text": "x", "agent": "ci", TOKEN: 1}),
        # Said in words no rule reads: the model's finding, kept out of the letter too.
        "said": envelope({"text": "Candado de la bici: 4471", "agent": "wa", "source": "wa:msg:4471"}),
    }
    for event_id, raw in entries.items():
        redis.xadd(keys.stream, {"id": event_id, "event": raw})
    drain_stream(services, consumer="test")
    # Delivered too often: dead-lettered as failed, with the raw event.
    redis.xadd(
        keys.stream, {"id": "failed-raw", "event": envelope({"text": f"token {TOKEN}", "agent": "ci"})}
    )
    for consumer in ("c1", "c2"):
        take_batch(redis, keys, consumer, size=8, claim_idle_ms=0)
    assert drain_stream(services, consumer="c3").failed == 1

    letters = {d.id: d for d in list_dead_letters(redis, keys)}
    assert set(letters) == {*entries, "failed-raw"}
    for letter in letters.values():
        assert TOKEN not in letter.raw and "Zq7#kP2!mW9x" not in letter.raw, letter
        assert TOKEN not in letter.error, letter
        assert "[REDACTED:" in letter.raw, letter
    assert "bici: 4471" not in letters["said"].raw and "wa:msg:4471" in letters["said"].raw
    for event_id in ("after-newline", "invalid", "quoted", "secret-field", "failed-raw", "said"):
        json.loads(letters[event_id].raw)  # still JSON: `memhub dlq replay` can put it back
    assert letters["failed-raw"].status is EventState.failed


def test_an_id_another_agents_memory_holds_is_refused_once_its_status_expired(
    make_services: Callable[..., Services],
) -> None:
    services = make_services()
    keys, redis = services.keys, services.redis
    publisher(services, "wa").publish("Dana is severely allergic to peanuts", id="msg-1")
    drain_stream(services, consumer="test")
    redis.delete(keys.status("msg-1"))  # expired: publishing checks the status, so the id is free again

    publisher(services, "kitchen-bot").publish("Dana has no allergies", id="msg-1")
    report = drain_stream(services, consumer="test")

    assert (report.stored, report.already_stored, report.rejected) == (0, 0, 1)
    status = read_status(redis, keys, "msg-1")
    assert status is not None and status.status is EventState.rejected
    assert status.error == "id: 'msg-1' is already the id of another agent's memory; publish with another id"
    [memory] = services.store.get([memory_id_for("msg-1")])
    assert (memory.agent, memory.text) == ("wa", "Dana is severely allergic to peanuts")


def test_entries_a_dead_run_took_are_released_all_and_counted_once(
    make_services: Callable[..., Services],
) -> None:
    services = make_services(claim_idle_ms=60_000)
    keys, redis = services.keys, services.redis
    for i in range(1500):
        redis.xadd(keys.stream, {"id": f"e{i}", "event": "{}"})
    redis.xreadgroup(keys.group, "killed", {keys.stream: ">"})  # taken, never acknowledged

    assert release_abandoned(redis, keys, claim_idle_ms=60_000) == 1500
    # Claimable now, not in a minute, and each still delivered once so far.
    entries, deliveries = take_batch(redis, keys, "next", size=2000, claim_idle_ms=60_000)
    assert len(entries) == 1500
    assert set(deliveries.values()) == {2}


def test_stopping_the_hub_ends_a_drain_after_the_batch_it_holds(
    make_services: Callable[..., Services],
) -> None:
    services = make_services(ingest_batch_size=16, ingest_batches_per_job=1000)
    keys, redis = services.keys, services.redis
    ids = publisher(services).publish_many(
        [
            build_event(f"Backlog memory number {i} about the garden", agent="wa", channel=None)
            for i in range(800)
        ]
    )
    hub = EmbeddedHub(services=services, redis_server=None)
    hub.start_workers(1, sweep_interval=60)
    try:
        deadline = time.monotonic() + 60
        while EventState.stored not in statuses(services, ids[:16]):
            assert time.monotonic() < deadline, "no batch stored in 60 s"
            time.sleep(0.01)
    finally:
        hub.stop_workers(timeout=5)

    # Stopped between batches (a drain job used to go on through the backlog, and the store and
    # Redis were closed under it): nothing taken and left half done, the rest waits on the stream.
    assert not any(thread.is_alive() for thread in hub.threads)
    assert redis.xpending(keys.stream, keys.group)["pending"] == 0
    waiting = redis.xlen(keys.stream)
    assert 0 < waiting < 800
    assert statuses(services, ids).count(EventState.stored) == 800 - waiting


def test_an_event_written_by_tries_whose_acknowledgement_failed_is_stored_not_dead_lettered(
    make_services: Callable[..., Services], redis: Redis
) -> None:
    # Each try wrote the memory, then lost Redis before the transaction that acknowledges it. The event
    # is stored: it used to be dead-lettered as failed ("delivered 3 times without being stored").
    services = make_services(claim_idle_ms=0, max_deliveries=2)
    event_id = publisher(services).publish("Dana's passport expires in June 2027")
    for consumer in ("c1", "c2"):
        [(_, fields)] = take_batch(services.redis, services.keys, consumer, size=8, claim_idle_ms=0)[0]
        assert fields is not None
        memory = parse_entry(event_id, fields[b"event"].decode())
        write_memories(services, [memory])  # ... and the worker died before acknowledging

    report = drain_stream(services, consumer="c3")

    assert (report.failed, report.already_stored, report.stored) == (0, 1, 0)
    status = read_status(redis, services.keys, event_id)
    assert status is not None and status.status is EventState.stored
    assert status.memory_id == memory_id_for(event_id)
    assert services.store.count() == 1 and list_dead_letters(redis, services.keys) == []
    services.store.flush()
    assert redis.xlen(services.keys.stream) == 0  # acknowledged and gone


def test_a_stream_entry_whose_id_is_a_secret_is_refused_under_its_redacted_id(
    make_services: Callable[..., Services],
) -> None:
    # A publisher writing to the stream by hand put a token in the entry's id: it became the status key
    # (memhub:event:<token>) and the memory's event_id.
    services = make_services()
    keys, redis = services.keys, services.redis
    redis.xadd(keys.stream, {"id": TOKEN, "event": envelope({"text": "Dana likes figs", "agent": "ci"})})
    redis.xadd(keys.stream, {"id": "fine-1", "event": envelope({"text": "Dana likes dates", "agent": "ci"})})

    report = drain_stream(services, consumer="test")

    assert (report.rejected, report.stored) == (1, 1)  # the other event is not taken down with it
    [letter] = list_dead_letters(redis, keys)
    assert letter.id == "[REDACTED:github_token]" and letter.status is EventState.rejected
    assert letter.error.startswith("id: text contains") and TOKEN not in letter.error
    assert not any(TOKEN in key.decode() for key in redis.scan_iter(f"{keys.prefix}:*"))
    assert [m.event_id for m in services.store.get([memory_id_for("fine-1")])] == ["fine-1"]


class RefusesWrites:
    """A store whose first `failures` upserts raise `error`; everything else goes to the real one."""

    def __init__(self, store: object, error: Exception, failures: int) -> None:
        self.store, self.error, self.failures, self.calls = store, error, failures, 0

    def upsert(self, *args: object, **kwargs: object) -> object:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return self.store.upsert(*args, **kwargs)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self.store, name)


def test_a_batch_the_store_refuses_is_retried_until_it_is_written(
    make_services: Callable[..., Services],
) -> None:
    services = make_services(store_retries=3)
    store = RefusesWrites(services.store, OSError("store unavailable"), failures=2)
    event_id = publisher(services).publish("The boiler is serviced every October")

    report = drain_stream(replace(services, store=store), consumer="test")  # type: ignore[arg-type]

    assert (report.stored, report.failed, store.calls) == (1, 0, 3)
    assert statuses(services, [event_id]) == [EventState.stored]


def test_a_redis_error_is_not_retried(make_services: Callable[..., Services]) -> None:
    services = make_services(store_retries=3)
    store = RefusesWrites(services.store, RedisConnectionError("gone"), failures=5)
    publisher(services).publish("The boiler is serviced every October")

    with pytest.raises(RedisConnectionError):
        drain_stream(replace(services, store=store), consumer="test")  # type: ignore[arg-type]
    assert store.calls == 1
