import json

import pytest
from redis import Redis

from hub.keys import Keys
from hub.models import EventCreate
from hub.publishing import EventIdTaken, publish

KEYS = Keys("memhub-test")


def events(*texts: str, **fields: object) -> list[EventCreate]:
    return [EventCreate.model_validate({"text": t, "agent": "wa", **fields}) for t in texts]


def test_publish_appends_to_the_stream_and_records_queued(redis: Redis) -> None:
    ids = publish(redis, events("a", "b"), keys=KEYS, status_ttl_seconds=60)
    assert len(set(ids)) == 2
    entries = redis.xrange(KEYS.stream)
    assert [e[1][b"id"].decode() for e in entries] == ids
    body = json.loads(entries[0][1][b"event"])
    assert body["event"]["text"] == "a" and body["received_at"]
    assert redis.hget(KEYS.status(ids[0]), "status") == b"queued"
    assert 0 < redis.ttl(KEYS.status(ids[0])) <= 60


def test_same_client_id_is_appended_once(redis: Redis) -> None:
    first = publish(redis, events("a", id="evt-1"), keys=KEYS, status_ttl_seconds=60)
    second = publish(redis, events("a", id="evt-1"), keys=KEYS, status_ttl_seconds=60)
    assert first == second == ["evt-1"]
    assert redis.xlen(KEYS.stream) == 1


def test_an_id_another_agent_published_is_refused_and_nothing_of_the_batch_is_queued(redis: Redis) -> None:
    publish(
        redis,
        events("Dana has no allergies", id="wa-msg-1002", agent="kitchen-bot"),
        keys=KEYS,
        status_ttl_seconds=60,
    )
    assert redis.hget(KEYS.status("wa-msg-1002"), "agent") == b"kitchen-bot"
    batch = [*events("Dana likes tea"), *events("Dana is allergic to peanuts", id="wa-msg-1002")]
    with pytest.raises(EventIdTaken) as caught:
        publish(redis, batch, keys=KEYS, status_ttl_seconds=60)
    assert str(caught.value) == (
        "1.id: 'wa-msg-1002' is already the id of another agent's event; publish with another id"
    )
    assert redis.xlen(KEYS.stream) == 1  # the squatter's only: the other event of the batch waits too
    # Its own agent publishing it again (a retry) stays a no-op.
    publish(
        redis,
        events("Dana has no allergies", id="wa-msg-1002", agent="kitchen-bot"),
        keys=KEYS,
        status_ttl_seconds=60,
    )
    assert redis.xlen(KEYS.stream) == 1
