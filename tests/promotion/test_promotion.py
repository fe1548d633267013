"""Promotion through the real pipeline: agents state things over days, the hub proposes or promotes."""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from starlette.testclient import TestClient

from hub.embedded import EmbeddedHub
from hub.locks import claimed
from hub.models import Tier, utcnow
from hub.promotion import proposals
from hub.promotion.context import ContextLoader
from hub.promotion.score import Assessment, Decision
from memhub_client import Memhub
from tests.api.test_conflicts import allergy_question, recorded
from tests.helpers import at_once, expire

# The ledger and its policy, on the verdicts the rule grammar gives these statements.
pytestmark = pytest.mark.usefixtures("rule_judge")

PREFERENCE = "Netanel prefers aisle seats on flights"
ONE_OFF = "Netanel likes his coffee black"


def days_ago(days: int) -> datetime:
    return (datetime.now(UTC) - timedelta(days=days)).replace(microsecond=0)


def stored(agent: Memhub, text: str, **fields: object) -> str:
    """Publish and wait until stored; the memory id it was stored under (or folded into)."""
    status = agent.wait(agent.publish(text, **fields))
    assert status.status == "stored", status
    assert status.memory_id
    return status.memory_id


def state_a_preference_on_three_days(make_agent: Callable[..., Memhub]) -> tuple[str, str]:
    """wa and tg each hear the same preference, on three different days; one other preference, once."""
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    ids = [
        stored(wa, PREFERENCE, kind="preference", occurred_at=days_ago(6).isoformat(), session="wa-1"),
        stored(tg, PREFERENCE, kind="preference", occurred_at=days_ago(4).isoformat(), session="tg-1"),
        stored(wa, PREFERENCE, kind="preference", occurred_at=days_ago(2).isoformat(), session="wa-2"),
    ]
    assert len(set(ids)) == 1  # one memory, reinforced twice
    one_off = stored(wa, ONE_OFF, kind="preference", occurred_at=days_ago(2).isoformat(), session="wa-2")
    return ids[0], one_off


