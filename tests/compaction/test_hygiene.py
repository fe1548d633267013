"""Must-show 3: expired temporary memories are gone, stale ones are marked, and a dry run changes nothing."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta

from hub.compaction.jobs import CompactionRequest, enqueue_compaction
from hub.conflicts import ledger
from hub.embedded import EmbeddedHub
from hub.models import utcnow
from memhub_client import Memhub
from tests.compaction.helpers import everything, stored
from tests.helpers import expire

AGENT = "wa-assistant"


def compact(hub: EmbeddedHub, settle: Callable[..., None], *, dry_run: bool) -> dict:  # type: ignore[type-arg]
    job = enqueue_compaction(hub.services.queue, CompactionRequest(agent=AGENT, dry_run=dry_run))
    settle()
    result: dict = job.return_value(refresh=True)  # type: ignore[type-arg]
    return result


def test_expired_are_purged_stale_are_marked_and_a_dry_run_changes_nothing(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa = make_agent(AGENT, "whatsapp")
    parking = stored(wa, "The car is parked on level 3 of the mall", scope="temporary", ttl_seconds=1)
    meeting = stored(wa, "The plumber comes tomorrow at 09:00", scope="temporary", ttl_seconds=3600)
    dentist = stored(wa, "Netanel's dentist is Dr. Cohen in Haifa")
    coffee = stored(wa, "Netanel drinks his coffee black")
    settle()
    # The dentist fact was last verified 120 days ago (stale after the default 90).
    store = hub.services.store
    store.update(dentist, {"last_verified": utcnow() - timedelta(days=120)})
    time.sleep(1.1)  # the parking note expires

    before = everything(store)
    plan = compact(hub, settle, dry_run=True)
    assert plan["dry_run"] is True
    assert plan["purge"] == [parking] and plan["mark_stale"] == [dentist]
    assert everything(store) == before  # nothing changed, not even history

    done = compact(hub, settle, dry_run=False)
    assert (done["purge"], done["mark_stale"], done["skipped"]) == ([parking], [dentist], [])
    assert store.get([parking]) == []
    assert {m.id for m in wa.search("where is the car parked?", limit=20)}.isdisjoint({parking})
    stale = wa.memory(dentist)
    assert stale.state == "stale"
    change = stale.history[-1]
    assert (change.action, change.by) == ("marked_stale", "compaction")
    assert change.changes == {"state": ["active", "stale"]}
    assert wa.memory(coffee).state == "active" and wa.memory(meeting).state == "active"
    assert dentist in {h.id for h in wa.search("who is Netanel's dentist?")}  # stale, still found


def test_what_an_expired_temporary_memory_superseded_comes_back_when_it_is_purged(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa = make_agent(AGENT, "whatsapp")
    locker = stored(wa, "Netanel's gym locker is number 12")
    office = stored(wa, "Netanel works from the Tel Aviv office")
    # Two temporary corrections; the second was itself corrected since by a lasting one.
    repair = stored(
        wa,
        "Netanel's gym locker is number 40 while 12 is repaired",
        kind="correction",
        related=[locker],
        scope="temporary",
        ttl_seconds=600,
    )
    haifa = stored(
        wa,
        "Netanel works from the Haifa office this week",
        kind="correction",
        related=[office],
        scope="temporary",
        ttl_seconds=600,
    )
    moved = stored(wa, "Netanel moved to the Haifa office for good", kind="correction", related=[haifa])
    settle()
    assert (wa.memory(locker).state, wa.memory(locker).superseded_by) == ("superseded", repair)
    assert (wa.memory(office).superseded_by, wa.memory(haifa).superseded_by) == (haifa, moved)
    expire(hub.services.store, repair, haifa)  # both temporary corrections expire

    done = compact(hub, settle, dry_run=False)
    assert sorted(done["purge"]) == sorted([repair, haifa]) and done["skipped"] == []

    # Not left superseded by a memory that no longer exists: active again, and its history says why.
    back = wa.memory(locker)
    assert (back.state, back.superseded_by) == ("active", None)
    change = back.history[-1]
    assert (change.action, change.by) == ("restored", "compaction")
    assert change.changes == {"state": ["superseded", "active"], "superseded_by": [repair, None]}
    assert repair in (change.note or "") and "expired" in (change.note or "")
    assert locker in {h.id for h in wa.search("which gym locker is Netanel's?")}
    # What replaced the expired correction still stands: the old memory now links to it instead.
    linked = wa.memory(office)
    assert (linked.state, linked.superseded_by) == ("superseded", moved)
    assert linked.history[-1].changes == {"superseded_by": [haifa, moved]}


def test_a_conflict_with_an_expired_memory_is_settled_when_it_is_purged(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa = make_agent(AGENT, "whatsapp")
    late = stored(wa, "Netanel works until 20:00")
    early = stored(wa, "Netanel works until 17:00", scope="temporary", ttl_seconds=600)
    settle()
    [conflict] = ledger.all_conflicts(hub.services.redis, hub.services.keys)
    assert conflict.open and set(conflict.memory_ids) == {late, early}
    expire(hub.services.store, early)

    assert compact(hub, settle, dry_run=False)["purge"] == [early]

    # Nobody is asked about a memory that is gone: the one that lasts stands, and the note says why.
    settled = ledger.get(hub.services.redis, hub.services.keys, conflict.id)
    assert settled is not None and settled.status.value == "auto_resolved" and settled.resolution is not None
    assert (settled.resolution.keep, settled.resolution.note) == (
        late,
        f"memory {early} was expired and purged",
    )
    assert wa.memory(late).state == "active"
