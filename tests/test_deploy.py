"""The deployment files run commands this code has, and give the API what it needs to be usable."""

from pathlib import Path
from typing import Any

import pytest
import yaml

from hub.cli import build_parser

ROOT = Path(__file__).parent.parent


def compose_services() -> dict[str, dict[str, Any]]:
    services: dict[str, dict[str, Any]] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())[
        "services"
    ]
    return services


def k8s_containers() -> list[dict[str, Any]]:
    documents = yaml.safe_load_all((ROOT / "deploy/k8s/memhub.yaml").read_text())
    return [
        c for d in documents if d["kind"] == "Deployment" for c in d["spec"]["template"]["spec"]["containers"]
    ]


@pytest.mark.parametrize(
    "command",
    [s["command"] for s in compose_services().values() if "command" in s and s["command"][0] == "memhub"]
    + [c["command"] for c in k8s_containers()],
)
def test_every_memhub_command_parses(command: list[str]) -> None:
    build_parser().parse_args(command[1:])  # an unknown command or option exits


def test_the_api_gets_an_admin_key_and_every_process_the_same_redis_and_qdrant() -> None:
    services = compose_services()
    api, worker = services["api"]["environment"], services["worker"]["environment"]
    # Compose refuses to start, saying what to set, when MEMHUB_ADMIN_KEY is not given.
    assert api["MEMHUB_ADMIN_KEY"].startswith("${MEMHUB_ADMIN_KEY:?")
    for name in ("MEMHUB_REDIS_URL", "MEMHUB_QDRANT_URL"):
        assert api[name] == worker[name]

    (api_container,) = [c for c in k8s_containers() if c["command"][:2] == ["memhub", "api"]]
    secret = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in api_container["env"]}
    assert secret["MEMHUB_ADMIN_KEY"] == {"name": "memhub-admin", "key": "MEMHUB_ADMIN_KEY"}
    assert all(c["envFrom"] == [{"configMapRef": {"name": "memhub"}}] for c in k8s_containers())
