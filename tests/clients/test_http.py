"""The HTTP SDK against a real hub's app: what it tries again, and that a retried publish stores once."""

import re
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from hub.api.app import create_app
from hub.embedded import EmbeddedHub
from hub.services import Services
from memhub_client import Memhub, MemhubError, NotAcknowledged
from tests.api.test_access import ADMIN, new_key
from tests.api.test_conflicts import recorded
from tests.compaction.helpers import stored


class Unreliable(httpx.BaseTransport):
    """Between the SDK and the hub: each request reaches the hub, and the first `lose` answers are
    lost on the way back (a timeout); or the first `refuse` requests get a 503 and never reach it."""

    def __init__(self, hub: httpx.BaseTransport, *, lose: int = 0, refuse: int = 0) -> None:
        self.hub, self.lose, self.refuse = hub, lose, refuse
        self.sent: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(f"{request.method} {request.url.path}")
        if self.refuse:
            self.refuse -= 1
            return httpx.Response(503, json={"detail": "the proxy has no hub to send this to"})
        answer = self.hub.handle_request(request)
        body = answer.read()  # the hub has answered: whatever it did is done
        if self.lose:
            self.lose -= 1
            raise httpx.ReadTimeout("the hub's answer was lost", request=request)
        return httpx.Response(answer.status_code, headers=answer.headers, content=body)


def agent_over(transport: httpx.BaseTransport, **options: Any) -> Memhub:
    return Memhub(
        "http://testserver", agent="wa", channel="whatsapp", transport=transport, backoff=0.01, **options
    )


def test_a_publish_whose_answers_are_lost_is_sent_again_and_stored_once(
    api: TestClient, hub: EmbeddedHub, settle: Callable[..., None]
) -> None:
    transport = Unreliable(api._transport, lose=2)  # the TestClient's own transport: the app in-process
    agent = agent_over(transport)
    event_id = agent.publish("Dana's passport expires in March 2027")
    assert transport.sent == ["POST /v1/events"] * 3
    memory_id = agent.wait(event_id).memory_id
    settle()
    # Three deliveries of one event: one memory, stated once (a second event would be a second sighting).
    assert hub.services.store.count() == 1
    (memory,) = hub.services.store.get([memory_id or ""])
    assert [s.event_id for s in memory.sightings] == [event_id]


def test_after_its_retries_the_sdk_raises_and_changes_are_never_sent_twice(
    api: TestClient, hub: EmbeddedHub, settle: Callable[..., None]
) -> None:
    transport = Unreliable(api._transport, lose=10)
    with pytest.raises(NotAcknowledged) as unanswered:
        agent_over(transport).publish("Noa's swimming moved to Thursdays")
    assert transport.sent == ["POST /v1/events"] * 4  # the first try and 3 more
    assert isinstance(unanswered.value.__cause__, httpx.ReadTimeout)
    # Every try reached the hub. Published again as the error hands them back, the events are
    # stored once: one memory, stated once.
    (event_id,) = unanswered.value.event_ids
    agent = agent_over(Unreliable(api._transport))
    assert agent.publish_many(unanswered.value.events) == [event_id]
    memory_id = agent.wait(event_id).memory_id
    settle()
    (memory,) = hub.services.store.get([memory_id or ""])
    assert [s.event_id for s in memory.sightings] == [event_id] and hub.services.store.count() == 1

    # Recording a use changes the memory's score: a lost answer is not a reason to record it twice.
    transport = Unreliable(api._transport, lose=1)
    with pytest.raises(httpx.ReadTimeout):
        agent_over(transport).used("no-such-memory")
    assert transport.sent == ["POST /v1/memories/no-such-memory/used"]


def test_a_503_is_tried_again_and_a_422_is_not(api: TestClient, hub: EmbeddedHub) -> None:
    transport = Unreliable(api._transport, refuse=2)
    assert agent_over(transport).search("passport") == []
    assert transport.sent == ["POST /v1/search"] * 3

    transport = Unreliable(api._transport)
    with pytest.raises(MemhubError, match="422"):  # the hub refuses a credential: sent once
        agent_over(transport).publish("the router's admin password: Wq8-rT3p-Lm2x")
    assert transport.sent == ["POST /v1/events"]


