"""Prometheus metrics: counters moved by the work, gauges read from Redis and the store at scrape time."""

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from hub.api.app import create_app
from hub.conflicts.judge import Severity
from hub.metrics import REJECT_REASONS
from hub.models import Tier
from hub.services import Services
from memhub_client import Memhub
from tests.api.test_conflicts import allergy_question, publish_all
from tests.helpers import free_port, memhub_up
from workers.worker import run_worker, serve_metrics

ADMIN = "admin-secret-for-metrics"
# Every label value a memhub metric may carry: fixed sets, never an agent, a project or a memory's words.
ALLOWED_LABELS = {
    "reason": set(REJECT_REASONS),
    "severity": {s.value for s in Severity},
    "tier": {t.value for t in Tier},
    "le": None,  # histogram buckets
}

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse(text: str) -> Samples:
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def scrape(api: TestClient, **headers: str) -> Samples:
    response = api.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return parse(response.text)


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


def events(agent: str, *texts: str) -> dict[str, Any]:
    return {"events": [{"agent": agent, "text": text} for text in texts]}


@pytest.fixture
def idle(make_services: Callable[..., Services]) -> Iterator[tuple[TestClient, Services]]:
    """The API over a hub whose workers the test runs itself, so that a backlog stays until it does."""
    services = make_services(ingest_batch_size=16, worker_metrics_port=0)
    with TestClient(create_app(services)) as api:
        yield api, services


def test_the_lag_rises_with_a_backlog_and_falls_as_it_drains_and_the_counters_move(
    idle: tuple[TestClient, Services],
) -> None:
    api, services = idle
    texts = [f"Garden note {i}: the tomatoes in bed {i} need water" for i in range(40)]
    assert api.post("/v1/events", json=events("wa-assistant", *texts)).status_code == 202

    waiting = scrape(api)
    assert value(waiting, "memhub_events_published_total") == 40
    assert value(waiting, "memhub_stream_lag") == 40
    assert value(waiting, "memhub_stream_pending") == 0
    assert value(waiting, "memhub_events_stored_total") == 0

    run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")

    drained = scrape(api)
    assert value(drained, "memhub_stream_lag") == 0
    assert value(drained, "memhub_events_stored_total") == 40
    # 16, 16 and 8: three batches, three model calls.
    assert value(drained, "memhub_ingest_batch_size_count") == 3
    assert value(drained, "memhub_ingest_batch_size_sum") == 40
    assert value(drained, "memhub_ingest_batch_size_bucket", le="8.0") == 1
    assert value(drained, "memhub_embed_seconds_count") == 3
    assert value(drained, "memhub_review_backlog") == 0  # the burst worker ran the reviews too
    assert value(drained, "memhub_memories", tier="episodic") == 40
    assert value(drained, "memhub_memories", tier="core") == 0

    searched = api.post("/v1/search", json={"query": "tomatoes", "agent": "wa-assistant"})
    assert searched.status_code == 200
    assert value(scrape(api), "memhub_search_seconds_count") == 1


def test_rejected_events_are_counted_by_reason_class_and_their_dead_letters(
    idle: tuple[TestClient, Services],
) -> None:
    api, services = idle
    refused = api.post("/v1/events", json=events("wa-assistant", "the wifi password: hunter2hunter2"))
    assert refused.status_code == 422
    # Written straight to the stream, past the API: a worker reads it and refuses it alone.
    services.redis.xadd(services.keys.stream, {"id": "bad-1", "event": "not json"})
    run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")

    samples = scrape(api)
    assert value(samples, "memhub_events_rejected_total", reason="secret") == 1
    assert value(samples, "memhub_events_rejected_total", reason="invalid") == 1
    assert value(samples, "memhub_events_rejected_total", reason="undeliverable") == 0
    assert value(samples, "memhub_dead_letters") == 1
    assert value(samples, "memhub_events_published_total") == 0


@pytest.fixture
def hub_settings() -> dict[str, object]:
    """The rule judge: these tests count what the ledger holds, for statements whose verdicts they fix."""
    return {"judge": "rules"}


