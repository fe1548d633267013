"""The HTTP SDK: one agent's view of the hub. Takes an injectable httpx transport for tests."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import httpx

from clients.events import build_event
from hub.api.schemas import EventStatusPublic, MemoryPublic, SearchHit
from hub.models import EventCreate
from hub.status import EventState

DONE = {EventState.stored, EventState.rejected, EventState.failed}


class MemhubError(RuntimeError):
    """The hub refused a request; `status_code` and the hub's explanation are kept."""

    def __init__(self, status_code: int, detail: Any) -> None:
        super().__init__(f"memhub answered {status_code}: {detail}")
        self.status_code = status_code
        self.detail = detail


class Memhub:
    """A client bound to one agent (and optionally its channel)."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8420",
        *,
        agent: str,
        channel: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        client: httpx.Client | None = None,
    ) -> None:
        """`transport` or a ready `client` (e.g. Starlette's TestClient) drive the hub in-process."""
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.agent = agent
        self.channel = channel
        self._http = client or httpx.Client(base_url=base_url, timeout=timeout, transport=transport)
        self._http.headers.update(headers)

    def __enter__(self) -> Memhub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._http.request(method, path, **kwargs)
        if response.status_code >= 400:
            try:
                body = response.json()
                detail = body.get("message") or body.get("detail")
            except ValueError:
                detail = response.text
            raise MemhubError(response.status_code, detail)
        return response.json()

    def publish(self, text: str, **fields: Any) -> str:
        """Publish one memory; returns its event id once the hub holds it durably."""
        return self.publish_many([build_event(text, agent=self.agent, channel=self.channel, **fields)])[0]

    def publish_many(self, events: Iterable[EventCreate]) -> list[str]:
        body = {"events": [e.model_dump(mode="json", exclude_none=True) for e in events]}
        ids: list[str] = self._call("POST", "/v1/events", json=body)["ids"]
        return ids

    def status(self, event_id: str) -> EventStatusPublic:
        return EventStatusPublic.model_validate(self._call("GET", f"/v1/events/{event_id}"))

    def wait(self, event_id: str, *, timeout: float = 30.0, poll: float = 0.02) -> EventStatusPublic:
        """Block until the event is stored, rejected or failed."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.status(event_id)
            if found.status in DONE:
                return found
            if time.monotonic() > deadline:
                raise TimeoutError(f"event {event_id} still {found.status} after {timeout} s")
            time.sleep(poll)

    def search(self, query: str, *, limit: int = 10, **filters: Any) -> list[SearchHit]:
        """Search what this agent may see; `project=`, `person=`, `scopes=`, `kinds=` narrow or widen it."""
        body = {"query": query, "agent": self.agent, "channel": self.channel, "limit": limit, **filters}
        result = self._call("POST", "/v1/search", json={k: v for k, v in body.items() if v is not None})
        return [SearchHit.model_validate(h) for h in result["hits"]]

    def memory(self, memory_id: str) -> MemoryPublic:
        return MemoryPublic.model_validate(self._call("GET", f"/v1/memories/{memory_id}"))
