"""Forgetting a memory at the owner's request, through the real pipeline and the SDK."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta

import pytest
from starlette.testclient import TestClient

from hub.compaction.apply import merge
from hub.compaction.jobs import CompactionRequest, enqueue_compaction, read_job
from hub.compaction.plan import MergePlan
from hub.embedded import EmbeddedHub
from hub.forgetting import FORGOTTEN
from hub.models import utcnow
from hub.status import list_dead_letters
from memhub_client import Memhub, MemhubError


def stored(agent: Memhub, text: str, **fields: object) -> str:
    status = agent.wait(agent.publish(text, **fields))
    assert status.status == "stored", status
    assert status.memory_id
    return status.memory_id


def allergy_conflict(make_agent: Callable[..., Memhub]) -> tuple[Memhub, str, str, str]:
    """Two agents disagree about Netanel's allergies: the Telegram agent, the two memories (WhatsApp's
    first) and their conflict's id."""
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    allergic = stored(wa, "Netanel is allergic to peanuts", source="wa:msg:1")
    not_allergic = stored(tg, "Netanel has no food allergies", source="tg:msg:7")
    [conflict] = tg.conflicts()
    return tg, allergic, not_allergic, conflict.id


def test_a_forgotten_memory_is_gone_and_its_events_delivered_again_are_refused(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    text = "Noa sees her therapist Dr. Levi every Tuesday"
    memory_id = stored(wa, text, id="wa-msg-1")
    # Said again through the other agent: folded into the same memory as a sighting.
    assert stored(tg, "Noa sees her therapist, Dr. Levi, every Tuesday", id="tg-msg-9") == memory_id
    wa.used(memory_id)
    settle()

    report = wa.forget(memory_id)

    assert report.forgotten == [memory_id]
    assert hub.services.store.get([memory_id]) == []
    with pytest.raises(MemhubError) as gone:
        wa.memory(memory_id)
    assert gone.value.status_code == 404 and "forgotten at the owner's request" in str(gone.value.detail)
    assert not [h for h in tg.search("who is Noa's therapist?") if "Levi" in h.text]
    assert hub.services.redis.hget(hub.services.keys.promotion_uses, memory_id) is None

    # Both events delivered again once their statuses expired (a client retrying late): refused, and
    # nothing of their words is kept to replay.
    for agent, event_id in ((wa, "wa-msg-1"), (tg, "tg-msg-9")):
        hub.services.redis.delete(hub.services.keys.status(event_id))
        agent.publish(text, id=event_id)
    settle()
    for agent, event_id in ((wa, "wa-msg-1"), (tg, "tg-msg-9")):
        status = agent.status(event_id)
        assert status.status == "rejected" and f"memory {memory_id} was forgotten" in (status.error or "")
    assert hub.services.store.get([memory_id]) == []
    assert "Levi" not in json.dumps(
        [d.model_dump() for d in list_dead_letters(hub.services.redis, hub.services.keys)]
    )

    # Said again in a new message, it is a new memory: the owner told it anew.
    assert stored(wa, text) != memory_id


def test_forgetting_one_side_of_a_conflict_settles_it_and_leaves_none_of_its_words(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    tg, allergic, not_allergic, conflict = allergy_conflict(make_agent)
    wa = make_agent("wa-assistant", "whatsapp")
    assert tg.conflict(conflict).status == "open" and tg.questions()  # high severity: the owner is asked

    report = tg.forget(allergic)

    assert (report.conflicts, report.settled) == ([conflict], [conflict])
    after = tg.conflict(conflict)
    assert after.status == "auto_resolved" and after.resolution and after.resolution.keep == not_allergic
    assert after.statements == [FORGOTTEN, "Netanel has no food allergies"]
    assert after.sources == [None, "tg:msg:7"]
    assert "peanut" not in after.model_dump_json()
    assert tg.questions() == [] and wa.questions() == []
    kept = tg.memory(not_allergic)
    assert kept.state == "active" and "peanut" not in kept.model_dump_json()


def test_forgetting_finds_a_decided_conflict_too_in_a_ledger_from_before_the_per_memory_sets(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub]
) -> None:
    # Each memory's conflicts are read from a set of its own; an older ledger has none until then.
    tg, allergic, not_allergic, conflict = allergy_conflict(make_agent)
    tg.resolve_conflict(conflict, keep=not_allergic)
    redis, keys = hub.services.redis, hub.services.keys
    redis.delete(*redis.keys(keys.memory_conflicts("*")), keys.memory_conflicts_built)

    report = tg.forget(not_allergic)

    assert (report.conflicts, report.settled) == ([conflict], [])
    after = tg.conflict(conflict)
    assert after.status == "resolved" and after.statements == ["Netanel is allergic to peanuts", FORGOTTEN]
    assert "no food allergies" not in after.model_dump_json()
    assert redis.smembers(keys.memory_conflicts(allergic)) == {conflict.encode()}


def test_forgetting_a_correction_leaves_what_it_corrected_superseded_without_its_words(
    make_agent: Callable[..., Memhub],
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    monday = stored(wa, "Netanel's dentist appointment is on Monday")
    correction = stored(
        tg, "Netanel's dentist appointment is on Thursday", kind="correction", related=[monday]
    )
    corrected = wa.memory(monday)
    assert corrected.superseded_by == correction and "Thursday" in corrected.model_dump_json()

    report = wa.forget(correction)

    assert report.forgotten == [correction] and report.noted == [monday]
    after = wa.memory(monday)
    assert (after.state, after.superseded_by) == ("superseded", correction)
    assert "Thursday" not in after.model_dump_json()
    assert after.history[-1].action == "successor_forgotten"
    # Forgetting the correction does not bring back what it corrected.
    assert not [h for h in wa.search("when is Netanel's dentist appointment?") if "dentist" in h.text]


def test_forgetting_a_merged_memory_forgets_the_copies_merged_into_it(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    store, now = hub.services.store, utcnow()
    # Backdated, a restatement finds no older memory to fold into at write time: compaction merges it.
    earlier = (utcnow() - timedelta(days=2)).isoformat()
    tea = stored(tg, "Dana likes green tea")
    tea_copy = stored(wa, "Dana really enjoys green tea", id="wa-tea", occurred_at=earlier)
    coffee = stored(tg, "Omer drinks his coffee black")
    coffee_copy = stored(wa, "Omer takes coffee black", occurred_at=earlier)
    assert len({tea, tea_copy, coffee, coffee_copy}) == 4
    for canonical, copy in ((tea, tea_copy), (coffee, coffee_copy)):
        plan = MergePlan(canonical=canonical, merged=[copy], texts=[])
        assert merge(store, plan, now=now, stale_before=now - timedelta(days=30)) == []

    # The memory that kept the fact: its copy goes with it, and so does the copy's event id.
    assert tg.forget(tea).forgotten == sorted([tea, tea_copy])
    assert store.get([tea, tea_copy]) == []
    hub.services.redis.delete(hub.services.keys.status("wa-tea"))
    assert wa.wait(wa.publish("Dana really enjoys green tea", id="wa-tea")).status == "rejected"

    # A copy alone: the memory that kept the fact stays, without the copy's words in its history.
    report = wa.forget(coffee_copy)
    assert (report.forgotten, report.noted) == ([coffee_copy], [coffee])
    kept = wa.memory(coffee)
    assert kept.state == "active" and "Omer takes coffee black" not in kept.model_dump_json()
    assert FORGOTTEN in (kept.history[-1].note or "")


def test_forgetting_removes_the_memorys_promotion_proposal(
    make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    wa.summarize_session(session="trip", promote=["Netanel's frequent flyer programme is TAP Miles&Go"])
    settle()
    [proposal] = wa.promotions()

    report = wa.forget(proposal.memory_id)

    assert report.proposals == [proposal.id]
    assert wa.promotions(status=None) == []


def test_a_memory_already_forgotten_or_never_stored_is_a_404_naming_why(
    make_agent: Callable[..., Memhub],
) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    memory_id = stored(wa, "The spare car keys are in the blue bowl by the door")
    wa.forget(memory_id, by="owner")
    with pytest.raises(MemhubError) as again:
        wa.forget(memory_id)
    assert again.value.status_code == 404
    assert str(again.value.detail).startswith(
        f"memory {memory_id} was forgotten at the owner's request (owner, "
    )
    with pytest.raises(MemhubError) as unknown:
        wa.forget("no-such-memory")
    assert unknown.value.status_code == 404 and "no memory with id" in str(unknown.value.detail)


def test_forgetting_deletes_the_compaction_reports_that_quote_it(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    tea = stored(tg, "Dana likes green tea")
    tea_copy = stored(
        wa, "Dana really enjoys green tea", occurred_at=(utcnow() - timedelta(days=2)).isoformat()
    )
    unrelated = enqueue_compaction(hub.services.queue, CompactionRequest(agent="nobody-else"))
    job = enqueue_compaction(hub.services.queue, CompactionRequest(agent="wa-assistant"))
    settle()
    report = read_job(hub.services.redis, job.id)
    assert report and report.result and [m.merged for m in report.result.merge] == [[tea]]

    assert wa.forget(tea_copy).reports == [job.id]
    assert read_job(hub.services.redis, job.id) is None
    assert read_job(hub.services.redis, unrelated.id) is not None
