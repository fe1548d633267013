"""One log line per request, with its request id: the caller's X-Request-ID, or a new one, echoed back."""

from __future__ import annotations

import logging
import time

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hub.logs import accepted_request_id, serving

log = logging.getLogger("memhub.requests")

HEADER = "X-Request-ID"


class RequestLog:
    """ASGI middleware: tags the request's log lines with its id, answers with it, logs how it went.

    The line has the method, the path (never the query string, which may name a person or a project),
    the status and the time taken.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = accepted_request_id(Headers(scope=scope).get(HEADER))
        status = 500  # what the line says if the app raises before answering
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message)[HEADER] = request_id
            await send(message)

        with serving(request_id):
            try:
                await self.app(scope, receive, send_with_id)
            finally:
                took = (time.perf_counter() - started) * 1000
                method, path = scope["method"], scope["path"]
                log.info(
                    "%s %s %d %.1f ms",
                    method,
                    path,
                    status,
                    took,
                    extra={"method": method, "path": path, "status": status, "duration_ms": round(took, 1)},
                )
