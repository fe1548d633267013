"""Schemathesis against the OpenAPI document: whatever it sends, the hub never answers 5xx, and every
answer is one the document describes (its status code, content type and body schema)."""

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

from hub.api.app import create_app
from hub.embedded import EmbeddedHub

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
