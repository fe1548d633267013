"""The core block's rendering: hard budget, importance order, sections, determinism (no hub needed)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from hub.compaction.core_block import importance, pointer, render_core, section_of
from hub.models import Confidence, Kind, Memory, Scope, Tier
from hub.settings import CoreBudget, Settings

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def memory(n: int, text: str, **fields: object) -> Memory:
    values: dict[str, object] = {
        "id": f"m{n:03d}",
        "event_id": f"e{n}",
        "text": text,
        "agent": "wa",
        "kind": Kind.fact,
        "scope": Scope.global_,
        "occurred_at": NOW,
        "confidence": Confidence.medium,
        "created_at": NOW,
        "last_verified": NOW - timedelta(minutes=n),
        "tier": Tier.core,
    }
    values.update(fields)
    return Memory.model_validate(values)


def test_the_block_never_exceeds_its_budget_and_shows_the_most_important_first() -> None:
    rng = random.Random(7)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    for trial in range(200):
        count = rng.randrange(0, 60)
        memories = [
            memory(i, " ".join(rng.choices(words, k=rng.randrange(1, 40))), promotion_score=rng.random())
            for i in range(count)
        ]
        budget = CoreBudget(words=rng.randrange(50, 600), lines=rng.randrange(10, 60))
        # Some in open conflicts: their marks cost words too.
        disputed = {
            m.id: [f"c-{i}", f"c-{i + 1}"][: rng.randrange(1, 3)]
            for i, m in enumerate(memories)
            if rng.random() < 0.2
        }
        block = render_core("wa", memories, budget=budget, archived=rng.choice([0, 0, 3]), disputed=disputed)
        assert block.words == len(block.markdown.split()) <= budget.words, trial
        assert block.lines == len(block.markdown.splitlines()) <= budget.lines, trial
        ordered = [m.id for m in sorted(memories, key=importance)]
        assert sorted(block.memory_ids + block.left_out, key=ordered.index) == ordered
        assert block.memory_ids == sorted(block.memory_ids, key=ordered.index)  # by importance
        assert block.left_out == sorted(block.left_out, key=ordered.index)
        assert ("See archival" in block.markdown) == bool(block.archived or block.left_out)
        assert block.conflicts == {i: disputed[i] for i in block.memory_ids if i in disputed}


def test_one_memory_too_long_for_the_block_leaves_out_only_itself() -> None:
    # The cut stopped at the first memory that did not fit: a 1,100-word note, the newest, left the
    # block empty and the next compaction demoted every core memory to archival.
    memories = [
        memory(1, "word " * 1_100),
        memory(2, "Netanel works until 20:00"),
        memory(3, "Dana prefers green tea"),
    ]
    block = render_core("wa", memories, budget=CoreBudget(), archived=0)
    assert (block.memory_ids, block.left_out) == (["m002", "m003"], ["m001"])
    assert block.words <= 1_000 and block.markdown.endswith(pointer(1) + "\n")


def test_the_block_is_deterministic_and_sorted_into_sections() -> None:
    memories = [
        memory(1, "I answer in Hebrew, briefly", subject="self", attribute="style"),
        memory(2, "Netanel works until 20:00"),
        memory(3, "Netanel prefers aisle seats", kind=Kind.preference),
        memory(4, "Renew the car insurance before March", kind=Kind.task),
        memory(5, "The Wi-Fi password is on the fridge"),
        memory(6, "Dana's birthday is on 3 May", promotion_score=5.0),
    ]
    block = render_core("wa", memories, budget=CoreBudget(), archived=2)
    assert block.markdown == (
        "# Core memory: wa\n"
        "## Identity\n- I answer in Hebrew, briefly\n"
        "## User\n- Dana's birthday is on 3 May\n- Netanel works until 20:00\n- Netanel prefers aisle seats\n"
        "## Active Context\n- Renew the car insurance before March\n"
        "## Quick Reference\n- The Wi-Fi password is on the fridge\n"
        "- See archival: 2 more memories; search finds them.\n"
    )
    shuffled = random.Random(1).sample(memories, len(memories))
    assert render_core("wa", shuffled, budget=CoreBudget(), archived=2) == block
    project_note = memory(7, "Ship the beta", scope=Scope.project, project="memhub")
    assert section_of(project_note, "wa") == "Active Context"


def test_budgets_are_configurable_per_agent() -> None:
    settings = Settings(core_budget_words=800, core_budgets={"wa": {"words": 300, "lines": 40}})  # type: ignore[call-arg]
    assert settings.core_budget("wa") == CoreBudget(words=300, lines=40)
    assert settings.core_budget("tg") == CoreBudget(words=800, lines=175)


def test_a_memory_in_an_open_conflict_is_marked_disputed_and_the_mark_counts_toward_the_budget() -> None:
    memories = [
        memory(1, "Netanel works until 20:00"),
        memory(2, "Dana prefers green tea"),
        memory(3, "The boiler is serviced every March"),
    ]
    disputed = {"m001": ["c-1a"], "m003": ["c-2b", "c-3c"]}
    block = render_core("wa", memories, budget=CoreBudget(), archived=0, disputed=disputed)
    assert "- Netanel works until 20:00 (disputed: open conflict c-1a)\n" in block.markdown
    assert "- Dana prefers green tea\n" in block.markdown
    assert "- The boiler is serviced every March (disputed: open conflicts c-2b, c-3c)\n" in block.markdown
    assert block.conflicts == disputed

    # Exactly the budget without marks: with one, the least important memory no longer fits.
    plain = render_core("wa", memories, budget=CoreBudget(), archived=2)
    exact = CoreBudget.model_construct(words=plain.words, lines=plain.lines)  # under the settable least
    assert render_core("wa", memories, budget=exact, archived=2).left_out == []
    marked = render_core("wa", memories, budget=exact, archived=2, disputed={"m001": ["c-1a"]})
    assert marked.left_out == ["m003"] and marked.words <= exact.words
