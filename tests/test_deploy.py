"""The deployment files run commands this code has, and give the API what it needs to be usable."""

import fnmatch
import json
import re
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import kubernetes_validate
import pytest
import yaml
from redis import Redis

from hub.api.app import create_app
from hub.cli import build_parser, main
from hub.conflicts.judge import Severity
from hub.keys import Keys
from hub.metrics import Metrics, hub_gauge_families
from hub.models import Scope
from hub.settings import ScopeName, Settings, SeverityName, get_settings
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


def k8s_deployments() -> dict[str, dict[str, Any]]:
    documents = yaml.safe_load_all((ROOT / "deploy/k8s/memhub.yaml").read_text())
    return {d["metadata"]["name"]: d for d in documents if d["kind"] == "Deployment"}


def test_at_scale_every_process_memhub_up_runs_in_one_runs_somewhere_and_the_scheduler_once() -> None:
    # `memhub up` runs the API, workers and the review/compaction schedules (CronThread); without a
    # `memhub cron`, a deployment never reviewed a day nor compacted a core.
    processes = {"api", "worker", "cron"}
    compose = {s["command"][1] for s in compose_services().values() if s.get("command", [""])[0] == "memhub"}
    k8s = {c["command"][1] for c in k8s_containers()}
    assert compose == processes and k8s == processes

    (cron,) = [
        d
        for d in k8s_deployments().values()
        if d["spec"]["template"]["spec"]["containers"][0]["command"][1] == "cron"
    ]
    assert cron["spec"]["replicas"] == 1 and cron["spec"]["strategy"] == {"type": "Recreate"}
    assert "deploy" not in compose_services()["cron"]  # `--scale worker=4` leaves it at one


def test_the_api_is_probed_on_its_port_and_health_route_everywhere() -> None:
    port = Settings().port
    assert "/healthz" in create_app().openapi()["paths"]
    (api_container,) = [c for c in k8s_containers() if c["command"][1] == "api"]
    assert api_container["readinessProbe"]["httpGet"] == {"path": "/healthz", "port": port}
    assert api_container["ports"] == [{"containerPort": port}]
    api = compose_services()["api"]
    assert f"http://127.0.0.1:{port}/healthz" in " ".join(api["healthcheck"]["test"])
    assert api["ports"] == [f"{port}:{port}"]
    assert f"EXPOSE {port}" in (ROOT / "deploy/Dockerfile").read_text()


def test_compose_runs_the_qdrant_the_store_tests_run_against() -> None:
    from tests.store.conftest import PINNED_QDRANT_IMAGE

    assert compose_services()["qdrant"]["image"] == PINNED_QDRANT_IMAGE


def test_redis_fsyncs_every_write_as_the_readme_promises() -> None:
    # "once an id comes back the event is durable in Redis": everysec could lose the last second.
    command = compose_services()["redis"]["command"]
    assert command[command.index("--appendfsync") + 1] == "always"


def _ignored(patterns: list[str], path: str) -> bool:
    """Whether a .dockerignore's patterns leave `path` out of the build context (last match wins)."""
    left_out = False
    for pattern in patterns:
        keep = pattern.startswith("!")
        glob = pattern.removeprefix("!").rstrip("/")
        parts = path.split("/")
        if any(fnmatch.fnmatch("/".join(parts[:n]), glob) for n in range(1, len(parts) + 1)) or (
            glob.startswith("**/") and any(fnmatch.fnmatch(p, glob[3:]) for p in parts)
        ):
            left_out = not keep
    return left_out


def test_the_image_gets_what_it_copies_and_never_the_virtualenv_or_a_hubs_data() -> None:
    # Without an ignore file, `docker compose up --build` sent the 1.7 GB .venv and ./memhub-data
    # (memories, key hashes, Redis's file) to the Docker engine as the build context.
    lines = (ROOT / "deploy/Dockerfile.dockerignore").read_text().splitlines()
    patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    dockerfile = (ROOT / "deploy/Dockerfile").read_text()
    copied = [s for line in dockerfile.splitlines() if line.startswith("COPY ") for s in line.split()[1:-1]]
    assert copied and not [path for path in copied if _ignored(patterns, path)]
    assert not [
        p
        for p in ("hub/settings.py", "workers/worker.py", "clients/python/memhub_client/__init__.py")
        if _ignored(patterns, p)
    ]
    for private in (
        ".venv/lib/python3.11/site-packages/torch/__init__.py",
        "memhub-data/redis/appendonly.aof",
        ".git/config",
        "tests/conftest.py",
        "hub/__pycache__/cli.cpython-311.pyc",
        "clients/typescript/node_modules/typescript/package.json",
    ):
        assert _ignored(patterns, private), private


