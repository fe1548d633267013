"""Publishing straight to a real Redis when the connection drops: tried again, queued once."""

import json
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from hub.publishing import EventIdTaken
from hub.redis_publisher import RedisPublisher, build_event
from hub.screening import SecretInEvent
from hub.services import Services
from memhub_client import NotAcknowledged
from tests.workers.test_ingest import publisher as ingest_publisher


class DropsAnswers(Redis):
    """A real Redis client whose first `lose` scripts run on the server and lose the answer."""

    lose = 0

    def eval(self, *args: Any, **kwargs: Any) -> Any:
        answer = super().eval(*args, **kwargs)
        if self.lose:
            self.lose -= 1
            raise RedisConnectionError("connection reset before the answer came back")
        return answer


def publisher(services: Services, redis_url: str, lose: int) -> RedisPublisher:
    redis = DropsAnswers.from_url(redis_url)
    redis.lose = lose
    s = services.settings
    return RedisPublisher(redis, agent="wa", prefix=s.redis_prefix, queue_name=s.queue_name, backoff=0.01)


def test_a_publish_that_lost_its_answer_is_queued_once(
    make_services: Callable[..., Services], redis_url: str
) -> None:
    services = make_services()
    event_id = publisher(services, redis_url, lose=2).publish("The Skoda's MOT is due on 4 June")
    entries = services.redis.xrange(services.keys.stream)
    assert len(entries) == 1 and event_id.encode() in entries[0][1].values()


def test_after_its_retries_it_raises_with_the_events_to_publish_again(
    make_services: Callable[..., Services], redis_url: str
) -> None:
    services = make_services()
    with pytest.raises(NotAcknowledged) as unanswered:
        publisher(services, redis_url, lose=4).publish("The Skoda's MOT is due on 4 June")
    assert isinstance(unanswered.value.__cause__, RedisConnectionError)
    assert services.redis.xlen(services.keys.stream) == 1  # the first try reached Redis; no other did
    # Published again with the ids the error hands back: still one entry.
    again = publisher(services, redis_url, lose=0).publish_many(unanswered.value.events)
    assert again == unanswered.value.event_ids
    assert services.redis.xlen(services.keys.stream) == 1


def test_an_id_another_agent_holds_is_refused_and_a_retry_of_ones_own_is_not(
    make_services: Callable[..., Services], redis_url: str
) -> None:
    services = make_services()
    assert publisher(services, redis_url, lose=0).publish("Dana's MOT is due", id="msg-7") == "msg-7"
    other = ingest_publisher(services, "tg")
    with pytest.raises(EventIdTaken, match="'msg-7' is already the id of another agent's event"):
        other.publish("Dana's MOT is due", id="msg-7")
    assert publisher(services, redis_url, lose=1).publish("Dana's MOT is due", id="msg-7") == "msg-7"
    assert services.redis.xlen(services.keys.stream) == 1


def test_it_refuses_what_the_http_path_refuses_before_anything_is_queued(
    make_services: Callable[..., Services], redis_url: str
) -> None:
    # An event changed with model_copy (never validated) went onto the stream and got an id, to be
    # rejected later by a worker; over HTTP it is a 422 at once. Another agent's event went too (403).
    services = make_services()
    wa = publisher(services, redis_url, lose=0)
    unchecked = build_event("Dana is probably vegetarian", agent="wa", channel=None)
    with pytest.raises(ValidationError, match="a `deduced` event must carry at least one piece of evidence"):
        wa.publish_many([unchecked.model_copy(update={"kind": "deduced"})])
    with pytest.raises(ValueError, match="0.agent: this publisher publishes as 'wa', not 'tg'"):
        wa.publish_many([build_event("Dana likes tea", agent="tg", channel=None)])
    with pytest.raises(SecretInEvent, match="password"):
        wa.publish("the router's admin password: Wq8-rT3p-Lm2x")
    assert services.redis.xlen(services.keys.stream) == 0

    # One event in another channel than the publisher's: it raised TypeError.
    wa.channel = "whatsapp"
    wa.publish("Dana's flight lands at 14:05", channel="sms")
    [(_, fields)] = services.redis.xrange(services.keys.stream)
    assert json.loads(fields[b"event"])["event"]["channel"] == "sms"


def test_a_publisher_from_a_url_closes_its_connection_and_one_given_stays_open(
    make_services: Callable[..., Services], redis_url: str
) -> None:
    # `with RedisPublisher.from_url(...)` raised TypeError (no context manager), and there was no
    # close(): each short-lived publisher left its connection open.
    services = make_services()
    s = services.settings

    def connected() -> list[str]:
        return [c["name"] for c in services.redis.client_list() if c["name"] == "wa-publisher"]

    url = f"{redis_url}{'&' if '?' in redis_url else '?'}client_name=wa-publisher"
    with RedisPublisher.from_url(url, agent="wa", prefix=s.redis_prefix, queue_name=s.queue_name) as wa:
        wa.publish("The Skoda's MOT is due on 4 June")
        assert connected() == ["wa-publisher"]
    assert connected() == []
    given = RedisPublisher(services.redis, agent="wa", prefix=s.redis_prefix, queue_name=s.queue_name)
    given.close()
    assert services.redis.xlen(services.keys.stream) == 1  # the caller's connection still answers
