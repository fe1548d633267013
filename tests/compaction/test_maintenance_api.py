"""Maintenance and core routes: follow a compaction by id, and what an unknown one answers."""

from __future__ import annotations

from collections.abc import Callable

from starlette.testclient import TestClient

from clients import Memhub


def test_an_agent_with_no_core_gets_the_empty_sections(make_agent: Callable[..., Memhub]) -> None:
    block = make_agent("new-agent").load_core(person="Dana")
    assert block.markdown.splitlines() == [
        "# Core memory: new-agent", "## Identity", "## User", "## Active Context", "## Quick Reference",
    ]  # fmt: skip
    assert (block.memory_ids, block.left_out, block.archived) == ([], [], 0)


def test_a_compaction_is_followed_by_id_and_an_unknown_id_is_404(
    api: TestClient, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    job = make_agent("wa").compact(dry_run=True)
    assert (job.agent, job.dry_run, job.reason) == ("wa", True, "manual")
    settle()
    done = make_agent("wa").compaction(job.id)
    assert done.status == "finished" and done.result is not None and done.result.dry_run
    assert done.progress.stage is not None

    assert api.get("/v1/maintenance/compactions/no-such-job").status_code == 404
    assert api.post("/v1/maintenance/compactions", json={"agent": ""}).status_code == 422
    assert api.get("/v1/core").status_code == 422  # the agent is required
    paths = api.get("/openapi.json").json()["paths"]
    assert {"/v1/core", "/v1/maintenance/compactions", "/v1/maintenance/compactions/{job_id}"} <= set(paths)
