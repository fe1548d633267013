"""Must-show 1: an agent given 3,000 words of core memories gets a core block within budget after
compaction, and every demoted memory is still found by search, in archival."""

from __future__ import annotations

import io
import itertools
from collections.abc import Callable
from functools import partial

import pytest
from starlette.testclient import TestClient

from hub.compaction.commands import follow_compaction, summary
from hub.compaction.core_block import pointer
from hub.embedded import EmbeddedHub
from hub.redis_publisher import build_event
from memhub_client import Memhub

# The ledger and its policy, on the verdicts the rule grammar gives these statements.
pytestmark = pytest.mark.usefixtures("rule_judge")

AGENT = "wa-assistant"
# Names whose first three letters differ: the judge reads names sharing a longer stem as one person.
STARTS = ["".join(p) for p in itertools.product("bdfgklmnprstvz", "aeiou", "bdgklmnrstv")]
ENDINGS = ["ira", "ona", "elo", "ani", "uri"]
TOWNS = ["Haifa", "Eilat", "Akko", "Modiin", "Rehovot", "Ashdod", "Netanya"]
TOPICS = ["insurance", "payroll", "catering", "printing", "cleaning", "parking", "security", "travel"]
DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday"]


def contact_facts(count: int) -> list[str]:
    """`count` facts of about 20 words, each about a different contact, so none restates another."""
    names = (f"{start.capitalize()}{ENDINGS[i % len(ENDINGS)]}" for i, start in enumerate(STARTS[::4]))
    return [
        f"{name} from the {TOWNS[i % len(TOWNS)]} office handles the {TOPICS[i % len(TOPICS)]} account "
        f"and prefers a short call on {DAYS[i % len(DAYS)]} mornings before planning."
        for i, name in zip(range(count), names, strict=False)
    ]


