"""One log line per request, tagged with a request id the caller may give and always gets back."""

import logging

import pytest
from starlette.testclient import TestClient

from hub.logs import JsonFormatter, RequestTag


def request_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "memhub.requests"]


def test_each_request_is_one_line_with_the_callers_request_id_echoed(
    api: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memhub.requests")
    caplog.handler.addFilter(RequestTag())  # as the process's handler tags each line
    given = api.get("/v1/conflicts", params={"person": "Dana"}, headers={"X-Request-ID": "wa-turn:1841"})
    made = api.post("/v1/search", json={"query": "tea", "agent": "wa-assistant"})

    assert given.headers["X-Request-ID"] == "wa-turn:1841"
    made_id = made.headers["X-Request-ID"]
    assert len(made_id) == 32 and made_id != "wa-turn:1841"
    first, second = request_lines(caplog)
    assert (first.request_id, first.method, first.path, first.status) == (  # type: ignore[attr-defined]
        "wa-turn:1841",
        "GET",
        "/v1/conflicts",
        200,
    )
    assert "Dana" not in first.getMessage()  # the query string may name a person: never logged
    assert (second.request_id, second.path, second.status) == (made_id, "/v1/search", 200)  # type: ignore[attr-defined]


@pytest.mark.parametrize("given", ["two\nlines", "x" * 129, "", "<script>"])
def test_a_request_id_that_could_break_a_line_is_replaced(
    api: TestClient, caplog: pytest.LogCaptureFixture, given: str
) -> None:
    caplog.set_level(logging.INFO, logger="memhub.requests")
    caplog.handler.addFilter(RequestTag())  # as the process's handler tags each line
    answered = api.get("/healthz", headers={"X-Request-ID": given})
    assert answered.headers["X-Request-ID"] != given and len(answered.headers["X-Request-ID"]) == 32
    [line] = request_lines(caplog)
    assert line.request_id == answered.headers["X-Request-ID"]  # type: ignore[attr-defined]


def test_a_refused_request_is_logged_and_answered_with_its_id(
    api: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memhub.requests")
    caplog.handler.addFilter(RequestTag())  # as the process's handler tags each line
    refused = api.post("/v1/events", content=b"x" * (5 * 1024 * 1024), headers={"X-Request-ID": "big-1"})
    assert (refused.status_code, refused.headers["X-Request-ID"]) == (413, "big-1")
    [line] = request_lines(caplog)
    assert line.status == 413  # type: ignore[attr-defined]


def test_in_json_a_request_line_is_an_object_with_its_fields(
    api: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    import json

    caplog.set_level(logging.INFO, logger="memhub.requests")
    caplog.handler.addFilter(RequestTag())  # as the process's handler tags each line
    api.get("/healthz", headers={"X-Request-ID": "probe-7"})
    [line] = request_lines(caplog)
    fields = json.loads(JsonFormatter().format(line))
    assert fields["request_id"] == "probe-7"
    assert (fields["level"], fields["logger"], fields["method"], fields["path"], fields["status"]) == (
        "INFO",
        "memhub.requests",
        "GET",
        "/healthz",
        200,
    )
    assert fields["duration_ms"] >= 0 and fields["message"].startswith("GET /healthz 200 ")
