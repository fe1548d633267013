"""Pages agents read: the daily note, a project file; and closing an open loop."""

from __future__ import annotations

from typing import Annotated, TypeVar
from zoneinfo import ZoneInfo

from fastapi import APIRouter, HTTPException, Query, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field
from starlette.convertors import PathConvertor, register_url_convertor

from hub import closing
from hub.api.deps import CallerDep, ServicesDep
from hub.api.schemas import ChatType, ClosedMemory, DecisionText, ErrorBody, IsoDay
from hub.locks import writing
from hub.models import utcnow
from hub.pages import daily, project
from hub.pages.daily import DailyPage
from hub.pages.project import ProjectPage

router = APIRouter(tags=["pages"])

MARKDOWN = "text/markdown"
AS_MARKDOWN: dict[int | str, dict[str, object]] = {
    200: {
        "content": {MARKDOWN: {"schema": {"type": "string"}}},
        "description": "JSON, or markdown when asked.",
    }
}
Page = TypeVar("Page", DailyPage, ProjectPage)
# A page read in a group chat is read there: memories private to direct conversations stay off it, as
# they stay out of a search or a core block from there.
ChatTypeQuery = Annotated[
    ChatType | None,
    Query(
        description="Where the page is read. In a `group` chat, memories marked `private` (to direct "
        "conversations) are left off it."
    ),
]


class ResolveRequest(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"by": "owner", "note": "Booked for Tuesday"}]})

    by: Annotated[
        DecisionText, Field(max_length=200, description="Who closed it: `owner` or an agent's name.")
    ] = "owner"
    note: Annotated[DecisionText | None, Field(max_length=2_000, description="How it was settled.")] = None


def _weights(accept: str) -> dict[str, float]:
    """Each media type an Accept header names, with its weight (`q`, 1 when not given)."""
    found = {}
    for entry in accept.split(","):
        media, *params = (part.strip() for part in entry.split(";"))
        q = next((p.partition("=")[2] for p in params if p.replace(" ", "").startswith("q=")), "1")
        try:
            found[media.lower()] = float(q)
        except ValueError:
            found[media.lower()] = 0.0
    return found


def _negotiated(request: Request, page: Page) -> Page | Response:
    """The page itself as markdown for a client that asks for it (`Accept: text/markdown`), unless it
    prefers JSON: `application/json, text/markdown;q=0.1` is answered in JSON, `text/markdown;q=0` never
    in markdown."""
    weights = _weights(request.headers.get("accept", ""))
    if weights.get(MARKDOWN, 0.0) > max(weights.get("application/json", 0.0), 0.0):
        return Response(page.markdown, media_type=f"{MARKDOWN}; charset=utf-8")
    return page


@router.get("/v1/daily/{day}", summary="Render a daily page", response_model=DailyPage, responses=AS_MARKDOWN)
def daily_page(
    day: IsoDay,
    request: Request,
    services: ServicesDep,
    agent: str | None = None,
    chat_type: ChatTypeQuery = None,
) -> DailyPage | Response:
    """The day as `memory/daily/YYYY-MM-DD.md`: sessions, decisions, tasks, patterns, notes. Days and
    times are the owner's (`MEMHUB_TIMEZONE`)."""
    zone = ZoneInfo(services.settings.timezone)
    memories = daily.day_memories(
        services.store, day, agent=agent, zone=zone, exclude_private=chat_type == "group"
    )
    page = daily.render(day, memories, agent=agent, zone=zone)
    return _negotiated(request, page)


class AnyName(PathConvertor):
    """A project name as given: slashes ("client/acme", sent by the SDK as one %2F segment) and any
    other character, line breaks included (`path` alone stops at one)."""

    regex = r"[\s\S]+"


register_url_convertor("any_name", AnyName())


@router.get(
    "/v1/projects/{name:any_name}",
    summary="Render a project page",
    response_model=ProjectPage,
    responses=AS_MARKDOWN,
)
def project_page(
    name: str, request: Request, services: ServicesDep, chat_type: ChatTypeQuery = None
) -> ProjectPage | Response:
    """The project's file from its project-scoped memories: status, open loops, key decisions and why,
    and the newest notes (everything else said about the project)."""
    memories = project.project_memories(services.store, name, exclude_private=chat_type == "group")
    page = project.render(name, memories)
    return _negotiated(request, page)


@router.post(
    "/v1/memories/{memory_id}/resolve",
    summary="Close an open loop or task",
    response_model=ClosedMemory,
    responses={404: {"model": ErrorBody}, 409: {"model": ErrorBody}},
)
def resolve_memory(
    memory_id: str, services: ServicesDep, caller: CallerDep, body: ResolveRequest | None = None
) -> ClosedMemory:
    """Close an open loop (or a task): it becomes `resolved`, recorded in its history. The older open
    loops and tasks it answers, any agent's the key may read, close with it ("Renew Ido's passport",
    closed by "Renewed Ido's passport at the Interior Ministry office"), each with a note naming it;
    `answered` lists them."""
    body = body or ResolveRequest()
    now = utcnow()
    by = caller.decided_by(body.by)
    # Its history is rewritten from what is read here: among the hub's other writers (`hub.locks`), so
    # a review's sighting is not lost and two closings at once are one (the second is a 409).
    with writing(services.redis, services.keys):
        found = services.store.get([memory_id])
        if not found:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no memory with id {memory_id!r}")
        try:
            closed = closing.close(services.store, found[0], by=by, note=body.note, now=now)
        except closing.NotClosable as exc:
            raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from None
        answered = closing.close_answered(
            services.store,
            closed,
            by=by,
            min_similarity=services.settings.conflict_min_similarity,
            may_read=caller.may_read,
            now=now,
        )
    return ClosedMemory.model_validate({**closed.model_dump(), "answered": [m.id for m in answered]})