def test_3000_words_of_core_fit_the_budget_after_compaction_and_search_finds_the_demoted(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa = make_agent(AGENT, "whatsapp")
    texts = contact_facts(160)
    assert 3_000 <= sum(len(t.split()) for t in texts) <= 3_300
    event_ids = wa.publish_many(build_event(t, agent=AGENT, channel="whatsapp", tier="core") for t in texts)
    settle()
    statuses = wa.statuses(event_ids)
    assert len({s.memory_id for s in statuses if s and s.status == "stored"}) == 160

    # Over budget, the block still keeps to it: the most important memories, and a pointer to the rest.
    before = wa.load_core()
    assert before.budget.words == 1_000 and before.budget.lines == 175
    assert before.words <= 1_000 and before.lines <= 175
    assert before.words == len(before.markdown.split()) and before.lines == len(before.markdown.splitlines())
    assert len(before.memory_ids) + len(before.left_out) == 160 and before.left_out
    assert before.markdown.splitlines()[-1] == pointer(len(before.left_out))
    for section in ("## Identity", "## User", "## Active Context", "## Quick Reference"):
        assert section in before.markdown

    settle()  # loading an over-budget core queued its compaction

    after = wa.load_core()
    assert after.words <= 1_000 and after.lines <= 175
    assert after.left_out == [] and after.archived == len(before.left_out)
    assert after.memory_ids == before.memory_ids  # the same cut: what did not fit is what moved
    assert after.markdown.splitlines()[-1] == pointer(after.archived)
    assert after.markdown == wa.load_core().markdown  # deterministic

    for memory_id in before.left_out:
        memory = wa.memory(memory_id)
        assert memory.tier == "archival"
        demoted = memory.history[-1]
        assert (demoted.action, demoted.changes) == ("demoted", {"tier": ["core", "archival"]})
        hits = wa.search(memory.text, limit=5)
        assert memory_id in [h.id for h in hits], memory.text
        assert next(h for h in hits if h.id == memory_id).tier == "archival"

    # By hand, nothing is left to do: a dry run plans no demotion.
    out = io.StringIO()
    job = follow_compaction(wa, dry_run=True, out=out, poll=0.05)
    assert job.status == "finished" and job.result is not None
    assert job.result.dry_run and job.result.demote == [] and job.result.core_after.words <= 1_000
    assert "finding near-duplicates" in out.getvalue()
    assert "would purge 0 expired" in summary(job)


def test_a_session_in_a_group_chat_loads_no_memory_private_to_direct_conversations(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa = make_agent(AGENT, "whatsapp")
    core = partial(build_event, agent=AGENT, channel="whatsapp", tier="core")
    wa.publish_many(
        [
            core("Dana's divorce lawyer is Ronit Levi in Ramat Gan", private=True),
            core("Dana's daughter Noa is seven and swims on Thursdays"),
            core("Dana's custody hearing was moved to March", private=True, tier="archival"),
        ]
    )
    settle()
    direct, group = wa.load_core(), wa.load_core(chat_type="group")
    assert "Ronit Levi" in direct.markdown and "Noa is seven" in direct.markdown
    # Searches from a group leave private memories out; the block the agent carries there did not.
    assert "Ronit Levi" not in group.markdown and "Noa is seven" in group.markdown
    assert len(group.memory_ids) == 1 and group.left_out == []
    assert (direct.archived, group.archived) == (1, 0)  # nor is a private archived memory counted


def test_a_core_memory_another_agent_contradicts_is_marked_disputed_until_the_owner_decides(
    api: TestClient, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa, tg = make_agent(AGENT, "whatsapp"), make_agent("tg-assistant", "telegram")
    works_late = wa.wait(wa.publish("Netanel works until 20:00", tier="core")).memory_id
    assert works_late is not None and "(disputed" not in wa.load_core().markdown
    tg.wait(tg.publish("Netanel finishes work at 18:00"))
    settle()
    [conflict] = tg.conflicts(status="open")

    block = wa.load_core()
    assert f"- Netanel works until 20:00 (disputed: open conflict {conflict.id})\n" in block.markdown
    assert block.conflicts == {works_late: [conflict.id]}

    # The owner decides both stand (different days, say): the mark goes.
    assert api.post(f"/v1/conflicts/{conflict.id}/resolve", json={"keep": "both"}).status_code == 200
    block = wa.load_core()
    assert "- Netanel works until 20:00\n" in block.markdown and block.conflicts == {}


# Heading and sections (14 words), three contact facts and "- Netanel works until 20:00" (5), each a bullet.
FITS = 14 + sum(len(t.split()) + 1 for t in contact_facts(3)) + 5


@pytest.mark.parametrize("hub_settings", [{"core_budgets": {AGENT: {"words": FITS, "lines": 175}}}])
def test_the_compaction_a_disputed_mark_queues_makes_the_same_cut_as_the_block(
    make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    # A core that fits its budget to the word, until a conflict marks one of its lines: the block then
    # leaves a memory out, and the compaction it queues must demote that one, or every later load
    # would find the core over budget and queue another compaction that changes nothing.
    wa, tg = make_agent(AGENT, "whatsapp"), make_agent("tg-assistant", "telegram")
    wa.publish_many(build_event(t, agent=AGENT, channel="whatsapp", tier="core") for t in contact_facts(3))
    settle()
    wa.wait(wa.publish("Netanel works until 20:00", tier="core"))  # the newest: the most important
    settle()
    fits = wa.load_core()
    assert (fits.words, fits.left_out) == (FITS, [])  # to the word

    tg.wait(tg.publish("Netanel finishes work at 18:00"))
    settle()
    over = wa.load_core()
    assert over.conflicts and len(over.left_out) == 1 and over.words <= fits.words
    settle()  # the compaction that load queued

    after = wa.load_core()
    assert after.left_out == [] and after.archived == 1 and after.words <= fits.words
    assert after.memory_ids == over.memory_ids and after.conflicts == over.conflicts
    assert wa.memory(over.left_out[0]).tier == "archival"