class Recording(httpx.BaseTransport):
    """Passes each request to the hub, noting its path as sent and the key it carried."""

    def __init__(self, hub: httpx.BaseTransport) -> None:
        self.hub = hub
        self.sent: list[tuple[str, str | None]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append((request.url.raw_path.decode(), request.headers.get("authorization")))
        answer = self.hub.handle_request(request)
        return httpx.Response(answer.status_code, headers=answer.headers, content=answer.read())


def test_agents_sharing_one_client_each_send_their_own_key(api: TestClient) -> None:
    transport = Recording(api._transport)
    shared = httpx.Client(base_url="http://testserver", transport=transport)
    wa = Memhub(agent="wa", api_key="key-of-wa", client=shared)
    owner = Memhub(agent="owner", api_key="key-of-owner", client=shared)
    tg = Memhub(agent="tg", client=shared)
    for agent in (wa, owner, tg, wa):
        agent.search("passport")
    assert [key for _, key in transport.sent] == [
        "Bearer key-of-wa",
        "Bearer key-of-owner",
        None,
        "Bearer key-of-wa",
    ]
    wa.close()  # the client is the caller's: it stays open for the others
    assert tg.search("passport") == []


def test_names_with_slashes_or_question_marks_stay_one_path_segment(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    transport = Recording(api._transport)
    agent = Memhub("http://testserver", agent="wa", transport=transport)
    for name in ("client/acme", "what?now"):
        stored(
            make_agent("wa"),
            f"Decided: {name} invoices go out monthly",
            kind="decision",
            scope="project",
            project=name,
        )
        page = agent.project(name)
        assert page.name == name and [d.text for d in page.decisions] == [
            f"Decided: {name} invoices go out monthly"
        ]
    assert [path for path, _ in transport.sent] == ["/v1/projects/client%2Facme", "/v1/projects/what%3Fnow"]
    assert api.get("/v1/projects/two%0Alines").json()["name"] == "two\nlines"  # any character is a name


def test_a_wait_behind_a_backlog_stays_within_the_keys_rate_limit(
    make_services: Callable[..., Services],
) -> None:
    # Asked every 20 ms, a wait of 3 s made 150 requests: over a limit of 60 a minute, it got 429
    # (and so did the agent's searches for the rest of the minute).
    hub = EmbeddedHub(
        services=make_services(auth=True, admin_key=ADMIN, rate_limit_per_minute=60), redis_server=None
    )
    with TestClient(create_app(hub.services)) as api:
        token, _ = new_key(api, "wa")
        agent = Memhub(agent="wa", client=api, api_key=token)
        event_id = agent.publish("Noa's swimming moved to Thursdays")
        workers = threading.Timer(3.0, hub.start_workers, args=(1,))  # the backlog ahead of it: 3 s
        workers.start()
        try:
            assert agent.wait(event_id).status == "stored"
        finally:
            workers.join()
            hub.stop()


def test_an_agent_asks_the_owners_question_and_sends_the_answer_through_the_sdk(
    make_agent: Callable[..., Memhub],
) -> None:
    # The SDK could list conflicts but neither fetch the questions nor send the owner's answer.
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    allergic = stored(wa, "Netanel is allergic to peanuts")
    not_allergic = stored(tg, "Netanel has no food allergies")

    [question] = tg.questions()
    assert question.ask_in == "telegram" and set(question.options.values()) == {
        allergic,
        not_allergic,
        "both",
    }
    decided = tg.resolve_conflict(question.conflict_id, allergic, note="owner: yes, peanuts")
    assert (decided.status, decided.resolution and decided.resolution.keep) == ("resolved", allergic)
    assert tg.memory(not_allergic).superseded_by == allergic and tg.questions() == []

    with pytest.raises(MemhubError) as again:
        tg.resolve_conflict(question.conflict_id, "both")
    assert again.value.status_code == 409 and "already resolved" in str(again.value)


def test_an_agent_publishes_one_event_in_another_channel_than_its_own(
    make_agent: Callable[..., Memhub],
) -> None:
    # `publish(text, channel=...)` raised TypeError ("got multiple values for keyword argument
    # 'channel'"): an agent answering in two channels could not say where a memory came from.
    wa = make_agent("wa", "whatsapp")
    memory_id = stored(wa, "Dana's flight lands at 14:05", channel="sms")
    assert wa.memory(memory_id).channel == "sms"
    assert wa.memory(stored(wa, "Noa's swimming moved to Thursdays")).channel == "whatsapp"


def test_a_misspelt_filter_is_an_error_not_every_memory(make_agent: Callable[..., Memhub]) -> None:
    # The route ignores a query parameter it does not know: `all_memories(tiers=["core"])`, search's
    # spelling, listed every memory as if it were core, and `conflicts(statuses="resolved")` the open ones.
    wa, tg = make_agent("wa", "whatsapp"), make_agent("tg", "telegram")
    stored(wa, "Netanel works until 20:00")
    stored(tg, "Netanel finishes work at 18:00")
    assert list(wa.all_memories(tier=["core"])) == [] and len(list(wa.all_memories(tier="episodic"))) == 1
    with pytest.raises(TypeError, match="tiers"):
        list(wa.all_memories(tiers=["core"]))  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="statuses"):
        tg.conflicts(statuses="resolved")  # type: ignore[call-arg]
    assert tg.conflicts(status="resolved") == []

    # A search hit names its open conflict; the agent fetches it to see both sides.
    [hit, *_] = tg.search("when does Netanel finish work?")
    conflict = tg.conflict(hit.conflict_ids[0])
    assert conflict.statements == ["Netanel works until 20:00", "Netanel finishes work at 18:00"]
    with pytest.raises(MemhubError, match="404: no conflict with id 'c-nope'"):
        tg.conflict("c-nope")


class Answers(httpx.BaseTransport):
    """A proxy that answers every request itself with this status and body."""

    def __init__(self, status_code: int, body: bytes) -> None:
        self.status_code, self.body = status_code, body

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return httpx.Response(self.status_code, content=self.body)


def test_a_refusal_that_is_not_the_hubs_json_still_says_what_came_back() -> None:
    # A JSON answer that is not an object (a proxy's ["rate limited"]) raised AttributeError
    # ("'list' object has no attribute 'get'") instead of the MemhubError with its status.
    for body, shown in (
        (b'["rate limited"]', "['rate limited']"),
        (b"<h1>Forbidden</h1>", "<h1>Forbidden</h1>"),
    ):
        with pytest.raises(MemhubError, match=re.escape(f"memhub answered 403: {shown}")) as refused:
            agent_over(Answers(403, body)).search("passport")
        assert refused.value.status_code == 403


class RateLimited(httpx.BaseTransport):
    """Before the hub: the first `refuse` requests to `path` (status reads by default) get the hub's 429
    with `Retry-After: 1`, as when other threads of the agent spent its key's minute; the rest reach the hub."""

    def __init__(self, hub: httpx.BaseTransport, *, refuse: int, path: str = "/v1/events/") -> None:
        self.hub, self.refuse, self.path, self.refused_at = hub, refuse, path, []  # type: ignore[var-annotated]

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self.refuse and request.url.path.startswith(self.path):
            self.refuse -= 1
            self.refused_at.append(time.monotonic())
            detail = {"detail": "key k1 is over 60 requests a minute; retry in 1 s"}
            return httpx.Response(429, json=detail, headers={"Retry-After": "1"})
        answer = self.hub.handle_request(request)
        return httpx.Response(answer.status_code, headers=answer.headers, content=answer.read())


def test_a_wait_refused_for_the_rate_limit_asks_again_after_retry_after(api: TestClient) -> None:
    # A 429 during wait() raised MemhubError, though the event was fine and nothing had been asked.
    limited = RateLimited(api._transport, refuse=2)
    with agent_over(limited) as agent:
        event_id = agent.publish("Noa's swimming moved to Thursdays")
        started = time.monotonic()
        assert agent.wait(event_id).status == "stored"
        assert limited.refuse == 0 and time.monotonic() - started >= 2.0  # waited as told, twice
        limited.refuse = 1
        with pytest.raises(MemhubError) as refused:  # not within the timeout: said at once
            agent.wait(event_id, timeout=0.5)
        assert refused.value.status_code == 429 and refused.value.retry_after == 1.0


def test_a_request_refused_for_the_rate_limit_is_sent_again_after_retry_after(api: TestClient) -> None:
    # Only wait() waited: a search or a publish refused for the key's minute raised at once, though the
    # hub had done nothing and said when to come back.
    limited = RateLimited(api._transport, refuse=2, path="/v1/search")
    with agent_over(limited) as agent:
        agent.wait(agent.publish("Noa's swimming moved to Thursdays"))
        assert [h.text for h in agent.search("When is Noa's swimming?")] == [
            "Noa's swimming moved to Thursdays"
        ]
        assert limited.refuse == 0 and limited.refused_at[1] - limited.refused_at[0] >= 1.0  # as told
    limited.refuse, limited.path = 1, "/v1/events"
    with agent_over(limited, rate_limit_wait=0) as impatient:  # told not to wait: said at once
        with pytest.raises(MemhubError) as refused:
            impatient.publish("Noa's swimming is at 17:00")
        assert refused.value.status_code == 429 and refused.value.retry_after == 1.0


def test_pages_read_from_a_group_chat_leave_private_memories_off(make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa", "whatsapp")
    project = {"scope": "project", "project": "divorce", "kind": "decision"}
    ronit = stored(wa, "Hire Ronit Levi as the divorce lawyer", private=True, **project)
    stored(wa, "Mediation first, court only if it fails", **project)
    direct, group = wa.project("divorce"), wa.project("divorce", chat_type="group")
    assert "Ronit Levi" in direct.markdown and "Ronit Levi" not in group.markdown
    assert "Mediation first" in group.markdown
    day = wa.memory(ronit).occurred_at.date()  # the hub's days are UTC's here (MEMHUB_TIMEZONE unset)
    assert "Ronit Levi" in wa.daily(day).markdown
    assert "Ronit Levi" not in wa.daily(day, chat_type="group").markdown


def test_the_sdk_reads_a_long_ledger_a_page_at_a_time(api: TestClient, hub: EmbeddedHub) -> None:
    # conflicts() fetched the whole ledger in one answer; it now follows the pages (500 a request).
    made = recorded(hub, 1_010, each=lambda i: {"agents": ["wa", "tg" if i % 2 else "sms"]})
    mine = [c.id for c in made if "tg" in c.agents]
    transport = Recording(api._transport)
    tg = Memhub("http://testserver", agent="tg", transport=transport)

    assert [c.id for c in tg.conflicts()] == mine and len(mine) == 505
    assert [path.split("?")[0] for path, _ in transport.sent] == ["/v1/conflicts"] * 2
    page = tg.conflict_page(limit=200)
    assert [c.id for c in page.conflicts] == mine[:200] and page.next_offset
    after = tg.conflict_page(limit=200, offset=page.next_offset)
    assert [c.id for c in after.conflicts] == mine[200:400]
    assert [c.id for c in tg.all_conflicts(page_size=300, status="open")] == mine
    assert list(tg.all_conflicts(page_size=300, status="resolved")) == []
    with pytest.raises(MemhubError) as refused:
        tg.conflict_page(offset="page two")
    assert refused.value.status_code == 422 and str(refused.value).startswith(
        "memhub answered 422: query.offset"
    )
