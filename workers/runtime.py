"""The services a worker process built at start-up, for job functions to use.

RQ calls job functions by dotted path with JSON arguments only, so the model and the store cannot
be passed as arguments; the worker installs them here once, explicitly, before taking jobs.
"""

from __future__ import annotations

from hub.services import Services

_installed: Services | None = None


class NoServicesError(RuntimeError):
    pass


def install(services: Services | None) -> None:
    global _installed
    _installed = services


def current() -> Services:
    if _installed is None:
        raise NoServicesError(
            "no memhub services in this process: run jobs with `memhub worker` or `memhub up`"
        )
    return _installed
