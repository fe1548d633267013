"""Refusing request bodies over the size limit, whether declared (Content-Length) or streamed (chunked)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def too_large(limit: int) -> str:
    return f"request body over {limit} bytes; send smaller batches"


class BodySizeLimit:
    """ASGI middleware: a declared size over the limit is refused before the body is read; a body
    sent without one (chunked) is counted as it arrives and refused once it passes the limit, so no
    more than the limit is ever held."""

    def __init__(self, app: ASGIApp, *, limit: Callable[[], int]) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit()
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            await JSONResponse(status_code=413, content={"detail": too_large(limit)})(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    # Raised inside the route's body read, FastAPI answers it as the 413 it is.
                    raise HTTPException(status_code=413, detail=too_large(limit))
            return message

        await self.app(scope, counted, send)
