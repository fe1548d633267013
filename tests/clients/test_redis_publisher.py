"""Publishing straight to a real Redis when the connection drops: tried again, queued once."""

from collections.abc import Callable
from typing import Any

import pytest
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from clients import NotAcknowledged, RedisPublisher
from hub.publishing import EventIdTaken
from hub.services import Services
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
