"""The deployment files run commands this code has, and give the API what it needs to be usable."""

import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from redis import Redis

from hub.cli import build_parser, main
from hub.conflicts.judge import Severity
from hub.models import Scope
from hub.settings import ScopeName, SeverityName, get_settings
from hub.store.edge import EdgeStore

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


@pytest.fixture
def fresh_settings() -> Iterator[None]:
    """get_settings reads the environment once per process: read it again around the test."""
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("MEMHUB_PORT", "abc", "MEMHUB_PORT='abc': Input should be a valid integer"),
        (
            "MEMHUB_SECRETS_POLICY",
            "drop",
            "MEMHUB_SECRETS_POLICY='drop': Input should be 'refuse' or 'redact'",
        ),
        (
            "MEMHUB_CONFLICT_AUTO_RESOLVE",
            "low",
            "MEMHUB_CONFLICT_AUTO_RESOLVE is not valid JSON; write a JSON list",
        ),
        # A severity no conflict has would silently never match.
        (
            "MEMHUB_CONFLICT_AUTO_RESOLVE",
            '["lo"]',
            "MEMHUB_CONFLICT_AUTO_RESOLVE[0]='lo': Input should be 'low'",
        ),
        (
            "MEMHUB_AUTO_PROMOTE_SCOPES",
            '["projects"]',
            "MEMHUB_AUTO_PROMOTE_SCOPES[0]='projects': Input should be 'global', 'project'",
        ),
        ("MEMHUB_TIMEZONE", "Mars/Base", "MEMHUB_TIMEZONE='Mars/Base': unknown time zone"),
    ],
)
def test_a_bad_variable_is_named_with_what_is_allowed_not_a_traceback(
    variable: str,
    value: str,
    said: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fresh_settings: None,
) -> None:
    monkeypatch.setenv(variable, value)
    assert main(["worker"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"memhub worker: {said}"), err
    assert "Traceback" not in err


def test_the_names_settings_accept_are_the_hubs_severities_and_scopes() -> None:
    assert set(typing.get_args(SeverityName)) == {s.value for s in Severity}
    assert set(typing.get_args(ScopeName)) == {s.value for s in Scope}


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["up", "--workers", "0"], "argument --workers: 0 is too few: at least 1"),
        (["up", "--workers", "-3"], "argument --workers: -3 is too few"),  # started no worker at all
        (["api", "--port", "99999"], "argument --port: 99999 is not a port: 1 to 65535"),
        (["up", "--port", "http"], "argument --port: 'http' is not a port number"),
    ],
)
def test_a_bad_flag_is_refused_saying_what_is_allowed(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(argv)
    assert exited.value.code == 2
    assert said in capsys.readouterr().err


@pytest.mark.parametrize("command", ["api", "worker"])
def test_api_and_worker_without_redis_say_what_to_set(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fresh_settings: None
) -> None:
    monkeypatch.delenv("MEMHUB_REDIS_URL", raising=False)
    assert main([command]) == 2
    assert capsys.readouterr().err.startswith(f"memhub {command}: set MEMHUB_REDIS_URL")


def test_a_second_process_on_the_embedded_store_is_told_to_share_a_qdrant_server(
    tmp_path: Path,
    redis: Redis,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fresh_settings: None,
) -> None:
    # `memhub api` and `memhub worker` without MEMHUB_QDRANT_URL both open the shard: the second one
    # died with qdrant-edge's "Can't init WAL: Kind(WouldBlock)" traceback.
    monkeypatch.setenv("MEMHUB_REDIS_URL", redis_url)
    monkeypatch.delenv("MEMHUB_QDRANT_URL", raising=False)
    owner = EdgeStore(tmp_path / "store" / "memories")
    try:
        assert main(["worker", "--burst", "--data-dir", str(tmp_path)]) == 2
    finally:
        owner.close()
    err = capsys.readouterr().err
    assert err.startswith(f"memhub worker: the embedded store in {tmp_path / 'store' / 'memories'} is open")
    assert "set MEMHUB_QDRANT_URL" in err