def test_open_conflicts_by_severity_and_the_questions_put_to_the_owner(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    publish_all(wa, "Netanel works until 20:00")
    publish_all(tg, "Netanel finishes work at 18:00")  # medium: a proposal waits
    allergic, _, question = allergy_question(api, wa, tg)  # high: put to the owner

    samples = scrape(api)
    assert value(samples, "memhub_conflicts_open", severity="medium") == 1
    assert value(samples, "memhub_conflicts_open", severity="high") == 1
    assert value(samples, "memhub_conflicts_open", severity="low") == 0
    assert value(samples, "memhub_questions_open") == 1

    assert api.post(f"/v1/conflicts/{question['id']}/resolve", json={"keep": allergic}).status_code == 200
    samples = scrape(api)
    assert value(samples, "memhub_conflicts_open", severity="high") == 0
    assert value(samples, "memhub_questions_open") == 0

    # No label names an agent, a person or anything said: only the fixed sets.
    for name, labels in samples:
        if name.startswith("memhub_"):
            for label, said in labels:
                allowed = ALLOWED_LABELS[label]
                assert allowed is None or said in allowed, (name, label, said)


def test_the_format_follows_accept_and_an_unreadable_one_gets_the_classic_text(
    idle: tuple[TestClient, Services],
) -> None:
    api, _ = idle
    asked = api.get("/metrics", headers={"Accept": "application/openmetrics-text; version=1.0.0"})
    assert asked.headers["content-type"].startswith("application/openmetrics-text; version=1.0.0")
    assert asked.text.endswith("# EOF\n")
    garbled = api.get("/metrics", headers={"Accept": "text/plain; version=x.y"})
    assert garbled.status_code == 200
    assert garbled.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"


def test_with_keys_on_metrics_take_an_owner_level_key(make_services: Callable[..., Services]) -> None:
    services = make_services(auth=True, admin_key=ADMIN)
    with TestClient(create_app(services)) as api:
        assert api.get("/metrics").status_code == 401
        made = api.post(
            "/v1/keys",
            json={"agent": "wa-assistant", "grants": {"projects": ["kitchen"]}},
            headers={"Authorization": f"Bearer {ADMIN}"},
        )
        limited = made.json()["token"]
        assert api.get("/metrics", headers={"Authorization": f"Bearer {limited}"}).status_code == 403
        assert "memhub_stream_lag" in {n for n, _ in scrape(api, Authorization=f"Bearer {ADMIN}")}


def test_a_worker_serves_its_own_counters_on_a_port_of_its_own(
    make_services: Callable[..., Services], caplog: pytest.LogCaptureFixture
) -> None:
    services = make_services()
    port = free_port()
    server = serve_metrics(services, host="127.0.0.1", port=port)
    assert server is not None
    try:
        services.metrics.events_stored.inc(3)
        samples = parse(httpx.get(f"http://127.0.0.1:{port}/metrics").text)
        assert value(samples, "memhub_events_stored_total") == 3
        assert value(samples, "process_resident_memory_bytes") > 0
        # The hub's gauges come from the API alone: N workers would report the same backlog N times.
        assert not [n for n, _ in samples if n == "memhub_stream_lag"]
        # A second worker on the same machine and port still works, without metrics, and says so.
        assert serve_metrics(services, host="127.0.0.1", port=port) is None
        assert "set MEMHUB_WORKER_METRICS_PORT" in caplog.text
    finally:
        server.shutdown()


@pytest.mark.slow
def test_up_serves_metrics_that_move_as_a_backlog_drains(tmp_path: Path) -> None:
    """`memhub up` in one process: publish a backlog over HTTP and watch /metrics while it drains."""
    with (
        memhub_up(tmp_path / "data", tmp_path / "up.log") as base_url,
        httpx.Client(base_url=base_url) as http,
    ):

        def sample() -> Samples:
            return parse(http.get("/metrics").text)

        assert value(sample(), "memhub_stream_lag") == 0
        for batch in range(3):
            texts = [f"Batch {batch} note {i}: the {i}th shelf holds jars of jam" for i in range(500)]
            assert http.post("/v1/events", json=events("wa-assistant", *texts)).status_code == 202
        lags = []
        deadline = time.monotonic() + 240
        # Drained once stored and acknowledged: a stored batch stays pending until the store's flush.
        while (samples := sample()) and (
            value(samples, "memhub_events_stored_total") < 1500
            or value(samples, "memhub_stream_lag") + value(samples, "memhub_stream_pending")
        ):
            assert time.monotonic() < deadline, lags
            lags.append(value(samples, "memhub_stream_lag") + value(samples, "memhub_stream_pending"))
            time.sleep(0.2)

    assert value(samples, "memhub_events_published_total") == 1500
    assert value(samples, "memhub_stream_lag") == value(samples, "memhub_stream_pending") == 0
    assert value(samples, "memhub_ingest_batch_size_sum") == 1500
    assert value(samples, "memhub_embed_seconds_count") == value(samples, "memhub_ingest_batch_size_count")
    # The backlog was seen waiting, then shrinking as workers stored it.
    assert max(lags) >= 500, lags
    peak = lags.index(max(lags))
    assert any(later < max(lags) for later in lags[peak:]), lags
