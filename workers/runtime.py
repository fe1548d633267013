"""The services a worker process built at start-up, for job functions to use.

RQ calls job functions by dotted path with JSON arguments only, so the model and the store cannot
be passed as arguments; the worker installs them here once, explicitly, before taking jobs.
"""

from __future__ import annotations

import threading

from hub.services import Services

_installed: Services | None = None
# Set when the worker is asked to stop, so that a long job (a drain) ends at its next safe point.
_stopping = threading.Event()


class NoServicesError(RuntimeError):
    pass


def install(services: Services | None) -> None:
    global _installed
    _installed = services
    _stopping.clear()


def request_stop() -> None:
    """Ask the running jobs to finish what they hold and take nothing more."""
    _stopping.set()


def stop_requested() -> bool:
    return _stopping.is_set()


def current() -> Services:
    if _installed is None:
        raise NoServicesError(
            "no memhub services in this process: run jobs with `memhub worker` or `memhub up`"
        )
    return _installed
