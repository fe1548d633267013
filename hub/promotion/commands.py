"""`memhub promotions list|approve|reject|weekly`: the owner reads promotion proposals and decides, from a terminal.

The hub proposes moving a memory up a tier when its signals say it matters beyond the day it was said;
unless promotion is automatic, it waits for the owner. These commands show the proposals with the
signals behind them, record the owner's answer through the SDK, with the admin key (or none in
single-user mode) as `memhub conflicts` takes it, and show the weekly review: memories with some
signals, short of a proposal.
"""

from __future__ import annotations

import argparse
import logging
import sys

import httpx

from hub.auth.commands import add_hub_options
from hub.settings import get_settings
from memhub_client import Memhub, MemhubError
from memhub_client.models import ProposalStatus, ProposalView, ReviewItem


def describe(proposal: ProposalView) -> list[str]:
    """The lines `list` prints for one proposal: the move, the memory, its signals and what is left to do."""
    where = f", project {proposal.project}" if proposal.project else ""
    where += f", person {proposal.person}" if proposal.person else ""
    move = f"{proposal.from_tier.value} → {proposal.to_tier.value}"
    lines = [
        f"{proposal.id}  {move}  score {proposal.score:g}  {proposal.status.value}{where}: {proposal.reason}",
        f"  {proposal.text}",
        f"     {proposal.agent}, {proposal.scope.value} scope; memory {proposal.memory_id}",
    ]
    lines += [f"  - {signal.name.value}: {signal.detail}" for signal in proposal.signals]
    if proposal.status == ProposalStatus.pending:
        lines.append(f"  decide: memhub promotions approve {proposal.id} / reject {proposal.id}")
    elif proposal.decided_by is not None:
        lines.append(f"  decided by {proposal.decided_by}" + (f": {proposal.note}" if proposal.note else ""))
    elif proposal.note:  # withdrawn as it stands: its memory can no longer be promoted
        lines.append(f"  {proposal.status.value}: {proposal.note}")
    return lines


def describe_review(item: ReviewItem) -> list[str]:
    """The two lines `weekly` prints for one memory: what it says, and its signals and why no proposal."""
    memory, assessment = item.memory, item.assessment
    signals = "; ".join(f"{signal.name.value} ({signal.detail})" for signal in assessment.signals)
    return [
        f"{memory.id}  {memory.tier.value}  score {assessment.score:g}  {memory.agent}: {memory.text}",
        f"  {assessment.reason}: {signals}",
    ]


def cmd_promotions(args: argparse.Namespace) -> int:
    url = args.url or get_settings().local_api_url
    logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        with Memhub(url, agent="owner", api_key=args.admin_key) as hub:
            if args.action == "list":
                return _list(hub, args)
            if args.action == "weekly":
                return _weekly(hub, args)
            return _decide(hub, args)
    except httpx.TransportError as exc:
        print(f"memhub promotions: cannot reach the hub at {url} ({exc}); is it running?", file=sys.stderr)
        return 1
    except MemhubError as exc:
        print(f"memhub promotions: {exc}", file=sys.stderr)
        return 1


def _list(hub: Memhub, args: argparse.Namespace) -> int:
    status = None if args.status == "all" else args.status
    shown = 0
    for proposal in hub.promotions(status=status):
        print("\n".join(describe(proposal)), end="\n\n")
        shown += 1
    print(f"{shown} proposal(s)" + ("" if status is None else f", {status}"))
    return 0


def _decide(hub: Memhub, args: argparse.Namespace) -> int:
    decide = hub.approve if args.action == "approve" else hub.reject
    print("\n".join(describe(decide(args.proposal_id, note=args.note))))
    return 0


def _weekly(hub: Memhub, args: argparse.Namespace) -> int:
    review = hub.weekly_review(days=args.days)
    for item in review.items:
        print("\n".join(describe_review(item)), end="\n\n")
    print(f"{len(review.items)} memory(ies) to review, stated in the last {args.days} day(s)")
    return 0


def _days(value: str) -> int:
    days = int(value)
    if not 1 <= days <= 366:  # as the hub takes it
        raise argparse.ArgumentTypeError("between 1 and 366")
    return days


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    promotions = sub.add_parser("promotions", help="promotion proposals: list them, approve or reject one")
    actions = promotions.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="proposals newest first, each with its memory and signals")
    listing.add_argument(
        "--status",
        default="pending",
        choices=[*(s.value for s in ProposalStatus), "all"],
        help="pending (default): those waiting for a decision",
    )
    deciding = []
    for verb, what in (
        ("approve", "the memory moves to the proposed tier"),
        ("reject", "the memory stays; the same move is not proposed again"),
    ):
        decide = actions.add_parser(verb, help=f"{verb} one: {what}")
        decide.add_argument("proposal_id", help="as `promotions list` shows it")
        decide.add_argument("--note", help="why, kept with the decision")
        deciding.append(decide)
    weekly = actions.add_parser("weekly", help="memories with some signals, short of a proposal")
    weekly.add_argument("--days", type=_days, default=7, help="stated within the last N days (default 7)")
    for parser in (listing, *deciding, weekly):
        add_hub_options(parser)
    promotions.set_defaults(func=cmd_promotions)
