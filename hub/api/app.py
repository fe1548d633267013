"""The FastAPI application: publishing, event status, scoped search, memories."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

import hub
from hub.api.body_limit import BodySizeLimit
from hub.api.deps import get_principal, require_admin, require_owner_level
from hub.api.request_log import RequestLog
from hub.api.routes import (
    conflicts,
    console,
    core,
    dead_letters,
    events,
    health,
    keys,
    maintenance,
    memories,
    metrics,
    pages,
    promotions,
    search,
)
from hub.api.schemas import ErrorBody
from hub.auth.principal import Forbidden
from hub.services import Services, build_services
from hub.settings import Settings, get_settings

# What any route behind a key may answer besides its own responses (`hub.api.deps`, `body_limit`).
CALLER_ERRORS: dict[int | str, dict[str, object]] = {
    401: {
        "model": ErrorBody,
        "description": "No API key, or one unknown or revoked (when MEMHUB_AUTH is on).",
    },
    413: {"model": ErrorBody, "description": "The request body is over MEMHUB_MAX_REQUEST_BYTES."},
    429: {
        "model": ErrorBody,
        "description": "The key is over its requests a minute; `Retry-After` says when.",
    },
}
OWNER_ERRORS: dict[int | str, dict[str, object]] = {
    **CALLER_ERRORS,
    403: {
        "model": ErrorBody,
        "description": "The key is limited to some scopes, projects or persons (these routes show the "
        "owner's whole memory), or, on a POST, it may not write.",
    },
}
ADMIN_ERRORS: dict[int | str, dict[str, object]] = {
    **CALLER_ERRORS,
    403: {"model": ErrorBody, "description": "Only the admin key manages keys."},
}


def create_app(services: Services | None = None, *, settings: Settings | None = None) -> FastAPI:
    """The API over given services (embedded hub, tests), or over services it builds at start-up."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if services is not None:
            app.state.services = services
            yield
            return
        from hub.connections import connect

        cfg = settings or get_settings()
        if not cfg.redis_url:
            raise RuntimeError(
                "memhub api needs MEMHUB_REDIS_URL; `memhub up` runs everything on one machine"
            )
        built = build_services(cfg, connect(cfg.redis_url))
        built.watch_hub()
        app.state.services = built
        try:
            yield
        finally:
            built.close()

    app = FastAPI(
        title="memhub",
        version=hub.__version__,
        summary="A shared memory hub for AI agents: publish memories, search them by scope.",
        lifespan=lifespan,
    )
    if services is not None:
        app.state.services = services
        services.watch_hub()
    # Every route but the health check needs a caller; the owner's whole-memory views need an
    # unrestricted key, and managing keys the admin key.
    for module in (events, search, memories):
        app.include_router(module.router, dependencies=[Depends(get_principal)], responses=CALLER_ERRORS)
    for module in (conflicts, promotions, pages, core, maintenance, dead_letters, metrics):
        app.include_router(module.router, dependencies=[Depends(require_owner_level)], responses=OWNER_ERRORS)
    app.include_router(keys.router, dependencies=[Depends(require_admin)], responses=ADMIN_ERRORS)
    app.include_router(health.router)
    app.include_router(console.router)  # the page signs in; the JSON calls it makes take the key

    app.add_middleware(BodySizeLimit, limit=lambda: app.state.services.settings.max_request_bytes)
    app.add_middleware(RequestLog)  # outermost: a refusal by the size limit is logged and tagged too

    @app.exception_handler(Forbidden)
    async def forbidden(request: Request, exc: Forbidden) -> JSONResponse:
        return JSONResponse(status_code=403, content={"detail": str(exc)})

    @app.exception_handler(RequestValidationError)
    async def explain_validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"loc": list(e["loc"]), "msg": str(e["msg"]).removeprefix("Value error, "), "type": e["type"]}
            for e in exc.errors()
        ]
        message = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors)
        return JSONResponse(status_code=422, content={"detail": errors, "message": message})

    @app.exception_handler(StarletteHTTPException)
    async def explain_unreadable_body(request: Request, exc: StarletteHTTPException) -> Response:
        # FastAPI answers a body that is not UTF-8 with a bare 400 ("There was an error parsing the
        # body"); it is invalid JSON like any other, so it gets the 422 that invalid JSON gets.
        if exc.status_code == 400 and isinstance(exc.__cause__, UnicodeDecodeError):
            problem = f"the body is not UTF-8 JSON ({exc.__cause__.reason} at byte {exc.__cause__.start})"
            issue = {"loc": ["body"], "msg": problem, "type": "json_invalid"}
            return JSONResponse(status_code=422, content={"detail": [issue], "message": f"body: {problem}"})
        return await http_exception_handler(request, exc)

    return app
