"""Logging: every line says which request or job it belongs to; text for a terminal, JSON for a collector."""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Literal

LogFormat = Literal["text", "json"]

# The request (or job) the running code serves: set per request by `hub.api.request_log`, per job by
# the worker. Context variables follow a request into the thread pool that runs its route.
current_request: ContextVar[str | None] = ContextVar("memhub_request_id", default=None)

# A caller's X-Request-ID is written into every line of its request: only a plain token is taken, so
# no one can break a line or forge another with it.
REQUEST_ID = re.compile(r"^[\w.:\-]{1,128}$")
# What a request or batch line may carry besides its message (`extra=`), in JSON as fields of their own.
FIELDS = ("method", "path", "status", "duration_ms", "job", "events", "stored", "rejected", "failed")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s%(request_tag)s: %(message)s"


def new_request_id() -> str:
    return uuid.uuid4().hex


def accepted_request_id(given: str | None) -> str:
    """The caller's request id when it is a plain token, else a new one."""
    return given if given and REQUEST_ID.match(given) else new_request_id()


@contextmanager
def serving(request_id: str) -> Iterator[str]:
    """Tag every line logged inside with `request_id`."""
    token = current_request.set(request_id)
    try:
        yield request_id
    finally:
        current_request.reset(token)


class RequestTag(logging.Filter):
    """Adds the request id to every record a handler writes (None outside any request or job)."""

    def filter(self, record: logging.LogRecord) -> bool:
        request_id = getattr(record, "request_id", None) or current_request.get()
        record.request_id = request_id
        record.request_tag = f" [{request_id}]" if request_id else ""
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, request id and the request's fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
        }
        line.update({name: getattr(record, name) for name in FIELDS if hasattr(record, name)})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def configure(log_format: LogFormat, *, level: int = logging.INFO) -> None:
    """The process's logging, once at start: one handler on stderr, in `log_format`."""
    handler = logging.StreamHandler()
    handler.addFilter(RequestTag())
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level, handlers=[handler])
