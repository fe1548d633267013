"""Promotion: proposals for the owner and the weekly review list (agents report a memory used in `memories`)."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, status
from pydantic import BaseModel, ConfigDict, Field

from hub.api.deps import CallerDep, ServicesDep
from hub.api.schemas import DecisionText, ErrorBody
from hub.auth.principal import Principal
from hub.models import utcnow
from hub.promotion import proposals, weekly
from hub.promotion.promoter import Promoter, ProposalClosed, ProposalNotFound
from hub.promotion.proposals import ProposalStatus, ProposalView
from hub.promotion.weekly import ReviewItem, WeeklyReview

router = APIRouter(tags=["promotions"])


def get_promoter(services: ServicesDep) -> Promoter:
    return Promoter.of(services)


PromoterDep = Annotated[Promoter, Depends(get_promoter)]


class ProposalList(BaseModel):
    proposals: list[ProposalView]


class DecisionRequest(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"by": "owner", "note": "Yes, keep this one"}]})

    by: Annotated[
        DecisionText, Field(max_length=200, description="Who decided: `owner` or an agent's name.")
    ] = "owner"
    note: Annotated[DecisionText | None, Field(max_length=2_000)] = None


@router.get("/v1/promotions", summary="List promotion proposals", response_model=ProposalList)
def list_proposals(
    services: ServicesDep,
    promoter: PromoterDep,
    status_: Annotated[ProposalStatus | None, Query(alias="status")] = None,
) -> ProposalList:
    """Promotion proposals, newest first, each with the memory, the target tier, the score and its signals."""
    found = promoter.views(proposals.all_proposals(services.redis, services.keys))
    now = utcnow()
    views = [proposals.as_it_stands(v, now=now) for v in found]
    return ProposalList(proposals=[v for v in views if status_ is None or v.status is status_])


def _decided(
    promoter: Promoter, decide: str, proposal_id: str, body: DecisionRequest, caller: Principal
) -> ProposalView:
    by = caller.decided_by(body.by)
    try:
        if decide == "approve":
            proposal = promoter.approve(proposal_id, by=by, note=body.note)
        else:
            proposal = promoter.reject(proposal_id, by=by, note=body.note)
    except ProposalNotFound as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from exc
    except ProposalClosed as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from exc
    return promoter.views([proposal])[0]


DECIDE_ERRORS: dict[int | str, dict[str, object]] = {404: {"model": ErrorBody}, 409: {"model": ErrorBody}}


@router.post(
    "/v1/promotions/{proposal_id}/approve",
    summary="Approve a promotion",
    response_model=ProposalView,
    responses=DECIDE_ERRORS,
)
def approve(
    proposal_id: str, promoter: PromoterDep, caller: CallerDep, body: DecisionRequest | None = None
) -> ProposalView:
    """Move the memory to the proposed tier; its history records the approval and the signals."""
    return _decided(promoter, "approve", proposal_id, body or DecisionRequest(), caller)


@router.post(
    "/v1/promotions/{proposal_id}/reject",
    summary="Reject a promotion",
    response_model=ProposalView,
    responses=DECIDE_ERRORS,
)
def reject(
    proposal_id: str, promoter: PromoterDep, caller: CallerDep, body: DecisionRequest | None = None
) -> ProposalView:
    """Leave the memory where it is; the hub does not propose the same move again."""
    return _decided(promoter, "reject", proposal_id, body or DecisionRequest(), caller)


@router.get("/v1/review/weekly", summary="The weekly review list", response_model=WeeklyReview)
def weekly_review(services: ServicesDep, days: Annotated[int, Query(ge=1, le=366)] = 7) -> WeeklyReview:
    """Memories with some signals but short of a proposal, stated within the last `days`."""
    now = utcnow()
    since = now - timedelta(days=days)
    assessments = weekly.since(services.redis, services.keys, since)
    memories = {m.id: m for m in services.store.get([a.memory_id for a in assessments])}
    items = [
        ReviewItem(memory=memories[a.memory_id], assessment=a)
        for a in assessments
        if a.memory_id in memories and proposals.unpromotable(memories[a.memory_id], now) is None
    ]
    return WeeklyReview(since=since, items=items)
