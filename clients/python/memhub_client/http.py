"""The HTTP client: one agent's view of the hub. Takes an injectable httpx transport for tests."""

from __future__ import annotations

import math
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import date
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from memhub_client.events import NotAcknowledged, as_event, build_event, describe, with_ids
from memhub_client.models import (
    ClosedMemory,
    CompactionJob,
    Conflict,
    ConflictPage,
    CoreBlock,
    DailyPage,
    DecisionMade,
    EventCreate,
    EventState,
    EventStatusPublic,
    Forgotten,
    MemoryPage,
    MemoryPublic,
    Pattern,
    ProjectPage,
    ProposalView,
    Question,
    QuestionPage,
    SearchHit,
    SessionSummary,
    UseRecorded,
    WeeklyReview,
)
from memhub_client.retry import retried


def _segment(value: str) -> str:
    """`value` as one path segment: "client/acme" or "what?now" name a project, not a path and a query."""
    return urllib.parse.quote(value, safe="")


class MemhubError(RuntimeError):
    """The hub refused a request; `status_code` and the hub's explanation are kept."""

    def __init__(self, status_code: int, detail: Any, *, retry_after: float | None = None) -> None:
        super().__init__(f"memhub answered {status_code}: {detail}")
        self.status_code = status_code
        self.detail = detail
        self.retry_after = retry_after  # seconds, from a 429's Retry-After: when a retry goes through


def _retry_after(response: httpx.Response) -> float | None:
    try:
        seconds = float(response.headers["retry-after"])
    except (KeyError, ValueError):  # absent, or an HTTP date (the hub sends seconds)
        return None
    return seconds if 0 <= seconds < math.inf else None  # a proxy's "-1" or "nan" says nothing


# `Memhub.wait` asks at its `poll` interval for this many seconds, then less often, up to MAX_POLL.
FAST_POLLING = 0.5
MAX_POLL = 1.0

# A narrowing filter of `memories`: one value, or any of several.
Narrowing = str | Sequence[str] | None


def _given(**values: Any) -> dict[str, Any]:
    """Those of `values` that are not None: what a request sends, leaving the hub's defaults to it."""
    return {k: v for k, v in values.items() if v is not None}


T = TypeVar("T")


def _every(page: Callable[[str | None], tuple[Sequence[T], str | None]]) -> Iterator[T]:
    """Each item of `page(offset)`, following its next offset from the first page to the last."""
    offset: str | None = None
    while True:
        items, offset = page(offset)
        yield from items
        if offset is None:
            return


# Answers worth trying again: the hub, or a proxy before it, could not take the request just then.
RETRY_STATUSES = frozenset({502, 503, 504})