def test_a_preference_restated_over_days_is_proposed_and_approved_into_semantic(
    api: TestClient, make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    preference, one_off = state_a_preference_on_three_days(make_agent)
    settle()
    owner = make_agent("owner-console")

    [proposal] = owner.promotions()
    assert (proposal.memory_id, proposal.from_tier, proposal.to_tier) == (preference, "episodic", "semantic")
    assert proposal.memory is not None and proposal.memory.text == PREFERENCE
    assert len(proposal.memory.sightings) == 3
    signals = {s.name.value: s for s in proposal.signals}
    assert set(signals) == {"repeated", "reinforced_elsewhere", "frequent", "future_use"}
    assert signals["repeated"].detail.startswith("stated on 3 different days")
    assert (
        signals["reinforced_elsewhere"].detail
        == "stated by tg-assistant, wa-assistant and on telegram, whatsapp"
    )
    assert proposal.score == sum(s.weight for s in proposal.signals) == proposal.memory.promotion_score
    assert proposal.reason == "3 strong signals"

    # Scoring again (an agent used the memory) refreshes the same proposal rather than adding one.
    assert owner.used(preference).used_count == 1
    settle()
    [again] = owner.promotions()
    assert again.id == proposal.id and "used" in {s.name.value for s in again.signals}

    approved = owner.approve(proposal.id, note="yes, always aisle")
    assert approved.status == "approved" and approved.decided_by == "owner"
    memory = owner.memory(preference)
    assert memory.tier == "semantic"
    promoted = memory.history[-1]
    assert (promoted.action, promoted.by, promoted.changes) == (
        "promoted",
        "owner",
        {"tier": ["episodic", "semantic"]},
    )
    assert "repeated (stated on 3 different days" in (promoted.note or "")
    assert owner.promotions() == []
    assert api.post(f"/v1/promotions/{proposal.id}/approve").status_code == 409
    assert api.post("/v1/promotions/p-missing/reject").status_code == 404

    # The one-off preference is never proposed: it waits on the weekly review, with its signal.
    assert one_off not in {p.memory_id for p in owner.promotions(status=None)}
    [review] = owner.weekly_review().items
    assert review.memory.id == one_off
    assert [s.name.value for s in review.assessment.signals] == ["future_use"]
    assert review.assessment.reason == "supporting signals only"


@pytest.mark.parametrize("hub_settings", [{"auto_promote": True}])
def test_with_auto_promote_the_same_preference_is_promoted_without_a_proposal(
    make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    preference, one_off = state_a_preference_on_three_days(make_agent)
    settle()
    owner = make_agent("owner-console")

    assert owner.promotions(status=None) == []
    memory = owner.memory(preference)
    assert memory.tier == "semantic"
    promoted = memory.history[-1]
    assert (promoted.action, promoted.by, promoted.changes) == (
        "promoted",
        "hub",
        {"tier": ["episodic", "semantic"]},
    )
    assert promoted.note and promoted.note.startswith("3 strong signals; signals: repeated")
    assert owner.memory(one_off).tier == "episodic"


def test_a_correction_of_a_long_term_memory_supersedes_it_at_once_and_carries_the_evidence(
    make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    old = stored(wa, "Netanel's weekly team meeting is on Monday", tier="semantic", source="MEMORY.md:12")
    evidence = "Netanel on WhatsApp: the team meeting moved to Wednesdays"
    new = stored(
        wa,
        "Netanel's weekly team meeting is on Wednesday",
        kind="correction",
        evidence=[evidence],
        source="wa:msg:88",
    )

    # Superseded as the correction is stored, before any other job runs.
    superseded = wa.memory(old)
    assert (superseded.state, superseded.superseded_by) == ("superseded", new)
    assert superseded.history[-1].action == "superseded"

    settle()
    correction = wa.memory(new)
    assert correction.tier == "semantic"  # takes the long-term place of what it corrected, without a proposal
    assert correction.evidence[0] == evidence
    assert correction.evidence[1].startswith(
        "corrects «Netanel's weekly team meeting is on Monday» (wa-assistant, "
    )
    assert correction.evidence[1].endswith(f"memory {old})")
    promoted = correction.history[-1]
    assert (promoted.action, promoted.changes) == ("promoted", {"tier": ["episodic", "semantic"]})
    assert promoted.note and promoted.note.startswith("corrects a semantic memory and takes its place")
    assert wa.promotions(status=None) == []
    assert [h.id for h in wa.search("when is the team meeting?", limit=20)] == [new]


def test_a_deduction_borne_out_in_a_second_session_becomes_long_term(
    make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    text = "Netanel tends to move his Monday meetings to later in the week"
    first = stored(
        wa,
        text,
        kind="deduced",
        evidence=["moved 3 of 4 Monday meetings in November"],
        session="wa-7",
        occurred_at=days_ago(3).isoformat(),
    )
    settle()
    assert wa.memory(first).tier == "episodic"
    again = stored(
        tg,
        text,
        kind="deduced",
        evidence=["asked to move this Monday's sync"],
        session="tg-3",
        occurred_at=days_ago(1).isoformat(),
    )
    settle()
    assert again == first
    memory = wa.memory(first)
    assert memory.tier == "semantic"
    assert memory.history[-1].note and memory.history[-1].note.startswith(
        "a deduction borne out in 2 sessions"
    )


def test_approve_and_reject_at_once_one_decision_stands_and_the_other_is_refused(
    hub: EmbeddedHub, api: TestClient, make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    services = hub.services

    def proposed(text: str) -> proposals.Proposal:
        memory_id = stored(wa, text)
        settle()
        [memory] = services.store.get([memory_id])
        assessment = Assessment(
            memory_id=memory_id,
            tier=memory.tier,
            score=5.0,
            signals=[],
            decision=Decision.propose,
            target=Tier.semantic,
            reason="3 strong signals",
            at=utcnow(),
        )
        return proposals.propose(services.redis, services.keys, memory, assessment)

    def decide(proposal_id: str, action: str) -> Callable[[], int]:
        return lambda: api.post(f"/v1/promotions/{proposal_id}/{action}", json={"by": "owner"}).status_code

    # While one device's decision is being made, another's is refused, and changes nothing.
    held = proposed("Netanel's gym locker is number 12")
    with claimed(services.redis, services.keys.proposal_claim(held.id), by="owner-phone") as mine:
        assert mine
        assert api.post(f"/v1/promotions/{held.id}/approve", json={"by": "owner"}).status_code == 409
        assert wa.memory(held.memory_id).tier == "episodic"
    assert api.post(f"/v1/promotions/{held.id}/reject", json={"by": "owner"}).status_code == 200

    # The owner taps approve on one device and reject on another at the same moment.
    for n in range(8):
        proposal = proposed(f"Netanel's bike is parked in rack {100 + n}")
        approve, reject = at_once(decide(proposal.id, "approve"), decide(proposal.id, "reject"))
        codes = {"approve": approve, "reject": reject}
        assert sorted(codes.values()) == [200, 409], codes
        [winner] = [action for action, code in codes.items() if code == 200]
        final = proposals.get(services.redis, services.keys, proposal.id)
        assert final is not None and final.status == {"approve": "approved", "reject": "rejected"}[winner]
        promoted = [c for c in wa.memory(proposal.memory_id).history if c.action == "promoted"]
        assert len(promoted) == (winner == "approve")


def test_a_proposal_whose_memory_lost_a_conflict_is_no_longer_pending(
    make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    # A conflict settled for the newer side superseded the memory and left its proposal pending: the
    # owner was asked to approve what approving refuses (409, "memory ... is superseded").
    preference, _ = state_a_preference_on_three_days(make_agent)
    settle()
    owner = make_agent("owner-console")
    [proposal] = owner.promotions()
    stored(owner, "Netanel prefers window seats on flights", kind="preference", session="wa-3")
    settle()
    assert owner.memory(preference).state == "superseded"
    assert owner.promotions() == []
    [withdrawn] = owner.promotions(status="withdrawn")
    winner = owner.memory(preference).superseded_by
    assert (withdrawn.id, withdrawn.note) == (proposal.id, f"the memory is superseded by {winner}")


def test_a_proposal_whose_temporary_memory_expired_is_withdrawn_and_approving_it_is_refused(
    hub: EmbeddedHub, api: TestClient, make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    # The expired memory stayed pending on the list, searched by no one, and approving it answered
    # 200 and moved it to semantic, to be purged from there by the next compaction.
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    until = (datetime.now(UTC) + timedelta(days=2)).replace(microsecond=0).isoformat()
    text = "Netanel is in Berlin for the conference until Wednesday"
    said = [(wa, 5, "wa-1"), (tg, 3, "tg-1"), (wa, 1, "wa-2")]
    ids = {
        stored(
            agent,
            text,
            scope="temporary",
            expires_at=until,
            occurred_at=days_ago(d).isoformat(),
            session=session,
        )
        for agent, d, session in said
    }
    settle()
    [memory_id] = ids
    [proposal] = wa.promotions()
    assert (proposal.memory_id, proposal.to_tier) == (memory_id, "semantic")
    expire(hub.services.store, memory_id)

    assert wa.promotions() == []
    [withdrawn] = wa.promotions(status="withdrawn")
    assert withdrawn.id == proposal.id and (withdrawn.note or "").startswith("the memory expired at ")
    refused = api.post(f"/v1/promotions/{proposal.id}/approve")
    assert refused.status_code == 409 and "expired" in refused.json()["detail"]
    [memory] = hub.services.store.get([memory_id])  # an expired memory is not found through the API
    assert memory.tier == "episodic"


def test_the_owner_keeping_a_memory_in_a_conflict_is_a_signal_for_it(
    api: TestClient, hub: EmbeddedHub, make_agent: Callable[..., Memhub]
) -> None:
    # The loader read the whole ledger for each batch; it now reads the conflicts recorded since the
    # batch's oldest memory, which must still hold the owner's decision about it.
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    recorded(hub, 50)  # decided long before: nothing to do with these memories
    allergic, _, conflict = allergy_question(api, wa, tg)
    assert api.post(f"/v1/conflicts/{conflict['id']}/resolve", json={"keep": allergic}).status_code == 200

    s = hub.services
    [memory] = s.store.get([allergic])
    context = ContextLoader(store=s.store, redis=s.redis, keys=s.keys, settings=s.settings).load([memory])
    assert context[allergic].kept_by_owner == (conflict["id"],)