def test_the_image_installs_the_cpu_torch_the_project_pins_and_never_fetches_the_model() -> None:
    dockerfile = (ROOT / "deploy/Dockerfile").read_text()
    pinned = re.search(r'"torch==([\d.]+)"', (ROOT / "pyproject.toml").read_text())
    assert pinned is not None
    torch_line = next(line for line in dockerfile.splitlines() if "pip install" in line and "torch" in line)
    assert f"torch=={pinned[1]}" in torch_line
    assert "--index-url https://download.pytorch.org/whl/cpu" in torch_line
    assert f"torch=={pinned[1]}" in (ROOT / "Makefile").read_text()
    assert "HF_HUB_OFFLINE=1" in dockerfile


# What memhub-agent, memhub-mcp and the TypeScript tests read: the clients', no setting of the hub.
CLIENT_VARIABLES = {"MEMHUB_URL", "MEMHUB_AGENT", "MEMHUB_CHANNEL", "MEMHUB_API_KEY", "MEMHUB_COMMAND"}


def test_every_variable_the_operator_reads_about_is_a_setting_with_the_default_the_readme_gives() -> None:
    # A misspelt variable is ignored by pydantic-settings (extra="ignore"): a silent misconfiguration.
    fields = {f"MEMHUB_{name.upper()}": name for name in Settings.model_fields}
    pages = ["README.md", *(str(p.relative_to(ROOT)) for p in sorted((ROOT / "docs").glob("*.md")))]
    for path in (*pages, "docker-compose.yml", "deploy/k8s/memhub.yaml", "deploy/Dockerfile"):
        named = set(re.findall(r"MEMHUB_[A-Z0-9_]+", (ROOT / path).read_text()))
        # The clients' page names the variables the clients read (the hub, the agent, its key) too.
        known = set(fields) | (CLIENT_VARIABLES if path == "docs/clients.md" else set())
        assert named <= known, f"{path} names {sorted(named - known)}, which Settings lacks"

    table = re.findall(
        r"^\| `(MEMHUB_\w+)` \| `([^`]+)` \|", (ROOT / "docs/configuration.md").read_text(), re.M
    )
    assert len(table) > 10
    defaults = Settings().model_dump(mode="json")
    for variable, default in table:
        value = defaults[fields[variable]]
        assert default.removeprefix("./") in (str(value), json.dumps(value)), (
            f"docs/configuration.md: {variable} defaults to {default}, not {value}"
        )


