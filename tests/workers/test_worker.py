"""The memhub worker around RQ's own: how it stops."""

import time
from collections.abc import Callable

import pytest
from redis import Redis

from hub.services import Services
from workers.worker import make_worker


def test_a_stopping_worker_leaves_its_channel_at_once_even_when_its_pubsub_thread_reads_the_reply_first(
    make_services: Callable[..., Services], redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    worker = make_worker(make_services())
    worker.subscribe()
    thread, channel = worker.pubsub_thread, worker.pubsub_channel_name
    assert thread is not None and thread.is_alive()
    assert redis.pubsub_numsub(channel) == [(channel.encode(), 1)]

    send = worker.pubsub.unsubscribe

    def send_then_yield(*args: str) -> None:
        send(*args)
        # The pubsub thread reads the reply before the stopping thread goes on: the order that
        # made a stopping worker wait out the thread's 60 s poll.
        time.sleep(0.5)

    monkeypatch.setattr(worker.pubsub, "unsubscribe", send_then_yield)
    started = time.monotonic()
    worker.unsubscribe()
    took = time.monotonic() - started

    assert took < 3, f"the worker took {took:.1f} s to leave its channel"
    assert not thread.is_alive()
    assert redis.pubsub_numsub(channel) == [(channel.encode(), 0)]
