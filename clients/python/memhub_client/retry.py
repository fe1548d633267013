"""Trying a call again when the way to the hub failed: the one backoff both SDKs use."""

from __future__ import annotations

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
    """`attempt()`, tried again up to `retries` times (waiting `backoff`, then twice as long, ...) while
    it raises one of `transient` or returns a result to try `again`; the last try's outcome stands.

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
        time.sleep(backoff * 2**n)
    return attempt()