def test_the_dashboard_reads_only_metrics_the_hub_exports_and_shows_each() -> None:
    dashboard = json.loads((ROOT / "deploy/grafana/memhub.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    named = {n for e in exprs for n in re.findall(r"\b(?:memhub|process)_\w+", e)}
    families = [*Metrics().registry.collect(), *hub_gauge_families()]
    exported = {s.name for f in families for s in f.samples} | {f.name for f in families}
    assert named and named <= exported, sorted(named - exported)
    memhub = {f.name for f in families if f.name.startswith("memhub_")}
    assert not [f for f in memhub if not any(n.startswith(f) for n in named)]
    assert len({p["id"] for p in dashboard["panels"]}) == len(dashboard["panels"])


# The oldest Kubernetes still commonly run, and the newest whose schemas kubernetes-validate ships.
KUBERNETES_VERSIONS = ("1.29", kubernetes_validate.utils.latest_version())
# What KEDA's ScaledObject CRD (keda.sh/v1alpha1) knows in `spec` and requires of it and each trigger.
# The CRD is not among the core schemas: the ScaledObject is checked against these, structurally.
SCALED_OBJECT_SPEC = {
    "advanced",
    "cooldownPeriod",
    "fallback",
    "idleReplicaCount",
    "initialCooldownPeriod",
    "maxReplicaCount",
    "minReplicaCount",
    "pollingInterval",
    "scaleTargetRef",
    "triggers",
}


def manifests() -> list[dict[str, Any]]:
    return [
        d
        for path in sorted((ROOT / "deploy/k8s").glob("*.yaml"))
        for d in yaml.safe_load_all(path.read_text())
    ]


def manifest(kind: str, name: str) -> dict[str, Any]:
    (found,) = [d for d in manifests() if d["kind"] == kind and d["metadata"]["name"] == name]
    return found


def check_scaled_object(document: dict[str, Any]) -> None:
    assert document["apiVersion"] == "keda.sh/v1alpha1" and document["metadata"]["name"]
    spec = document["spec"]
    assert set(spec) <= SCALED_OBJECT_SPEC, set(spec) - SCALED_OBJECT_SPEC
    assert isinstance(spec["scaleTargetRef"]["name"], str)
    for count in ("minReplicaCount", "maxReplicaCount", "pollingInterval", "cooldownPeriod"):
        assert isinstance(spec.get(count, 0), int), count
    assert spec["triggers"]
    for trigger in spec["triggers"]:
        assert isinstance(trigger["type"], str)
        # The scalers' settings are a map of strings: a bare number is refused by the API server.
        assert all(isinstance(v, str) for v in trigger["metadata"].values()), trigger["metadata"]


def test_every_manifest_validates_against_the_kubernetes_schemas_offline() -> None:
    documents = manifests()
    assert {d["kind"] for d in documents} >= {
        "Deployment",
        "Service",
        "PodDisruptionBudget",
        "HorizontalPodAutoscaler",
        "ScaledObject",
        "ConfigMap",
    }
    for document in documents:
        if document["kind"] == "ScaledObject":
            check_scaled_object(document)
            continue
        for version in KUBERNETES_VERSIONS:
            kubernetes_validate.validate(document, version, strict=True)


def test_the_validation_would_catch_a_mistake() -> None:
    api = manifest("Deployment", "memhub-api")
    api["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {
        "httpGet": {"port": 8420}
    }  # misspelt
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(api, KUBERNETES_VERSIONS[0], strict=True)
    scaled = manifest("ScaledObject", "memhub-worker")
    scaled["spec"]["triggers"][0]["metadata"]["lagCount"] = 1024
    with pytest.raises(AssertionError):
        check_scaled_object(scaled)


def test_the_workers_scale_on_the_lag_of_the_group_they_read() -> None:
    keys = Keys(Settings().redis_prefix)
    workers = manifest("Deployment", "memhub-worker")
    # Exactly one autoscaler is applied: the base manifest has none of its own.
    assert not [
        d
        for d in yaml.safe_load_all((ROOT / "deploy/k8s/memhub.yaml").read_text())
        if d["kind"] in ("HorizontalPodAutoscaler", "ScaledObject")
    ]

    scaled = manifest("ScaledObject", "memhub-worker")["spec"]
    assert scaled["scaleTargetRef"]["name"] == workers["metadata"]["name"]
    [trigger] = scaled["triggers"]
    assert trigger["type"] == "redis-streams"
    assert (trigger["metadata"]["stream"], trigger["metadata"]["consumerGroup"]) == (keys.stream, keys.group)
    assert "lagCount" in trigger["metadata"] and "pendingEntriesCount" not in trigger["metadata"]
    redis_url = urlparse(manifest("ConfigMap", "memhub")["data"]["MEMHUB_REDIS_URL"])
    assert trigger["metadata"]["address"] == f"{redis_url.hostname}:{redis_url.port}"
    assert trigger["metadata"]["databaseIndex"] == redis_url.path.strip("/")
    # Workers also run the reviews and the scheduled jobs, which no lag shows: never none.
    assert scaled["minReplicaCount"] >= 1

    hpa = manifest("HorizontalPodAutoscaler", "memhub-worker")["spec"]
    assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "memhub-worker"}
    [metric] = hpa["metrics"]
    assert metric["external"]["metric"]["name"] == "memhub_stream_lag"
    assert "memhub_stream_lag" in {f.name for f in hub_gauge_families()}
    assert metric["external"]["target"]["averageValue"] == trigger["metadata"]["lagCount"]
    assert (hpa["minReplicas"], hpa["maxReplicas"]) == (scaled["minReplicaCount"], scaled["maxReplicaCount"])
    adapter = yaml.safe_load((ROOT / "deploy/prometheus-adapter-values.yaml").read_text())
    [rule] = adapter["rules"]["external"]
    assert rule["name"]["as"] == "memhub_stream_lag" and "memhub_stream_lag" in rule["metricsQuery"]


def test_every_process_is_probed_limited_and_kept_running_through_disruptions() -> None:
    paths = create_app().openapi()["paths"]
    port = Settings().worker_metrics_port
    for name in ("memhub-api", "memhub-worker"):
        deployment = manifest("Deployment", name)
        [container] = deployment["spec"]["template"]["spec"]["containers"]
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            get = container[probe]["httpGet"]
            assert get["path"] in paths or (get["path"] == "/metrics" and get["port"] == port), (name, probe)
        requests, limits = container["resources"]["requests"], container["resources"]["limits"]
        assert {"cpu", "memory"} <= set(requests) and "memory" in limits
        budget = manifest("PodDisruptionBudget", name)["spec"]
        assert budget["selector"] == deployment["spec"]["selector"]
        assert budget["maxUnavailable"] < deployment["spec"]["replicas"]
    # Liveness never reads Redis or the store: an outage takes pods out of the Service, it does not
    # restart them all.
    api = manifest("Deployment", "memhub-api")["spec"]["template"]["spec"]["containers"][0]
    assert api["livenessProbe"]["httpGet"]["path"] == "/livez"
    worker = manifest("Deployment", "memhub-worker")["spec"]["template"]["spec"]["containers"][0]
    assert worker["command"][-2:] == ["--host", "0.0.0.0"] and worker["ports"][0]["containerPort"] == port
