"""Maintenance and core routes: follow a compaction by id, and what an unknown one answers."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from starlette.testclient import TestClient

from hub.compaction.scan import unknown_agent
from hub.embedded import EmbeddedHub
from memhub_client import Memhub, MemhubError
from tests.compaction.helpers import stored


def test_an_agent_with_no_core_gets_the_empty_sections(make_agent: Callable[..., Memhub]) -> None:
    block = make_agent("new-agent").load_core(person="Dana")
    assert block.markdown.splitlines() == [
        "# Core memory: new-agent",
        "## Identity",
        "## User",
        "## Active Context",
        "## Quick Reference",
    ]
    assert (block.memory_ids, block.left_out, block.archived) == ([], [], 0)


def test_a_compaction_is_followed_by_id_and_an_unknown_id_is_404(
    api: TestClient, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    stored(make_agent("wa"), "Dana likes green tea")
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


def test_compacting_an_agent_with_no_memories_is_404_naming_the_agents_that_have(
    hub: EmbeddedHub, api: TestClient, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    # A mistyped name was queued, found nothing and reported "0 changes", as if all were well.
    body = {"agent": "wa-asistant", "dry_run": True}
    empty = api.post("/v1/maintenance/compactions", json=body)
    assert empty.status_code == 404
    assert empty.json()["detail"] == "agent 'wa-asistant' has no memories to compact: the hub holds none yet"

    stored(make_agent("wa-assistant", "whatsapp"), "Dana likes green tea")
    stored(make_agent("tg-assistant", "telegram"), "Netanel works until 20:00")
    settle()
    expected = "agent 'wa-asistant' has no memories to compact; the agents with memories are: tg-assistant, wa-assistant"
    for dry_run in (True, False):
        refused = api.post("/v1/maintenance/compactions", json={**body, "dry_run": dry_run})
        assert (refused.status_code, refused.json()["detail"]) == (404, expected)
        with pytest.raises(MemhubError) as raised:
            make_agent("wa-asistant").compact(dry_run=dry_run)
        assert (raised.value.status_code, raised.value.detail) == (404, expected)
    assert hub.services.queue.count == 0  # nothing was queued

    # Naming the agents reads memories; past the first `most` the list says it may be partial.
    assert unknown_agent(hub.services.store, "wa-asistant", most=1) in {
        f"agent 'wa-asistant' has no memories to compact; the agents with memories include: {agent}"
        for agent in ("tg-assistant", "wa-assistant")
    }
    assert unknown_agent(hub.services.store, "wa-assistant") is None

    post = api.get("/openapi.json").json()["paths"]["/v1/maintenance/compactions"]["post"]
    assert post["responses"]["404"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorBody"
    }