class Memhub:
    """A client bound to one agent (and optionally its channel).

    Requests that are safe to repeat (reads, searches, and publishing: events carry their ids from
    the first try) are tried again after a dropped connection, a timeout or a 502/503/504, up to
    `retries` times, waiting `backoff`, then twice as long, and so on. Any request the hub refused
    for the key's rate limit (429: it did nothing) is tried again once its `Retry-After` has passed,
    up to `retries` times, while the waits add up to `rate_limit_wait` seconds at most (0: raise
    MemhubError at once, with `retry_after`).
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8420",
        *,
        agent: str,
        channel: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        retries: int = 3,
        backoff: float = 0.5,
        rate_limit_wait: float = 10.0,
        transport: httpx.BaseTransport | None = None,
        client: httpx.Client | None = None,
    ) -> None:
        """`transport` or a ready `client` (e.g. Starlette's TestClient) drive the hub in-process. A
        client given is shared, not owned: each request carries this agent's key, and `close()`
        leaves the client open."""
        self.agent = agent
        self.channel = channel
        self.retries = retries
        self.rate_limit_wait = rate_limit_wait
        self.backoff = backoff
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._owned = client is None
        self._http = client or httpx.Client(base_url=base_url, timeout=timeout, transport=transport)

    def __enter__(self) -> Memhub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._owned:
            self._http.close()

    def _call(
        self,
        method: str,
        path: str,
        *,
        idempotent: bool | None = None,
        patience: float | None = None,
        **kwargs: Any,
    ) -> Any:
        """The hub's JSON answer; `idempotent` (by default: a GET) lets a failed try be repeated, and
        `patience` (by default `rate_limit_wait`) bounds the waits for the rate limit."""
        if idempotent is None:
            idempotent = method == "GET"
        patience = self.rate_limit_wait if patience is None else patience
        for tried in range(self.retries + 1):
            response = retried(
                lambda: self._http.request(method, path, headers=self._headers, **kwargs),
                retries=self.retries if idempotent else 0,
                backoff=self.backoff,
                transient=(httpx.TransportError,),
                again=lambda answer: answer.status_code in RETRY_STATUSES,
            )
            pause = _retry_after(response) if response.status_code == 429 else None
            if pause is None or pause > patience or tried == self.retries:
                break
            time.sleep(pause)  # refused before anything was done: the same request, once it goes through
            patience -= pause
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:  # a proxy's page, not the hub's answer
                body = response.text
            # The hub answers {"detail": ..., "message": ...}; a proxy may answer any JSON at all.
            detail = (body.get("message") or body.get("detail")) if isinstance(body, dict) else body
            raise MemhubError(response.status_code, detail, retry_after=_retry_after(response))
        return response.json()

    def publish(self, text: str, **fields: Any) -> str:
        """Publish one memory; returns its event id once the hub holds it durably. `channel=` overrides
        the client's for this event (an agent that answers in more than one channel)."""
        channel = fields.pop("channel", self.channel)
        return self.publish_many([build_event(text, agent=self.agent, channel=channel, **fields)])[0]

    def publish_many(self, events: Iterable[EventCreate | BaseModel | Mapping[str, Any]]) -> list[str]:
        """Publish up to 500 events at once (this client's `EventCreate`s, dicts, or models with its
        fields); returns their ids once the hub holds them durably.

        Raises MemhubError when the hub refuses them (nothing stored), NotAcknowledged when no try got
        an answer (publish its `events` again).
        """
        batch = with_ids(as_event(e) for e in events)
        body = {"events": [e.model_dump(mode="json", exclude_none=True) for e in batch]}
        try:
            ids: list[str] = self._call("POST", "/v1/events", json=body, idempotent=True)["ids"]
        except httpx.TransportError as exc:
            raise NotAcknowledged(batch, exc) from exc
        except MemhubError as exc:
            if exc.status_code < 500:  # refused: nothing of the batch was stored
                raise
            raise NotAcknowledged(batch, exc) from exc
        return ids

    def status(self, event_id: str, *, patience: float | None = None) -> EventStatusPublic:
        """Where the event stands; `patience` bounds the waits for the rate limit (see the class)."""
        path = f"/v1/events/{_segment(event_id)}"
        return EventStatusPublic.model_validate(self._call("GET", path, patience=patience))

    def wait(
        self, event_id: str, *, reviewed: bool = True, timeout: float = 30.0, poll: float = 0.02
    ) -> EventStatusPublic:
        """Block until the event is rejected, failed, or stored and reviewed (or only stored: `reviewed=False`).

        Stored means searchable. The review that follows may fold a restatement into the memory it
        restates; once reviewed, `memory_id` names the memory that holds the event.

        Asks every `poll` seconds for the first half second (an idle hub stores an event in ~50 ms),
        then less often, up to once a second: a wait behind a backlog costs the key one request a
        second of its rate limit, not fifty. Refused for the rate limit (other threads of this agent
        searching, say), it asks again once the hub's `Retry-After` has passed, as every request does,
        but only within `timeout`.
        """
        start = time.monotonic()
        interval = poll
        while True:
            found = self.status(event_id, patience=max(timeout - (time.monotonic() - start), 0.0))
            if found.settled or (not reviewed and found.status is EventState.stored):
                return found
            waited = time.monotonic() - start
            if waited > timeout:
                raise TimeoutError(f"event {event_id} still {found.status} after {timeout} s")
            time.sleep(interval)
            if waited > FAST_POLLING:
                interval = min(interval * 1.5, max(poll, MAX_POLL))

    def search(self, query: str, *, limit: int = 10, **filters: Any) -> list[SearchHit]:
        """Search what this agent may see; `project=` and `person=` widen it (`everywhere=True`: every
        project and person the key may read), the rest narrow it.

        Narrowing: `scopes`, `kinds`, `agents`, `channels`, `tiers`, `states`, `confidences`,
        `occurred_after` / `occurred_before` (datetimes with a timezone), `related`. `chat_type="group"`
        leaves out memories private to direct conversations. Ranking: `mode`, `recency` (a half-life
        in days), `diversity` (0 to 1). See `SearchRequest` for each.
        """
        body = {"query": query, "agent": self.agent, "channel": self.channel, "limit": limit, **filters}
        json_body = to_jsonable_python(_given(**body))
        result = self._call("POST", "/v1/search", json=json_body, idempotent=True)
        return [SearchHit.model_validate(h) for h in result["hits"]]

    def memory(self, memory_id: str) -> MemoryPublic:
        return MemoryPublic.model_validate(self._call("GET", f"/v1/memories/{_segment(memory_id)}"))

    def statuses(self, event_ids: list[str]) -> list[EventStatusPublic | None]:
        """Up to 500 statuses in one call; None for an id the hub does not know."""
        answer = self._call("POST", "/v1/events/statuses", json={"ids": event_ids}, idempotent=True)
        found = answer["statuses"]
        return [None if s is None else EventStatusPublic.model_validate(s) for s in found]

    def memories(
        self,
        *,
        limit: int = 500,
        offset: str | None = None,
        tier: Narrowing = None,
        kind: Narrowing = None,
        scope: Narrowing = None,
        state: Narrowing = None,
    ) -> MemoryPage:
        """One page of this agent's memories, every scope; `tier=`, `kind=`, `scope=`, `state=` (one value
        or several) narrow it. Named here, not taken as `**filters`: the route ignores a query parameter
        it does not know, so `tiers=["core"]` (search's spelling) listed every memory."""
        params = _given(
            agent=self.agent, limit=limit, offset=offset, tier=tier, kind=kind, scope=scope, state=state
        )
        found = self._call("GET", "/v1/memories", params=params)
        return MemoryPage.model_validate(found)

    def all_memories(
        self,
        *,
        page_size: int = 500,
        tier: Narrowing = None,
        kind: Narrowing = None,
        scope: Narrowing = None,
        state: Narrowing = None,
    ) -> Iterator[MemoryPublic]:
        """Every memory of this agent, page after page, narrowed as `memories` narrows it."""

        def page(offset: str | None) -> tuple[list[MemoryPublic], str | None]:
            found = self.memories(
                limit=page_size, offset=offset, tier=tier, kind=kind, scope=scope, state=state
            )
            return found.memories, found.next_offset

        return _every(page)

    def conflict_page(
        self,
        *,
        limit: int = 500,
        offset: str | None = None,
        status: str | None = None,
        severity: str | None = None,
        scope: str | None = None,
        project: str | None = None,
        person: str | None = None,
        every_agent: bool = False,
    ) -> ConflictPage:
        """One page of the conflicts in the ledger that involve this agent (`every_agent`: the whole
        ledger), newest first; pass its `next_offset` as `offset` for the next. Conflicts recorded
        meanwhile move nothing between pages. `status=`, `severity=`, `scope=`, `project=`, `person=`
        narrow it (named, as in `memories`, so a misspelt one is an error)."""
        params = _given(
            agent=None if every_agent else self.agent,
            limit=limit,
            offset=offset,
            status=status,
            severity=severity,
            scope=scope,
            project=project,
            person=person,
        )
        return ConflictPage.model_validate(self._call("GET", "/v1/conflicts", params=params))

    def all_conflicts(
        self,
        *,
        page_size: int = 500,
        status: str | None = None,
        severity: str | None = None,
        scope: str | None = None,
        project: str | None = None,
        person: str | None = None,
        every_agent: bool = False,
    ) -> Iterator[Conflict]:
        """Every conflict involving this agent (`every_agent`: every conflict), newest first, page after
        page, narrowed as `conflict_page` narrows it."""

        def page(offset: str | None) -> tuple[list[Conflict], str | None]:
            found = self.conflict_page(
                limit=page_size,
                offset=offset,
                status=status,
                severity=severity,
                scope=scope,
                project=project,
                person=person,
                every_agent=every_agent,
            )
            return found.conflicts, found.next_offset

        return _every(page)

    def conflicts(
        self,
        *,
        status: str | None = None,
        severity: str | None = None,
        scope: str | None = None,
        project: str | None = None,
        person: str | None = None,
    ) -> list[Conflict]:
        """Every conflict involving this agent, newest first, as a list (`all_conflicts` reads it a
        page at a time, `conflict_page` one page); narrowed as `conflict_page` narrows it."""
        return list(
            self.all_conflicts(status=status, severity=severity, scope=scope, project=project, person=person)
        )

    def conflict(self, conflict_id: str) -> Conflict:
        """One conflict (a search hit's `conflict_ids`, a question's `conflict_id`): both statements, their
        memories, agents, channels and sources, the severity and any decision."""
        return Conflict.model_validate(self._call("GET", f"/v1/conflicts/{_segment(conflict_id)}"))

    def question_page(self, *, limit: int = 500, offset: str | None = None) -> QuestionPage:
        """One page of the questions this agent should ask the owner (see `questions`), newest first;
        pass its `next_offset` as `offset` for the next."""
        params = _given(agent=self.agent, limit=limit, offset=offset)
        return QuestionPage.model_validate(self._call("GET", "/v1/questions", params=params))

    def questions(self) -> list[Question]:
        """Open conflicts the owner is to decide that this agent should ask about, each with the channel
        to ask in and the answers it may take; send the answer with `resolve_conflict`. Every page."""

        def page(offset: str | None) -> tuple[list[Question], str | None]:
            found = self.question_page(offset=offset)
            return found.questions, found.next_offset

        return list(_every(page))

    def resolve_conflict(
        self, conflict_id: str, keep: str, *, note: str | None = None, by: str = "owner"
    ) -> Conflict:
        """Decide a conflict as the owner answered: `keep` a memory id (the other is superseded), or
        `both`. A second decision is refused (409), naming the one that stands."""
        body = {"keep": keep, "by": by, "note": note}
        found = self._call("POST", f"/v1/conflicts/{_segment(conflict_id)}/resolve", json=body)
        return Conflict.model_validate(found)

    def forget(self, memory_id: str, *, by: str = "owner") -> Forgotten:
        """Forget a memory for good, as the owner asked ("forget that"): it, the near-duplicates merged
        into it and its words wherever the hub kept them. Needs an unrestricted key that may write."""
        found = self._call("DELETE", f"/v1/memories/{_segment(memory_id)}", params={"by": by})
        return Forgotten.model_validate(found)

    def used(self, memory_id: str) -> UseRecorded:
        """Report that a memory this agent retrieved was used: a signal toward long-term memory."""
        return UseRecorded.model_validate(self._call("POST", f"/v1/memories/{_segment(memory_id)}/used"))

    def summarize_session(
        self,
        text: str | None = None,
        *,
        session: str,
        decisions: Iterable[str | DecisionMade | BaseModel | Mapping[str, Any]] = (),
        tasks_completed: Iterable[str] = (),
        patterns: Iterable[Pattern | BaseModel | Mapping[str, Any]] = (),
        open_loops: Iterable[str] = (),
        promote: Iterable[str] = (),
        **fields: Any,
    ) -> str:
        """Publish the session's summary; returns its event id.

        Each item becomes a memory linked to the session: `patterns` are deductions with their
        evidence, `promote` names facts to keep long-term. A decision or pattern may be this client's
        model, a dict, or another model with its fields (the server's own).
        """
        summary = SessionSummary.model_validate(
            to_jsonable_python(
                {
                    "decisions": [{"text": d} if isinstance(d, str) else d for d in decisions],
                    "tasks_completed": list(tasks_completed),
                    "patterns": list(patterns),
                    "open_loops": list(open_loops),
                    "promote": list(promote),
                }
            )
        )
        text = text or describe(summary, session=session)
        return self.publish(text, kind="summary", session=session, summary=summary, **fields)

    def promotions(self, *, status: str | None = "pending") -> list[ProposalView]:
        """Promotion proposals (pending ones by default), each with its memory, signals and score."""
        found = self._call("GET", "/v1/promotions", params={"status": status} if status else {})
        return [ProposalView.model_validate(p) for p in found["proposals"]]

    def approve(self, proposal_id: str, *, note: str | None = None, by: str = "owner") -> ProposalView:
        """The owner's yes: the memory moves to the proposed tier."""
        return self._decide(proposal_id, "approve", by=by, note=note)

    def reject(self, proposal_id: str, *, note: str | None = None, by: str = "owner") -> ProposalView:
        """The owner's no: the memory stays, and the same move is not proposed again."""
        return self._decide(proposal_id, "reject", by=by, note=note)

    def _decide(self, proposal_id: str, verb: str, *, by: str, note: str | None) -> ProposalView:
        found = self._call(
            "POST", f"/v1/promotions/{_segment(proposal_id)}/{verb}", json={"by": by, "note": note}
        )
        return ProposalView.model_validate(found)

    def weekly_review(self, *, days: int = 7) -> WeeklyReview:
        """Memories with some signals, short of a proposal, for the owner's weekly look."""
        return WeeklyReview.model_validate(self._call("GET", "/v1/review/weekly", params={"days": days}))

    def daily(self, day: date | str, *, every_agent: bool = False, chat_type: str | None = None) -> DailyPage:
        """This agent's `memory/daily/YYYY-MM-DD.md` for `day` (every agent's with `every_agent`).

        `chat_type="group"` for a session in a group chat: memories private to direct conversations
        are left off, as its searches leave them out.
        """
        params = _given(agent=None if every_agent else self.agent, chat_type=chat_type)
        return DailyPage.model_validate(self._call("GET", f"/v1/daily/{day}", params=params))

    def project(self, name: str, *, chat_type: str | None = None) -> ProjectPage:
        """The project's file: status, open loops, key decisions and why (`chat_type` as for `daily`)."""
        params = _given(chat_type=chat_type)
        return ProjectPage.model_validate(self._call("GET", f"/v1/projects/{_segment(name)}", params=params))

    def resolve(self, memory_id: str, *, note: str | None = None) -> ClosedMemory:
        """Close an open loop (or task), as this agent; `answered` names the older loops it closed too."""
        body = {"by": self.agent, "note": note}
        return ClosedMemory.model_validate(
            self._call("POST", f"/v1/memories/{_segment(memory_id)}/resolve", json=body)
        )

    def load_core(
        self, *, person: str | None = None, project: str | None = None, chat_type: str | None = None
    ) -> CoreBlock:
        """This agent's core memory, within its budget: put `.markdown` in context at session start.

        `chat_type="group"` for a session in a group chat: memories private to direct conversations
        are left out, as its searches leave them out.
        """
        params = _given(agent=self.agent, person=person, project=project, chat_type=chat_type)
        found = self._call("GET", "/v1/core", params=params)
        return CoreBlock.model_validate(found)

    def compact(self, *, dry_run: bool = False) -> CompactionJob:
        """Queue this agent's compaction (a dry run changes nothing); follow it with `compaction(id)`."""
        body = {"agent": self.agent, "dry_run": dry_run}
        return CompactionJob.model_validate(self._call("POST", "/v1/maintenance/compactions", json=body))

    def compaction(self, job_id: str) -> CompactionJob:
        """A compaction's state and progress; its report once finished."""
        return CompactionJob.model_validate(
            self._call("GET", f"/v1/maintenance/compactions/{_segment(job_id)}")
        )
