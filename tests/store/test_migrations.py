"""The one-time backfill of derived payload keys: memories stored before a key existed get it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

import numpy as np
import pytest
from redis import Redis

from hub.embedded import EmbeddedHub
from hub.keys import Keys
from hub.models import Memory, Sighting, State
from hub.pages.daily import day_memories, render
from hub.services import Services
from hub.store.base import (
    DERIVED_KEYS,
    MemoryFilter,
    MemoryPoint,
    MemoryStore,
    PayloadPatch,
    scroll_all,
    to_payload,
)
from hub.store.migrations import DERIVED_VERSION, backfill_derived_keys
from tests.store.conftest import NOW, make_memory
from workers.worker import run_worker

MakePoint = Callable[[Memory], MemoryPoint]

HOUR, DAY = timedelta(hours=1), timedelta(days=1)
KEYS = Keys("memhub")
COLLECTION = "memories"


def said(name: str, at: datetime, agent: str = "tester") -> Sighting:
    return Sighting(event_id=name, agent=agent, at=at)


def twice_said(name: str, text: str, **fields: object) -> Memory:
    """A memory first said five days ago and said again yesterday."""
    first, again = said(name, NOW - 5 * DAY), said(f"{name}-again", NOW - DAY)
    return make_memory(name, text, occurred_at=first.at, sightings=[first, again], **fields)


def stored_the_old_way(store: MemoryStore, point: MemoryPoint, patch: PayloadPatch) -> None:
    """Store `point` as code from before a derived key did: its payload then changed by `patch`."""
    store.upsert([point])
    store.patch_payloads({point.memory.id: patch})


def said_again_yesterday(store: MemoryStore) -> set[str]:
    window = MemoryFilter(
        now=NOW, all_scopes=True, stated_after=NOW - DAY - HOUR, stated_before=NOW - DAY + HOUR
    )
    return {m.event_id for m in scroll_all(store, window)}


def test_a_restatement_stored_before_stated_ts_is_found_on_its_day_after_the_backfill(
    store: MemoryStore, redis: Redis, make_point: MakePoint
) -> None:
    bike = twice_said("bike", "Dana's bike is in the storage room")
    stored_the_old_way(store, make_point(bike), PayloadPatch(delete=("stated_ts",)))
    assert said_again_yesterday(store) == set()  # the day it was said again lost it

    done = backfill_derived_keys(store, redis, KEYS, collection=COLLECTION)

    assert done is not None and (done.read, done.patched) == (1, 1)
    assert said_again_yesterday(store) == {"bike"}


def test_every_stale_payload_is_patched_and_nothing_else_changes(
    store: MemoryStore, redis: Redis, make_point: MakePoint
) -> None:
    memories = {
        # No `stated_ts`, or only the first statement's time: restatements missing from their day.
        "bike": twice_said("bike", "Dana's bike is in the storage room"),
        "keys": twice_said("keys", "The spare car keys are in the blue bowl"),
        # Private before `audience` existed: group chats saw it. Made public with a stale key: they did not.
        "secret": make_memory("secret", "Noa is seeing a cardiologist on Monday", private=True),
        "public": make_memory("public", "The team offsite is in Haifa this year"),
        # Expired and superseded memories are patched too: the daily page shows every state.
        "expired": twice_said("expired", "The office wifi is down", expires_at=NOW - HOUR),
        "superseded": twice_said("superseded", "Deploys happen on Fridays", state=State.superseded),
        "fresh": twice_said("fresh", "Itai's bike is in the hallway"),  # stored by the current code
    }
    old = {
        "bike": PayloadPatch(delete=("stated_ts",)),
        "keys": PayloadPatch(set={"stated_ts": [(NOW - 5 * DAY).timestamp()]}),
        "secret": PayloadPatch(delete=("audience",)),
        "public": PayloadPatch(set={"audience": "direct"}),
        "expired": PayloadPatch(delete=("stated_ts", "created_ts")),
        "superseded": PayloadPatch(delete=("stated_ts",)),
        "fresh": PayloadPatch(),
    }
    for name, memory in memories.items():
        stored_the_old_way(store, make_point(memory), old[name])
    ids = [memory.id for memory in memories.values()]
    vectors = store.vectors(ids)
    group_chat = MemoryFilter(now=NOW, exclude_private=True)
    assert said_again_yesterday(store) == {"fresh"}
    assert {"secret", "public"} & {m.event_id for m in scroll_all(store, group_chat)} == {"secret"}

    done = backfill_derived_keys(store, redis, KEYS, collection=COLLECTION, page_size=2)

    assert done is not None and (done.read, done.patched) == (7, 6)
    assert said_again_yesterday(store) == {"bike", "keys", "fresh"}  # expired and superseded: filtered out
    assert {"secret", "public"} & {m.event_id for m in scroll_all(store, group_chat)} == {"public"}
    assert store.scroll_payloads(limit=100).payloads == {m.id: to_payload(m) for m in memories.values()}
    assert store.get(ids) == list(memories.values())
    for point, vector in store.vectors(ids).items():
        assert np.allclose(vector, vectors[point], atol=1e-6)


def test_the_marker_makes_it_once_per_store_and_a_rerun_writes_nothing(
    store: MemoryStore, redis: Redis, make_point: MakePoint
) -> None:
    stored_the_old_way(
        store, make_point(twice_said("bike", "Dana's bike")), PayloadPatch(delete=("stated_ts",))
    )
    assert backfill_derived_keys(store, redis, KEYS, collection=COLLECTION) is not None
    assert int(redis.get(KEYS.derived_keys_version(COLLECTION)) or 0) == DERIVED_VERSION

    # Stored the old way after the backfill (no code does): the marker says done, so it stays as it is.
    stored_the_old_way(store, make_point(twice_said("keys", "Car keys")), PayloadPatch(delete=("stated_ts",)))
    assert backfill_derived_keys(store, redis, KEYS, collection=COLLECTION) is None
    assert said_again_yesterday(store) == {"bike"}
    # Another collection is another store; without the marker a rerun writes only what is stale.
    assert backfill_derived_keys(store, redis, KEYS, collection="other") is not None
    redis.delete(KEYS.derived_keys_version(COLLECTION))
    again = backfill_derived_keys(store, redis, KEYS, collection=COLLECTION)
    assert again is not None and (again.read, again.patched) == (2, 0)


def test_a_second_process_leaves_the_backfill_to_the_one_doing_it(
    store: MemoryStore, redis: Redis, make_point: MakePoint
) -> None:
    stored_the_old_way(
        store, make_point(twice_said("bike", "Dana's bike")), PayloadPatch(delete=("stated_ts",))
    )
    redis.set(KEYS.derived_keys_claim(COLLECTION), "another-worker", ex=60)

    assert backfill_derived_keys(store, redis, KEYS, collection=COLLECTION) is None
    assert said_again_yesterday(store) == set()
    assert redis.get(KEYS.derived_keys_version(COLLECTION)) is None

    redis.delete(KEYS.derived_keys_claim(COLLECTION))  # it died, or its claim lapsed
    assert backfill_derived_keys(store, redis, KEYS, collection=COLLECTION) is not None
    assert said_again_yesterday(store) == {"bike"}
    assert redis.get(KEYS.derived_keys_claim(COLLECTION)) is None


def test_derived_keys_name_every_key_to_payload_adds() -> None:
    full = make_memory("full", "x", private=True, expires_at=NOW + DAY, sightings=[said("full", NOW)])
    assert set(to_payload(full)) - set(Memory.model_fields) == set(DERIVED_KEYS)


def test_the_daily_page_shows_an_old_restatement_after_the_backfill(
    store: MemoryStore, redis: Redis, make_point: MakePoint
) -> None:
    first = datetime(2026, 11, 20, 9, tzinfo=UTC)
    again = said("keys-again", datetime(2026, 11, 21, 10, 15, tzinfo=UTC), agent="tg-assistant")
    keys = make_memory(
        "keys",
        "The spare car keys are in the blue bowl by the door",
        agent="wa-assistant",
        occurred_at=first,
        sightings=[said("keys", first, "wa-assistant"), again],
    )
    stored_the_old_way(store, make_point(keys), PayloadPatch(delete=("stated_ts",)))

    def page() -> str:
        day = date(2026, 11, 21)
        return render(day, day_memories(store, day, agent=None), agent=None).markdown

    assert page().endswith("Nothing was recorded on this day.\n")
    backfill_derived_keys(store, redis, KEYS, collection=COLLECTION)
    assert (
        "- 10:15 The spare car keys are in the blue bowl by the door (tg-assistant) "
        f"_(said again; first noted 2026-11-20 by wa-assistant)_ <!-- memory:{keys.id} -->"
    ) in page()


@pytest.mark.parametrize("start", ["worker", "embedded"])
def test_a_starting_worker_backfills_the_store(
    make_services: Callable[..., Services], make_point: MakePoint, start: str
) -> None:
    services = make_services()
    bike = twice_said("bike", "Dana's bike is in the storage room")
    stored_the_old_way(services.store, make_point(bike), PayloadPatch(delete=("stated_ts",)))

    if start == "worker":
        run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")
    else:
        hub = EmbeddedHub(services=services, redis_server=None)
        hub.start_workers(1, sweep_interval=3600)
        hub.stop_workers()

    assert said_again_yesterday(services.store) == {"bike"}
    assert services.redis.get(services.keys.derived_keys_version(services.settings.collection)) is not None
