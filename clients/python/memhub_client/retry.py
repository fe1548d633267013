"""Trying a call again when the way to the hub failed: the one backoff both SDKs use.

Our own loop rather than tenacity (which the hub's workers use): the client promises httpx and
pydantic only (tests/clients/test_distribution.py), and this is all of what it needs.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def retried(
    attempt: Callable[[], T],
    *,
    retries: int,
    backoff: float,
    transient: tuple[type[Exception], ...],
    again: Callable[[T], bool] = lambda _: False,
) -> T:
    """`attempt()`, tried again up to `retries` times while it raises one of `transient` or returns a
    result to try `again`; the last try's outcome stands. Each wait is drawn between 0 and `backoff`,
    then twice as long, ... (full jitter), so that agents cut off by one hub restart do not all come
    back at the same instant.

    Only for calls that are safe to repeat: reads, and publishing events that carry their ids.
    """
    for n in range(retries):
        try:
            result = attempt()
        except transient:
            pass
        else:
            if not again(result):
                return result
        time.sleep(random.uniform(0, backoff * 2**n))
    return attempt()
