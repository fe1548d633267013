"""The weekly review list: memories with some signals, short of a proposal, for the owner to glance at.

Each entry keeps the memory's latest assessment; the list is ordered by the memory's latest statement,
so `since` picks the week to review.
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from pydantic import BaseModel, Field
from redis import Redis

from hub.keys import Keys
from hub.models import Memory
from hub.promotion.score import Assessment


class ReviewItem(BaseModel):
    memory: Memory
    assessment: Assessment = Field(description="The latest scoring: signals, score, why it is not proposed.")


class WeeklyReview(BaseModel):
    since: datetime
    items: list[ReviewItem] = Field(description="Most recently stated first.")


def add(redis: Redis, keys: Keys, assessment: Assessment, *, last_stated: datetime) -> None:
    pipe = redis.pipeline(transaction=True)
    pipe.zadd(keys.weekly_review, {assessment.memory_id: last_stated.timestamp()})
    pipe.hset(keys.weekly_assessments, assessment.memory_id, assessment.model_dump_json())
    pipe.execute()


def remove(redis: Redis, keys: Keys, memory_id: str) -> None:
    pipe = redis.pipeline(transaction=True)
    pipe.zrem(keys.weekly_review, memory_id)
    pipe.hdel(keys.weekly_assessments, memory_id)
    pipe.execute()


def since(redis: Redis, keys: Keys, moment: datetime) -> list[Assessment]:
    """Entries whose memory was last stated at or after `moment`, most recent first."""
    found = cast(list[bytes], redis.zrevrangebyscore(keys.weekly_review, "+inf", moment.timestamp()))
    ids = [i.decode() for i in found]
    raws = redis.hmget(keys.weekly_assessments, ids) if ids else []
    return [Assessment.model_validate_json(r) for r in raws if r]
