"""Access: keys bound to agents, grants on scopes, projects, persons and channels — never exceeded."""

import itertools
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from hub.api.app import create_app
from hub.auth.api_keys import Grants
from hub.auth.principal import Principal
from hub.auth.ratelimit import RateLimit
from hub.embedded import EmbeddedHub
from hub.models import Memory, Scope
from hub.services import Services
from tests.helpers import expire

ADMIN = "admin-secret-for-tests"
PROJECTS = ["kitchen", "garden"]
PERSONS = ["Dana", "Yossi"]
CHANNELS = ["whatsapp", "telegram"]


@pytest.fixture
def secured(make_services: Callable[..., Services]) -> Iterator[tuple[TestClient, EmbeddedHub]]:
    hub = EmbeddedHub(
        services=make_services(auth=True, admin_key=ADMIN, rate_limit_per_minute=10_000), redis_server=None
    )
    hub.start_workers(1, sweep_interval=0.5)
    with TestClient(create_app(hub.services)) as client:
        yield client, hub
    hub.stop()


def as_key(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_key(api: TestClient, agent: str, **grants: Any) -> tuple[str, Grants]:
    response = api.post("/v1/keys", json={"agent": agent, "grants": grants}, headers=as_key(ADMIN))
    assert response.status_code == 201, response.text
    return response.json()["token"], Grants.model_validate(response.json()["key"]["grants"])


def publish_stored(api: TestClient, events: list[dict[str, Any]], token: str = ADMIN) -> list[str]:
    """Publish `events` with `token` and wait until each is stored; their memory ids."""
    ids = api.post("/v1/events", json={"events": events}, headers=as_key(token)).json()["ids"]
    memory_ids = []
    for event_id in ids:
        deadline = time.monotonic() + 20
        while (status := api.get(f"/v1/events/{event_id}", headers=as_key(ADMIN)).json())[
            "status"
        ] != "stored":
            assert time.monotonic() < deadline, status
            time.sleep(0.05)
        memory_ids.append(status["memory_id"])
    return memory_ids


def test_requests_without_a_valid_key_get_401(secured: tuple[TestClient, EmbeddedHub]) -> None:
    api, _ = secured
    body = {"query": "x", "agent": "wa"}
    assert api.post("/v1/search", json=body).status_code == 401
    assert api.post("/v1/search", json=body, headers=as_key("mh_nope_nope")).status_code == 401
    assert api.get("/healthz").status_code == 200  # probes need no key
    token, _ = new_key(api, "wa")
    assert api.post("/v1/search", json=body, headers=as_key(token)).status_code == 200
    key_id = token.split("_")[1]
    assert api.delete(f"/v1/keys/{key_id}", headers=as_key(ADMIN)).status_code == 200
    assert api.post("/v1/search", json=body, headers=as_key(token)).status_code == 401


def test_a_key_is_read_in_every_form_the_header_may_take(secured: tuple[TestClient, EmbeddedHub]) -> None:
    api, _ = secured
    token, _ = new_key(api, "wa")
    # RFC 9110: the scheme is case-insensitive and one or more spaces may follow it.
    forms = ["Bearer {}", "bearer {}", "BEARER {}", "Bearer  {}", "Bearer\t{}", "Bearer {} "]
    body = {"query": "x", "agent": "wa"}
    for form in forms:
        response = api.post("/v1/search", json=body, headers={"Authorization": form.format(token)})
        assert response.status_code == 200, (form, response.text)
        admin = api.get("/v1/keys", headers={"Authorization": form.format(ADMIN)})
        assert admin.status_code == 200, (form, admin.text)
    assert api.delete(f"/v1/keys/{token.split('_')[1]}", headers=as_key(ADMIN)).status_code == 200
    for form in forms:
        response = api.post("/v1/search", json=body, headers={"Authorization": form.format(token)})
        assert response.status_code == 401, (form, response.text)


def test_only_the_admin_manages_keys(secured: tuple[TestClient, EmbeddedHub]) -> None:
    api, hub = secured
    token, _ = new_key(api, "wa")
    assert api.get("/v1/keys", headers=as_key(token)).status_code == 403
    listed = api.get("/v1/keys", headers=as_key(ADMIN)).json()["keys"]
    assert [k["agent"] for k in listed] == ["wa"]
    redis, keys = hub.services.redis, hub.services.keys
    names = [*redis.keys(keys.api_key("*")), *redis.keys(keys.api_key_by_hash("*"))]
    stored = b"".join(redis.get(k) or b"" for k in names)
    assert b"key_hash" in stored
    assert token.encode() not in stored  # kept hashed only


def test_an_agent_cannot_publish_as_another_or_outside_its_grants(
    secured: tuple[TestClient, EmbeddedHub],
) -> None:
    api, hub = secured
    token, _ = new_key(api, "wa", scopes=["global", "project"], projects=["kitchen"], channels=["whatsapp"])
    event = {"text": "Dana prefers green tea", "agent": "wa", "channel": "whatsapp"}
    cases = {
        "agent": {**event, "agent": "tg"},
        "scope": {**event, "scope": "person", "person": "Dana"},
        "project": {**event, "scope": "project", "project": "garden"},
        "channel": {**event, "channel": "telegram"},
    }
    for field, bad in cases.items():
        response = api.post("/v1/events", json={"events": [event, bad]}, headers=as_key(token))
        assert response.status_code == 403, field
        assert response.json()["detail"].startswith(f"events.1.{field}")
    assert hub.services.redis.xlen(hub.services.keys.stream) == 0
    assert api.post("/v1/events", json={"events": [event]}, headers=as_key(token)).status_code == 202


def test_access_matrix_never_returns_a_memory_outside_its_grants(
    secured: tuple[TestClient, EmbeddedHub],
) -> None:
    api, hub = secured
    # The owner's memories: every scope, project, person and channel.
    memories = [{"text": "The family car is a grey Mazda", "scope": "global"}]
    memories += [
        {"text": f"The {p} project budget is tight this month", "scope": "project", "project": p}
        for p in PROJECTS
    ]
    memories += [
        {"text": f"{n} has a dentist appointment next week", "scope": "person", "person": n} for n in PERSONS
    ]
    memories += [
        {"text": f"{n}'s parking spot is free today", "scope": "temporary", "person": n, "ttl_seconds": 600}
        for n in PERSONS
    ]
    # Global, yet naming a project or a person: found by every key that may read them, named or not.
    memories += [
        {
            "text": "The garden watering schedule changes on Sunday",
            "scope": "global",
            "project": "garden",
        },
        {"text": "Dana's passport renewal is due in March", "scope": "global", "person": "Dana"},
    ]
    events = [{**m, "agent": "owner", "channel": CHANNELS[i % 2]} for i, m in enumerate(memories)]
    stored = {m.id: m for m in hub.services.store.get(publish_stored(api, events))}
    assert len(stored) == len(memories)

    grant_sets = [
        {},
        {"scopes": ["global"]},
        {"scopes": ["global", "project"], "projects": ["kitchen"]},
        {"scopes": ["person", "temporary"], "persons": ["Dana"]},
        {
            "scopes": ["global", "project", "person", "temporary"],
            "projects": ["garden"],
            "persons": ["Yossi"],
            "channels": ["telegram"],
        },
        {"read": False},
    ]
    returned_total = 0
    for n, grants in enumerate(grant_sets):
        agent = f"agent-{n}"
        token, granted = new_key(api, agent, **grants)
        caller = Principal(agent=agent, grants=granted, key_id=token)
        for channel, project, person, everywhere in itertools.product(
            [None, *CHANNELS], [None, *PROJECTS], [None, *PERSONS], [False, True]
        ):
            body = {
                "query": "budget dentist car parking watering passport",
                "agent": agent,
                "channel": channel,
                "project": project,
                "person": person,
                "everywhere": everywhere,
                "limit": 100,
            }
            response = api.post(
                "/v1/search", json={k: v for k, v in body.items() if v}, headers=as_key(token)
            )
            allowed = (
                granted.read
                and granted.allows_channel(channel)
                and granted.allows_project(project)
                and granted.allows_person(person)
            )
            assert response.status_code == (200 if allowed else 403), (grants, body, response.text)
            if not allowed:
                continue
            found = {hit["id"] for hit in response.json()["hits"]}
            assert found == {
                memory_id
                for memory_id, memory in stored.items()
                if caller.may_read(memory)
                and (everywhere or _in_view(memory, project=project, person=person))
            }, (grants, body)
            returned_total += len(found)
        for memory_id, memory in stored.items():
            got = api.get(f"/v1/memories/{memory_id}", headers=as_key(token))
            assert got.status_code == (200 if caller.may_read(memory) else 404)
        # The owner's whole-memory views need an unrestricted key.
        expected = 200 if granted.unrestricted else 403
        assert api.get("/v1/conflicts", headers=as_key(token)).status_code == expected
        # And nobody can ask as another agent.
        other = api.post("/v1/search", json={"query": "car", "agent": "owner"}, headers=as_key(token))
        assert other.status_code == 403
    assert returned_total > 20  # the matrix saw plenty of allowed hits, not only refusals


def _in_view(memory: Memory, *, project: str | None, person: str | None) -> bool:
    """Whether a search naming `project` and `person` looks where `memory` is: a project's or a person's
    memories only when named, global and temporary ones always."""
    if memory.scope is Scope.project:
        return memory.project == project
    if memory.scope is Scope.person:
        return memory.person == person
    return True


def test_rate_limit_answers_429_with_retry_after(make_services: Callable[..., Services]) -> None:
    services = make_services(auth=True, admin_key=ADMIN, rate_limit_per_minute=3)
    with TestClient(create_app(services)) as api:
        token, _ = new_key(api, "wa")
        body = {"query": "x", "agent": "wa"}
        codes = [api.post("/v1/search", json=body, headers=as_key(token)).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        limited = api.post("/v1/search", json=body, headers=as_key(token))
        assert 1 <= int(limited.headers["retry-after"]) <= 61


def test_the_rate_limit_holds_across_a_minute_boundary(
    make_services: Callable[..., Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    services = make_services()
    limit = RateLimit(services.redis, services.keys)
    clock = [0.0]
    # The same clock for the hub and the library that counts: the test sets the time of each request.
    monkeypatch.setattr(time, "time", lambda: clock[0])

    def wait(at: float) -> int | None:
        clock[0] = at
        return limit.retry_after("k1", per_minute=3)

    minute = 60 * 29_000_000.0
    assert [wait(minute - 1) for _ in range(3)] == [None, None, None]
    # A new minute on the clock: the three of a second ago still count, until they are a minute old.
    assert [wait(minute + 1) for _ in range(5)] == [58] * 5
    assert wait(minute + 58.5) == 1
    # Refused requests were not counted: once the three are a minute old, the key may go on.
    assert [wait(minute + 59.5) for _ in range(4)] == [None, None, None, 60]


def test_oversized_requests_are_refused_with_413(api: TestClient) -> None:
    huge = {"events": [{"text": "x" * 8_000, "agent": "wa"}] * 600}  # over 4 MiB
    response = api.post("/v1/events", json=huge)
    assert response.status_code == 413 and "smaller batches" in response.json()["detail"]


def test_a_streamed_body_without_a_declared_size_is_cut_off_at_the_limit(api: TestClient) -> None:
    def chunks() -> Iterator[bytes]:  # no Content-Length: sent chunked
        yield b'{"events": [{"agent": "wa", "text": "'
        for _ in range(1_000):  # 8 MB of text, twice the limit
            yield b"x" * 8_000
        yield b'"}]}'

    response = api.post("/v1/events", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413 and "smaller batches" in response.json()["detail"]
    assert api.get("/healthz").json()["events_waiting"] == 0


def test_the_openapi_document_lists_what_keys_and_limits_answer() -> None:
    operations = [
        (path, method, op)
        for path, methods in create_app().openapi()["paths"].items()
        for method, op in methods.items()
    ]
    for path, method, op in operations:
        codes = set(op["responses"])
        if path == "/healthz":  # no key, no body: it answers, or says what does not
            assert codes == {"200", "503"}
            continue
        if path == "/livez":  # no key, reads nothing: the process answers
            assert codes == {"200"}
            continue
        assert {"401", "413", "429"} <= codes, (method, path, codes)
        owner_only = not path.startswith(("/v1/events", "/v1/search", "/v1/memories"))
        if owner_only or path.endswith(("/resolve", "/used")):
            assert "403" in codes, (method, path, codes)


def test_a_read_only_key_reads_the_owners_views_but_changes_nothing(
    secured: tuple[TestClient, EmbeddedHub],
) -> None:
    api, hub = secured
    [loop] = publish_stored(
        api, [{"text": "Call the plumber about the boiler", "agent": "wa", "kind": "open_loop"}]
    )
    token, _ = new_key(api, "reader", write=False)
    assert api.get("/v1/conflicts", headers=as_key(token)).status_code == 200
    for path in (
        f"/v1/memories/{loop}/resolve",
        "/v1/conflicts/c-0123/resolve",
        "/v1/promotions/p-0123/approve",
        "/v1/promotions/p-0123/reject",
        "/v1/maintenance/compactions",
        "/v1/dlq/replay",
        f"/v1/memories/{loop}/used",
    ):
        response = api.post(path, json={"keep": "both", "agent": "wa"}, headers=as_key(token))
        assert response.status_code == 403, (path, response.text)
        assert response.json()["detail"].endswith("is read-only: it may not write")
    assert hub.services.store.get([loop])[0].state.value == "active"


def test_a_decision_through_an_agents_key_records_that_agent(secured: tuple[TestClient, EmbeddedHub]) -> None:
    api, hub = secured
    [loop] = publish_stored(
        api, [{"text": "Call the plumber about the boiler", "agent": "wa", "kind": "open_loop"}]
    )
    token, _ = new_key(api, "wa")
    # The agent relays the owner's answer: it may say so, but not hide that it was the one relaying.
    closed = api.post(f"/v1/memories/{loop}/resolve", json={"by": "owner"}, headers=as_key(token))
    assert closed.status_code == 200
    assert [c.by for c in hub.services.store.get([loop])[0].history][-1] == "owner (via wa)"


def test_a_correction_may_name_only_memories_the_key_can_read(
    secured: tuple[TestClient, EmbeddedHub],
) -> None:
    api, hub = secured
    dana, kitchen = publish_stored(
        api,
        [
            {"text": "Dana is allergic to peanuts", "agent": "owner", "scope": "person", "person": "Dana"},
            {"text": "The kitchen tap drips", "agent": "owner", "scope": "project", "project": "kitchen"},
        ],
    )
    token, _ = new_key(api, "kitchen-bot", scopes=["global", "project"], projects=["kitchen"], persons=[])

    def correct(target: str) -> Any:
        event = {
            "text": "That was wrong",
            "agent": "kitchen-bot",
            "kind": "correction",
            "related": [target],
            "scope": "project",
            "project": "kitchen",
        }
        return api.post("/v1/events", json={"events": [event]}, headers=as_key(token))

    refused = correct(dana)
    assert refused.status_code == 403 and refused.json()["detail"].startswith("events.0.related")
    assert hub.services.store.get([dana])[0].state.value == "active"
    assert correct(kitchen).status_code == 202


def test_an_agent_reports_a_memory_it_can_read_as_used(secured: tuple[TestClient, EmbeddedHub]) -> None:
    api, _ = secured
    public, dana = publish_stored(
        api,
        [
            {"text": "The family car is a grey Mazda", "agent": "owner"},
            {"text": "Dana is allergic to peanuts", "agent": "owner", "scope": "person", "person": "Dana"},
        ],
    )
    token, _ = new_key(api, "wa", scopes=["global"], persons=[])
    used = api.post(f"/v1/memories/{public}/used", headers=as_key(token))
    assert used.status_code == 200 and used.json()["used_count"] == 1
    assert api.post(f"/v1/memories/{dana}/used", headers=as_key(token)).status_code == 404


def test_an_expired_memory_is_not_found(secured: tuple[TestClient, EmbeddedHub]) -> None:
    api, hub = secured
    week = {
        "text": "The cleaner comes on Thursday this week",
        "agent": "owner",
        "scope": "temporary",
        "ttl_seconds": 600,
    }
    [gate] = publish_stored(api, [week])
    assert api.get(f"/v1/memories/{gate}", headers=as_key(ADMIN)).status_code == 200
    expire(hub.services.store, gate)
    assert api.get(f"/v1/memories/{gate}", headers=as_key(ADMIN)).status_code == 404


def test_only_an_unrestricted_key_that_writes_forgets_a_memory(
    secured: tuple[TestClient, EmbeddedHub],
) -> None:
    api, hub = secured
    [car] = publish_stored(api, [{"text": "The family car is a grey Mazda", "agent": "owner"}])
    reader, _ = new_key(api, "reader", write=False)
    kitchen_bot, _ = new_key(
        api, "kitchen-bot", scopes=["global", "project"], projects=["kitchen"], persons=[]
    )
    for token, why in ((reader, "is read-only"), (kitchen_bot, "is limited to some scopes")):
        refused = api.delete(f"/v1/memories/{car}", headers=as_key(token))
        assert refused.status_code == 403 and why in refused.json()["detail"], refused.text
    assert hub.services.store.get([car])

    wa, _ = new_key(api, "wa")
    forgotten = api.delete(f"/v1/memories/{car}", params={"by": "owner"}, headers=as_key(wa))
    assert forgotten.status_code == 200 and forgotten.json()["forgotten"] == [car]
    # The owner's views say who asked; a key limited to some scopes learns nothing of it.
    assert "(owner (via wa), " in api.get(f"/v1/memories/{car}", headers=as_key(ADMIN)).json()["detail"]
    hidden = api.get(f"/v1/memories/{car}", headers=as_key(kitchen_bot)).json()["detail"]
    assert hidden == f"no memory with id {car!r}"
