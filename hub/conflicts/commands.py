"""`memhub conflicts list|resolve`: the owner reads the conflict ledger and decides, from a terminal.

Moving two agents' files in leaves the contradictions between them open, with their proposals; only
high-severity ones are put to the owner as an agent's question. These commands show the rest and
record the owner's decision through the SDK, with the admin key (or none in single-user mode), as
`memhub keys` takes it.
"""

from __future__ import annotations

import argparse
import logging
import sys

import httpx

from hub.auth.commands import add_hub_options
from hub.settings import get_settings
from memhub_client import Conflict, Memhub, MemhubError
from memhub_client.models import ConflictStatus, Severity

# What --keep takes besides a memory id: the side as `list` numbers it, or both.
_SIDES = {"1": 0, "2": 1}


def describe(conflict: Conflict) -> list[str]:
    """The lines `list` prints for one conflict: both sides, who said each where, and what is left to do."""
    where = f", project {conflict.project}" if conflict.project else ""
    where += f", person {conflict.person}" if conflict.person else ""
    lines = [f"{conflict.id}  {conflict.severity.value}  {conflict.status.value}{where}: {conflict.reason}"]
    for n, (memory_id, text, agent, channel, source) in enumerate(
        zip(
            conflict.memory_ids,
            conflict.statements,
            conflict.agents,
            conflict.channels,
            conflict.sources,
            strict=True,
        ),
        start=1,
    ):
        marks = (
            ["proposed"] if conflict.status == ConflictStatus.open and memory_id == conflict.proposal else []
        )
        if conflict.resolution is not None and conflict.resolution.keep in (memory_id, "both"):
            marks.append("kept")
        said = f"{agent} on {channel or 'an unknown channel'}" + (f", {source}" if source else "")
        lines.append(f"  {n}. {text}" + (f"  ({', '.join(marks)})" if marks else ""))
        lines.append(f"     {said}; memory {memory_id}")
    if conflict.resolution is not None:
        decided = conflict.resolution
        lines.append(f"  decided by {decided.by}" + (f": {decided.note}" if decided.note else ""))
    elif conflict.status == ConflictStatus.open:
        lines.append(f"  decide: memhub conflicts resolve {conflict.id} --keep 1|2|both")
    return lines


def cmd_conflicts(args: argparse.Namespace) -> int:
    url = args.url or get_settings().local_api_url
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per page would bury the answer
    # The owner's ledger: the agent a client speaks for only narrows the listing, when named.
    try:
        with Memhub(url, agent=getattr(args, "agent", None) or "owner", api_key=args.admin_key) as hub:
            return _list(hub, args) if args.action == "list" else _resolve(hub, args)
    except httpx.TransportError as exc:
        print(f"memhub conflicts: cannot reach the hub at {url} ({exc}); is it running?", file=sys.stderr)
        return 1
    except MemhubError as exc:
        print(f"memhub conflicts: {exc}", file=sys.stderr)
        return 1


def _list(hub: Memhub, args: argparse.Namespace) -> int:
    status = None if args.status == "all" else args.status
    shown = 0
    for conflict in hub.all_conflicts(status=status, severity=args.severity, every_agent=args.agent is None):
        print("\n".join(describe(conflict)), end="\n\n")
        shown += 1
    print(f"{shown} conflict(s)" + ("" if status is None else f", {status}"))
    return 0


def _resolve(hub: Memhub, args: argparse.Namespace) -> int:
    conflict = hub.conflict(args.conflict_id)
    keep = conflict.memory_ids[_SIDES[args.keep]] if args.keep in _SIDES else args.keep
    if keep != "both" and keep not in conflict.memory_ids:
        print(f"memhub conflicts: --keep takes 1, 2, both or one of {conflict.memory_ids}", file=sys.stderr)
        return 2
    print("\n".join(describe(hub.resolve_conflict(conflict.id, keep, note=args.note))))
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    conflicts = sub.add_parser("conflicts", help="the conflict ledger: list contradictions, decide them")
    actions = conflicts.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="conflicts newest first, each side with its agent and source")
    listing.add_argument(
        "--status",
        default="open",
        choices=[*(s.value for s in ConflictStatus), "all"],
        help="open (default): those waiting for a decision",
    )
    listing.add_argument("--agent", help="only those one side of which this agent said")
    listing.add_argument("--severity", choices=[s.value for s in Severity])
    resolve = actions.add_parser("resolve", help="decide one: keep a side (the other is superseded), or both")
    resolve.add_argument("conflict_id", help="as `conflicts list` shows it")
    resolve.add_argument(
        "--keep", required=True, help="1 or 2 (the side as `list` numbers it), both, or a memory id"
    )
    resolve.add_argument("--note", help="why, kept with the decision")
    for parser in (listing, resolve):
        add_hub_options(parser)
    conflicts.set_defaults(func=cmd_conflicts)
