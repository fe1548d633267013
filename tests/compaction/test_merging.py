"""Must-show 2: near-duplicates from two agents become one memory; conflicting look-alikes stay two.

The write-time review folds a restatement into an *older* memory it can see. A restatement
backfilled with an earlier date than the memory it restates (an import, a late sync) finds no
older memory then, so both are stored: compaction finds them later.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from hub.compaction.jobs import CompactionRequest, enqueue_compaction
from hub.conflicts.ledger import open_conflicts_of
from hub.embedded import EmbeddedHub
from hub.models import utcnow
from memhub_client import Memhub
from tests.compaction.helpers import days_ago, everything, stored


def compact(hub: EmbeddedHub, settle: Callable[..., None], agent: str, *, dry_run: bool = False) -> dict:  # type: ignore[type-arg]
    job = enqueue_compaction(hub.services.queue, CompactionRequest(agent=agent, dry_run=dry_run))
    settle()
    result: dict = job.return_value(refresh=True)  # type: ignore[type-arg]
    return result


def test_near_duplicates_from_two_agents_become_one_and_conflicting_look_alikes_stay_two(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    tea_wa = stored(wa, "Dana likes green tea", source="wa:1")
    tea_tg = stored(tg, "Dana really enjoys green tea", occurred_at=days_ago(2), source="tg:1")
    late = stored(wa, "Netanel works until 20:00")
    early = stored(tg, "Netanel works until 18:00", occurred_at=days_ago(2))
    settle()
    assert len({tea_wa, tea_tg, late, early}) == 4  # the write-time review could not see these pairs

    report = compact(hub, settle, "wa-assistant")

    # The older statement is canonical; the copy's sighting, its id and a history entry go to it.
    [merge] = report["merge"]
    assert (merge["canonical"], merge["merged"]) == (tea_tg, [tea_wa])
    canonical, copy = wa.memory(tea_tg), wa.memory(tea_wa)
    assert [s.agent for s in canonical.sightings] == ["tg-assistant", "wa-assistant"]
    assert canonical.related == [tea_wa]
    assert canonical.history[-1].action == "merged" and tea_wa in (canonical.history[-1].note or "")
    assert (copy.state, copy.superseded_by, copy.history[-1].action) == ("superseded", tea_tg, "merged")
    hits = wa.search("what tea does Dana like?", limit=10)
    assert [h.id for h in hits if "tea" in h.text] == [tea_tg]  # one memory
    # The day wa said it shows it once: as the memory that kept it, said again, not the struck-out copy.
    said = copy.sightings[0].at.date().isoformat()
    today = wa.daily(said)
    assert tea_tg in today.memory_ids and tea_wa not in today.memory_ids
    assert "Dana likes green tea" not in today.markdown and "said again" in today.markdown

    # "works until 20:00" and "works until 18:00" are closer than the paraphrases: the judge keeps them two.
    texts = [
        "Netanel works until 20:00",
        "Netanel works until 18:00",
        "Dana likes green tea",
        "Dana really enjoys green tea",
    ]
    v = hub.services.embedder.encode(texts)
    threshold = hub.services.settings.compaction_merge_similarity
    assert float(v[0] @ v[1]) > float(v[2] @ v[3]) >= threshold
    assert {m.state for m in (wa.memory(late), wa.memory(early))} == {"active"}
    assert all(late not in m["merged"] + [m["canonical"]] for m in report["merge"])

    # Compacting the other agent finds nothing more to merge.
    assert compact(hub, settle, "tg-assistant")["merge"] == []
    assert len([m for m in everything(hub.services.store).values() if m.state == "active"]) == 3


def test_a_public_memory_is_not_merged_into_a_private_near_duplicate(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    public = stored(wa, "The plumber Moshe comes on Sunday at 10:00")
    # Said in a direct chat and backfilled: older, so it would be the canonical memory of the pair.
    private = stored(wa, "The plumber Moshe comes on Sunday at 10:00.", private=True, occurred_at=days_ago(1))
    settle()
    assert public != private

    assert compact(hub, settle, "wa-assistant")["merge"] == []
    assert {wa.memory(public).state, wa.memory(private).state} == {"active"}
    # Group chats never see private memories: the public one is what they find.
    hits = wa.search("when does the plumber come?", chat_type="group", limit=5)
    assert [h.id for h in hits if "plumber" in h.text] == [public]


def test_a_near_duplicate_in_an_open_conflict_is_not_merged_until_the_owner_decides(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    piano_wa = stored(wa, "Dana's piano lesson is on Wednesdays at 16:00", source="wa:1")
    piano_tg = stored(
        tg, "Dana's piano lesson is at 16:00 on Wednesdays", occurred_at=days_ago(2), source="tg:1"
    )
    stored(tg, "Dana's piano lesson is on Wednesdays at 17:30")
    settle()
    ledger = hub.services.redis, hub.services.keys
    contested = open_conflicts_of(*ledger, [piano_wa])[piano_wa]
    assert contested, "17:30 against 16:00: an open conflict with the WhatsApp memory"

    report = compact(hub, settle, "wa-assistant")

    # Merged away, the copy would leave the conflict about a memory that no longer stands.
    assert piano_wa in report["skipped"]
    assert wa.memory(piano_wa).state == "active" and wa.memory(piano_tg).state == "active"
    assert open_conflicts_of(*ledger, [piano_wa])[piano_wa] == contested


def test_a_stale_memory_that_a_fresh_near_duplicate_is_folded_into_is_active_again(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    # The canonical memory took the copy's sightings and its last_verified (today) and stayed stale:
    # search called a fact stated today stale.
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    core = stored(tg, "Dana really enjoys green tea", tier="core", occurred_at=days_ago(100))
    settle()
    hub.services.store.update(core, {"last_verified": utcnow() - timedelta(days=120)})
    assert compact(hub, settle, "tg-assistant")["mark_stale"] == [core]
    # An old daily log imported today: backfilled, so the write-time review does not fold it.
    copy = stored(
        wa, "Dana likes green tea", occurred_at=days_ago(300), source="memory/daily/2026-02-03.md:4"
    )
    settle()
    assert copy != core

    [merge] = compact(hub, settle, "wa-assistant")["merge"]
    assert (merge["canonical"], merge["merged"]) == (core, [copy])
    canonical = wa.memory(core)
    assert (canonical.state, canonical.tier) == ("active", "core")
    change = canonical.history[-1]
    assert (change.action, change.changes["state"]) == ("merged", ["stale", "active"])
    [hit] = [h for h in wa.search("what tea does Dana like?", limit=5) if "tea" in h.text]
    assert (hit.id, hit.stale) == (core, False)


def test_the_same_instruction_from_two_agents_becomes_one_memory(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    # The judge reads no subject in an instruction and calls two of them, word for word the same,
    # different subjects: compaction left both copies, each on the weekly review and in every search.
    # The copy is backfilled with an earlier date, so the write-time review finds nothing older to fold
    # it into (it folds such a restatement said later).
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    again = stored(wa, "always book the 7am train on Mondays.", kind="decision", occurred_at=days_ago(1))
    first = stored(tg, "Always book the 7am train on Mondays", kind="decision", occurred_at=days_ago(5))
    # Same words, but structured claims about two people: not the same statement.
    dana = stored(wa, "Birthday is on 14 July", subject="Dana", attribute="birthday", value="14 July")
    noa = stored(tg, "Birthday is on 14 July", subject="Noa", attribute="birthday", value="14 July")
    settle()
    assert len({first, again, dana, noa}) == 4

    [merge] = compact(hub, settle, "tg-assistant")["merge"]
    assert (merge["canonical"], merge["merged"]) == (first, [again])
    assert wa.memory(again).superseded_by == first
    assert [s.agent for s in wa.memory(first).sightings] == ["tg-assistant", "wa-assistant"]
    assert {wa.memory(dana).state, wa.memory(noa).state} == {"active"}
