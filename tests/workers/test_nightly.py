"""The nightly review purges what expired, as every agent's compaction would, without waiting a week."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from starlette.testclient import TestClient

from hub.compaction.schedule import build_scheduler
from hub.embedded import EmbeddedHub
from hub.models import utcnow
from memhub_client import Memhub
from tests.compaction.helpers import stored
from tests.helpers import expire


def nightly_review(hub: EmbeddedHub, settle: Callable[..., None]) -> dict[str, Any]:
    """Run the nightly review as its schedule does when 02:30 comes; its result."""
    services = hub.services
    scheduler = build_scheduler(services.settings, services.redis)
    [nightly] = [job for job in scheduler.get_jobs() if job.name.endswith("nightly-review")]
    earlier = set(nightly.get_job_ids(services.redis))
    nightly.next_enqueue_time = utcnow() - timedelta(seconds=1)
    assert scheduler.enqueue_jobs() == [nightly]
    [job_id] = set(nightly.get_job_ids(services.redis)) - earlier
    settle()
    job = services.queue.fetch_job(job_id)
    assert job is not None
    result: dict[str, Any] = job.return_value(refresh=True)
    return result


def test_a_conflict_whose_side_expired_is_settled_the_same_night(
    hub: EmbeddedHub, api: TestClient, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    late = stored(wa, "Netanel works until 20:00")
    early = stored(tg, "Netanel works until 17:00", scope="temporary", ttl_seconds=600)
    meeting = stored(tg, "The plumber comes tomorrow at 09:00", scope="temporary", ttl_seconds=3600)
    settle()
    [conflict] = api.get("/v1/conflicts", params={"status": "open"}).json()["conflicts"]
    assert set(conflict["memory_ids"]) == {late, early}
    expire(hub.services.store, early)

    # It stayed open (and listed as open) until tg-assistant's weekly compaction purged the memory.
    review = nightly_review(hub, settle)
    assert api.get("/v1/conflicts", params={"status": "open"}).json()["conflicts"] == []
    assert review["purged"] == [early]
    settled = api.get(f"/v1/conflicts/{conflict['id']}").json()
    assert settled["status"] == "auto_resolved"
    resolution = settled["resolution"]
    assert (resolution["keep"], resolution["by"]) == (late, "review")
    assert resolution["note"] == f"memory {early} was expired and purged"
    assert hub.services.store.get([early]) == []
    assert wa.memory(late).state == "active" and tg.memory(meeting).state == "active"  # not expired: kept


def test_what_an_expired_correction_superseded_is_found_again_the_same_night(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    locker = stored(wa, "Netanel's gym locker is number 12")
    repair = stored(
        wa,
        "Netanel's gym locker is number 40 while 12 is repaired",
        kind="correction",
        related=[locker],
        scope="temporary",
        ttl_seconds=600,
    )
    settle()
    assert wa.memory(locker).superseded_by == repair
    expire(hub.services.store, repair)

    # Superseded by a memory nobody finds any more, the locker was found by no search for a week.
    review = nightly_review(hub, settle)
    back = wa.memory(locker)
    assert (back.state, back.superseded_by) == ("active", None)
    assert review["purged"] == [repair]
    change = back.history[-1]
    assert (change.action, change.by) == ("restored", "review")
    assert change.changes == {"state": ["superseded", "active"], "superseded_by": [repair, None]}
    assert locker in {h.id for h in wa.search("which gym locker is Netanel's?")}
    assert nightly_review(hub, settle)["purged"] == []  # nothing more to purge the next night
