"""The client's models are the hub's: generated from its OpenAPI document, which must be current."""

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import memhub_client.models
from hub.api.app import create_app
from tests.helpers import ROOT


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate", ROOT / "clients" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_document_and_models_are_what_the_hub_generates() -> None:
    # A change to a route or a schema without `make clients` fails here, naming the command.
    generate = generator()
    for path, text in generate.outputs().items():
        assert Path(path).read_text() == text, f"{path} is out of date: run `make clients`"


def test_every_schema_has_a_model_with_the_documents_fields() -> None:
    schemas = create_app().openapi()["components"]["schemas"]
    generate = generator()
    for name, schema in schemas.items():
        model = getattr(memhub_client.models, generate.class_name(name))
        if "enum" in schema:
            assert [m.value for m in model] == schema["enum"], name
            continue
        fields = model.model_fields
        assert list(fields) == list(schema.get("properties", {})), name
        required = {f for f, info in fields.items() if info.is_required()}
        assert required == set(schema.get("required", [])), name


def test_a_newer_hubs_extra_fields_are_ignored() -> None:
    answer = {"id": "e1", "status": "stored", "reviewed": True, "settled": True, "new_in_a_later_hub": 1}
    status = memhub_client.models.EventStatusPublic.model_validate(json.loads(json.dumps(answer)))
    assert status.status == "stored" and status.settled
