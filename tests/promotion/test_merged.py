"""A compaction's merge gives the kept memory its copies' sightings: it is scored again for promotion."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hub.compaction.jobs import CompactionRequest, enqueue_compaction
from hub.embedded import EmbeddedHub
from memhub_client import Memhub
from tests.compaction.helpers import days_ago, stored


def compact(hub: EmbeddedHub, settle: Callable[..., None], *, dry_run: bool) -> dict[str, Any]:
    job = enqueue_compaction(hub.services.queue, CompactionRequest(agent="wa-assistant", dry_run=dry_run))
    settle()
    result: dict[str, Any] = job.return_value(refresh=True)
    return result


def test_a_preference_merged_from_three_days_and_two_agents_is_proposed(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    # Each statement backfilled before the one published ahead of it: the write-time review, which
    # folds a restatement into an older memory, finds none, so three memories are stored.
    newest = stored(
        wa,
        "Netanel prefers aisle seats on flights",
        kind="preference",
        occurred_at=days_ago(2),
        session="wa-2",
    )
    middle = stored(
        tg,
        "Netanel prefers an aisle seat on flights",
        kind="preference",
        occurred_at=days_ago(4),
        session="tg-1",
    )
    oldest = stored(
        wa, "Netanel likes aisle seats on flights", kind="preference", occurred_at=days_ago(6), session="wa-1"
    )
    settle()
    owner = make_agent("owner-console")
    assert owner.promotions() == []  # one statement each: nothing to propose yet
    alone = owner.memory(oldest).promotion_score

    # A dry run merges nothing, so there is nothing to score again.
    [planned] = compact(hub, settle, dry_run=True)["merge"]
    assert (planned["canonical"], sorted(planned["merged"])) == (oldest, sorted([newest, middle]))
    assert owner.promotions() == [] and owner.memory(oldest).promotion_score == alone

    [merge] = compact(hub, settle, dry_run=False)["merge"]
    assert merge == planned

    # Scored after the merge, the kept memory is said on three days by two agents: proposed. Without
    # it the memory kept the score of its one statement until used: the reviews score only the day's.
    [proposal] = owner.promotions()
    assert (proposal.memory_id, proposal.from_tier, proposal.to_tier) == (oldest, "episodic", "semantic")
    assert proposal.reason == "3 strong signals"
    assert proposal.memory is not None and len(proposal.memory.sightings) == 3
    assert proposal.memory.promotion_score == proposal.score > alone
