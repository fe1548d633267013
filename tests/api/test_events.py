from collections.abc import Callable
from dataclasses import replace

from httpx import Response
from redis import Redis
from starlette.testclient import TestClient

from hub.api.app import create_app
from hub.embedded import EmbeddedHub
from hub.secrets import LABELS
from hub.services import Services
from memhub_client import Memhub

GOOD = {"text": "Dana prefers green tea", "agent": "wa", "channel": "whatsapp"}


def test_publish_returns_ids_and_the_event_gets_stored(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    response = api.post("/v1/events", json={"events": [GOOD, {**GOOD, "text": "Dana's cat is Miso"}]})
    assert response.status_code == 202
    ids = response.json()["ids"]
    assert len(ids) == 2
    status = make_agent("wa").wait(ids[0])
    assert status.status == "stored" and status.memory_id
    memory = api.get(f"/v1/memories/{status.memory_id}").json()
    assert memory["text"] == "Dana prefers green tea" and memory["channel"] == "whatsapp"
    assert memory["tier"] == "episodic" and memory["state"] == "active"


def test_a_malformed_event_is_a_422_naming_the_field_and_nothing_is_queued(
    api: TestClient, hub: EmbeddedHub
) -> None:
    batch = [GOOD, {**GOOD, "scope": "project"}, {**GOOD, "confidence": "certain"}]
    response = api.post("/v1/events", json={"events": batch})
    assert response.status_code == 422
    body = response.json()
    locations = [tuple(e["loc"]) for e in body["detail"]]
    assert ("body", "events", 1) in locations
    assert ("body", "events", 2, "confidence") in locations
    assert "project: a `project`-scoped event must name its project" in body["message"]
    assert hub.services.redis.xlen(hub.services.keys.stream) == 0
    assert hub.services.store.count() == 0


def test_a_body_that_is_not_utf8_is_a_422_saying_so_and_nothing_is_queued(
    api: TestClient, hub: EmbeddedHub
) -> None:
    response = api.post(
        "/v1/events",
        content=b'{"events": [{"text": "caf\xe9"}]}',
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 422
    assert response.json()["message"].startswith(
        "body: the body is not UTF-8 JSON (invalid continuation byte"
    )
    assert hub.services.redis.xlen(hub.services.keys.stream) == 0


def test_batch_bounds(api: TestClient) -> None:
    assert api.post("/v1/events", json={"events": []}).status_code == 422
    assert api.post("/v1/events", json={"events": [GOOD] * 501}).status_code == 422


def test_the_same_client_id_twice_stores_one_memory(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    agent = make_agent("wa", "whatsapp")
    first = agent.publish("Netanel's dentist is on Tuesday", id="wa-msg-1")
    second = agent.publish("Netanel's dentist is on Tuesday", id="wa-msg-1")
    assert first == second == "wa-msg-1"
    assert agent.wait(first).status == "stored"
    assert len(agent.search("dentist appointment")) == 1


def test_unknown_ids_are_404(api: TestClient) -> None:
    assert api.get("/v1/events/nope").status_code == 404
    assert api.get("/v1/memories/00000000-0000-0000-0000-000000000000").status_code == 404


def test_healthz(api: TestClient) -> None:
    body = api.get("/healthz").json()
    assert body["status"] == "ok" and body["workers"] >= 1 and body["events_waiting"] == 0


def test_healthz_is_503_naming_a_redis_that_does_not_answer(hub: EmbeddedHub) -> None:
    # Nothing listens on port 1: a real client, refused.
    down = replace(hub.services, redis=Redis(port=1, socket_connect_timeout=1))
    with TestClient(create_app(down)) as client:
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["detail"].startswith("Redis does not answer: ")


def test_livez_answers_while_redis_does_not(hub: EmbeddedHub) -> None:
    # Kubernetes restarts a pod whose liveness fails: an outage of Redis must not restart every API pod.
    down = replace(hub.services, redis=Redis(port=1, socket_connect_timeout=1))
    with TestClient(create_app(down)) as client:
        assert client.get("/livez").json() == {"status": "ok"}


def test_every_route_documents_its_response(api: TestClient) -> None:
    spec = api.get("/openapi.json").json()
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            ok = next(code for code in operation["responses"] if code.startswith("2"))
            content = operation["responses"][ok]["content"]
            if path == "/metrics":  # Prometheus' text format, not JSON
                assert content == {"text/plain; version=0.0.4; charset=utf-8": {"schema": {"type": "string"}}}
                continue
            schema = content["application/json"]["schema"]
            assert "$ref" in schema, f"{method.upper()} {path} has no response model"


SECRET = "Netanel's Stripe key is sk_live_EXAMPLE4eC39HqLyjWDarjtT1zdp7dc"


def test_an_event_holding_a_secret_is_refused_naming_the_kind(api: TestClient, hub: EmbeddedHub) -> None:
    response = api.post("/v1/events", json={"events": [GOOD, {**GOOD, "text": SECRET}]})
    assert response.status_code == 422
    assert response.json()["detail"].startswith("events.1.text: text contains a Stripe")
    assert "sk_live" not in response.text
    assert hub.services.redis.xlen(hub.services.keys.stream) == 0


# The sentences, accepted and stored before, and a few in languages of other scripts, with the
# kind each is refused as: what was said.
SAID = [
    ("Tu PIN de la tarjeta es 7733", "7733", "pin"),
    ("Le digicode de l'immeuble est 2580", "2580", "access_code"),
    ("Das Kennwort fürs Konto lautet Sonne99!", "Sonne99!", "password"),
    ("Il PIN del bancomat è 9021", "9021", "pin"),
    ("La clave de la alarma es 1122", "1122", "access_code"),
    ("Код домофона 1234", "1234", "access_code"),
    ("كلمة المرور للواي فاي هي Nakheel2023", "Nakheel2023", "password"),
    ("הקוד של האזעקה הוא 4821", "4821", "access_code"),
    ("Login do banco: usuário mariasilva, senha Ypê2020!", "Ypê2020!", "bank_login"),
]


def test_a_secret_said_in_the_owners_language_is_refused_naming_the_kind(
    api: TestClient, hub: EmbeddedHub
) -> None:
    for text, value, kind in SAID:
        response = api.post("/v1/events", json={"events": [{**GOOD, "text": text}]})
        assert response.status_code == 422, text
        assert response.json()["detail"].startswith(
            f"events.0.text: text contains {LABELS[kind]} ({kind});"
        ), text
        assert value not in response.text
    assert hub.services.redis.xlen(hub.services.keys.stream) == 0


def test_the_redact_policy_stores_a_secret_said_in_another_language_without_it(
    make_services: Callable[..., Services],
) -> None:
    hub = EmbeddedHub(services=make_services(secrets_policy="redact"), redis_server=None)
    hub.start_workers(1, sweep_interval=0.5)
    try:
        with TestClient(create_app(hub.services)) as api:
            agent = Memhub(agent="wa", channel="whatsapp", client=api)
            listed = (
                "Los códigos de respaldo son 4417-2290 / 8835-1064",
                "4417-2290 / 8835-1064",
                "recovery_codes",
            )
            for text, value, kind in [*SAID[:3], listed]:
                status = agent.wait(agent.publish(text))
                assert status.status == "stored", text
                stored = api.get(f"/v1/memories/{status.memory_id}").json()["text"]
                # The placeholder names the kind, as the refusal does: "[REDACTED:pin]".
                assert stored == text.replace(value, f"[REDACTED:{kind}]")
    finally:
        hub.stop()


def test_a_secret_written_straight_to_the_stream_is_rejected_and_never_kept(
    api: TestClient, hub: EmbeddedHub, make_agent: Callable[..., Memhub]
) -> None:
    import json

    keys = hub.services.keys
    raw = {"received_at": "2026-11-29T10:00:00+00:00", "event": {**GOOD, "text": SECRET}}
    hub.services.redis.xadd(keys.stream, {"id": "raw-secret", "event": json.dumps(raw)})
    ok = make_agent("wa").publish("Dana prefers green tea")  # schedules a drain for both
    agent = make_agent("wa")
    assert agent.wait(ok).status == "stored"
    rejected = agent.wait("raw-secret")
    assert rejected.status == "rejected" and "Stripe" in (rejected.error or "")
    letters = hub.services.redis.lrange(keys.dead_letters, 0, -1)
    assert len(letters) == 1 and b"sk_live" not in letters[0] and b"REDACTED" in letters[0]


def test_dead_letters_are_listed_and_replayed(
    api: TestClient, hub: EmbeddedHub, make_agent: Callable[..., Memhub]
) -> None:
    import json

    keys = hub.services.keys
    bad = {
        "received_at": "2026-11-29T10:00:00+00:00",
        "event": {"text": "x", "agent": "wa", "scope": "person"},
    }
    hub.services.redis.xadd(keys.stream, {"id": "needs-a-person", "event": json.dumps(bad)})
    agent = make_agent("wa")
    agent.wait(agent.publish("a good event alongside"))
    assert agent.wait("needs-a-person").status == "rejected"
    [letter] = api.get("/v1/dlq").json()["dead_letters"]
    assert letter["id"] == "needs-a-person" and letter["error"].startswith("person:")

    replayed = api.post("/v1/dlq/replay", params={"event_id": "needs-a-person"}).json()
    assert replayed["ids"] == ["needs-a-person"]
    assert agent.wait("needs-a-person").status == "rejected"  # still invalid: rejected again, with its cause
    assert len(api.get("/v1/dlq").json()["dead_letters"]) == 1

    # Its status expired meanwhile (7 days): made again with its agent, whose key alone may read it,
    # and a lifetime, not forever.
    hub.services.redis.delete(keys.status("needs-a-person"))
    assert api.post("/v1/dlq/replay").json()["ids"] == ["needs-a-person"]
    assert agent.wait("needs-a-person").status == "rejected"
    assert hub.services.redis.hget(keys.status("needs-a-person"), "agent") == b"wa"
    assert (
        0 < hub.services.redis.ttl(keys.status("needs-a-person")) <= hub.services.settings.status_ttl_seconds
    )


def test_a_summary_decision_with_a_long_why_is_a_422_naming_it(api: TestClient, hub: EmbeddedHub) -> None:
    # Accepted by the summary's model, it failed expanding inside publish: a bare 500.
    summary = {"decisions": [{"text": "Use Postgres for the ledger", "why": "because " * 150}]}
    response = api.post("/v1/events", json={"events": [{**GOOD, "kind": "summary", "summary": summary}]})
    assert response.status_code == 422
    assert "summary.decisions.0.why: String should have at most 1000 characters" in response.json()["message"]
    assert hub.services.redis.xlen(hub.services.keys.stream) == 0


def test_redacting_never_answers_500(make_services: Callable[..., Services]) -> None:
    token = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    services = make_services(secrets_policy="redact")
    with TestClient(create_app(services)) as client:

        def publish(**fields: object) -> Response:
            return client.post("/v1/events", json={"events": [{**GOOD, **fields}]})

        assert publish(text=f"deploy token is {token}").status_code == 202
        refused = publish(text="hello", id=token)  # an id is refused, never redacted
        assert refused.status_code == 422
        assert refused.json()["detail"].startswith("events.0.id: text contains a GitHub token")
        refused = publish(text="x" * 7_985 + " pin is 4821")  # redacted, it grows past 8,000
        assert refused.status_code == 422
        assert refused.json()["detail"].startswith("events.0.text: with its secret redacted it is invalid")
        assert token not in refused.text
    assert services.redis.xlen(services.keys.stream) == 1


ADMIN = "admin-secret-for-tests"


def test_an_event_id_and_its_status_belong_to_the_agent_that_published_it(
    make_services: Callable[..., Services],
) -> None:
    services = make_services(auth=True, admin_key=ADMIN)
    with TestClient(create_app(services)) as client:

        def key(agent: str, **grants: object) -> dict[str, str]:
            made = client.post("/v1/keys", json={"agent": agent, "grants": grants}, headers=bearer(ADMIN))
            return bearer(made.json()["token"])

        def publish(as_: dict[str, str], agent: str, text: str, event_id: str) -> Response:
            event = {"text": text, "agent": agent, "id": event_id}
            return client.post("/v1/events", json={"events": [event]}, headers=as_)

        # Limited keys: an unrestricted one sees everything the owner sees, event statuses included.
        owner, wa = bearer(ADMIN), key("wa", projects=["kitchen"])
        nobody = key("nobody", read=False, write=False, projects=["kitchen"])
        squatter = key("kitchen-bot", projects=["kitchen"], scopes=["global", "project"])
        assert publish(owner, "owner", "Dana's passport ends in 4471", "wa-msg-1001").status_code == 202
        assert publish(wa, "wa", "Dana likes green tea", "wa-msg-1003").status_code == 202

        # Another agent's key sees another agent's status as unknown; its own agent's, and the admin all.
        assert client.get("/v1/events/wa-msg-1001", headers=nobody).status_code == 404
        assert client.get("/v1/events/wa-msg-1003", headers=wa).json()["status"] == "queued"
        assert client.get("/v1/events/wa-msg-1003", headers=owner).json()["status"] == "queued"
        both = {"ids": ["wa-msg-1001", "wa-msg-1003"]}

        def statuses(as_: dict[str, str]) -> list[str | None]:
            found = client.post("/v1/events/statuses", json=both, headers=as_).json()["statuses"]
            return [s and s["status"] for s in found]

        assert (statuses(nobody), statuses(wa), statuses(owner)) == (
            [None, None],
            [None, "queued"],
            ["queued", "queued"],
        )

        # An id another agent holds is refused, whichever came first; a retry of one's own is a no-op.
        assert publish(squatter, "kitchen-bot", "Dana has no allergies", "wa-msg-1002").status_code == 202
        taken = publish(owner, "owner", "Dana is severely allergic to peanuts", "wa-msg-1002")
        assert taken.status_code == 409
        assert taken.json()["detail"] == (
            "events.0.id: 'wa-msg-1002' is already the id of another agent's event; publish with another id"
        )
        assert publish(wa, "wa", "Dana likes green tea", "wa-msg-1003").json()["ids"] == ["wa-msg-1003"]
    assert services.redis.xlen(services.keys.stream) == 3


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
