"""The review console: a page for the owner's decisions, over the JSON API (hub/api/console/)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, HTTPException, status
from fastapi.responses import FileResponse

router = APIRouter(include_in_schema=False)

CONSOLE = Path(__file__).resolve().parent.parent / "console"
ASSETS = {"console.js": "text/javascript", "console.css": "text/css"}
# The page runs only its own script and talks only to this hub; memories are agents' words, shown as text.
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


@router.get("/console")
def page() -> FileResponse:
    """No key needed for the page, which holds no data: it signs in, and every call it makes takes the key."""
    return FileResponse(CONSOLE / "index.html", media_type="text/html", headers=HEADERS)


@router.get("/console/{name}")
def asset(name: str) -> FileResponse:
    if name not in ASSETS:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no console file {name!r}")
    return FileResponse(CONSOLE / name, media_type=ASSETS[name], headers=HEADERS)
