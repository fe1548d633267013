"""The scoring job: re-score memories that were written, reinforced, corrected or used."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from hub.promotion.promoter import Promoter
from workers.context import JobContext

MemoryIds = TypeAdapter(list[str])


def score_memories(ctx: JobContext, memory_ids: list[str]) -> dict[str, Any]:
    """RQ job: assess each memory, store its promotion_score, and promote, propose or list it for review."""
    ids = MemoryIds.validate_python(memory_ids)
    assessments = Promoter.of(ctx.services).score(ids)
    decisions: dict[str, int] = {}
    for assessment in assessments:
        decisions[assessment.decision.value] = decisions.get(assessment.decision.value, 0) + 1
    return {"scored": len(assessments), "decisions": decisions}
