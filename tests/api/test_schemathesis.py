"""Schemathesis against the OpenAPI document: whatever it sends, the hub never answers 5xx."""

import pytest
import schemathesis
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from hub.api.app import create_app
from hub.embedded import EmbeddedHub

# The document comes from the app itself; each case is sent to a real hub's app (below).
schema = schemathesis.openapi.from_dict(create_app().openapi())


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
def test_no_server_errors(case: schemathesis.Case, hub: EmbeddedHub) -> None:
    response = case.call(app=create_app(hub.services))
    assert response.status_code < 500, (
        f"{case.method} {case.formatted_path} -> {response.status_code}: {response.text}"
    )
