"""Schemathesis against the OpenAPI document: whatever it sends, the hub never answers 5xx, and every
answer is one the document describes (its status code, content type and body schema)."""

import re
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from starlette.testclient import TestClient

from hub.api.app import create_app
from hub.embedded import EmbeddedHub
from memhub_client import Memhub

# The document comes from the app itself; each case is sent to a real hub's app (below).
schema = schemathesis.openapi.from_dict(create_app().openapi())

# Not checked: whether invalid requests are refused and valid ones accepted by the schema's letter.
# Pydantic's lax parsing accepts `0` for `false` and strips names before measuring them, and some
# rules span fields (only `temporary` events expire), which a JSON schema does not say.
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.mark.slow
@schema.parametrize()
@hypothesis_settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)
def test_every_answer_is_documented_and_none_is_a_server_error(
    case: schemathesis.Case, hub: EmbeddedHub
) -> None:
    response = case.call(app=create_app(hub.services))
    case.validate_response(response, checks=CHECKS)


DOCUMENT = create_app().openapi()
OPERATIONS = [(path, method, op) for path, ops in DOCUMENT["paths"].items() for method, op in ops.items()]


def body_examples(operation: dict[str, Any]) -> list[Any]:
    """The request body's examples, on the body or on the model it names (optional bodies: anyOf)."""
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    found = list(schema.get("examples", []))
    for option in [schema, *schema.get("anyOf", [])]:
        if "$ref" in option:
            found += DOCUMENT["components"]["schemas"][option["$ref"].rsplit("/", 1)[1]].get("examples", [])
    return found


def test_every_operation_says_what_it_does_and_every_body_has_an_example() -> None:
    summaries = [op["summary"] for _, _, op in OPERATIONS]
    assert len(set(summaries)) == len(summaries), "two operations share a summary (e.g. 'List All')"
    for path, method, op in OPERATIONS:
        assert op.get("description"), f"{method.upper()} {path} has no description"
        if "requestBody" in op:
            assert body_examples(op), f"{method.upper()} {path} has no request example"


@pytest.mark.parametrize(
    ("path", "method", "example"),
    [
        (path, method, ex)
        for path, method, op in OPERATIONS
        if "requestBody" in op
        for ex in body_examples(op)
    ],
)
def test_every_request_example_is_accepted_by_the_hub(
    path: str, method: str, example: Any, api: TestClient
) -> None:
    # Path parameters name nothing that exists: a 404 then says the body itself was valid.
    url = re.sub(r"\{[^}]+\}", "unknown", path)
    if isinstance(example, dict) and path.startswith("/v1/maintenance/"):
        # Compacting an agent the hub holds nothing of is a 404 (a mistyped name): give it a memory.
        agent = Memhub(agent=example["agent"], client=api)
        assert agent.wait(agent.publish("Dana prefers green tea")).status == "stored"
    response = api.request(method, url, json=example)
    assert response.status_code < 400 or ("{" in path and response.status_code == 404), response.text
