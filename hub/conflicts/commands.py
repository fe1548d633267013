"""`memhub conflicts list|resolve`: the owner reads the conflict ledger and decides, from a terminal.

Moving two agents' files in leaves the contradictions between them open, with their proposals; only
high-severity ones are put to the owner as an agent's question. These commands show the rest and
record the owner's decision, through the hub's API like `memhub keys` (the admin key, or none in
single-user mode).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from hub.auth.commands import add_hub_options, call_hub
from hub.conflicts.judge import Severity
from hub.conflicts.ledger import Conflict, ConflictStatus

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
        marks = ["proposed"] if conflict.open and memory_id == conflict.proposal else []
        if conflict.resolution is not None and conflict.resolution.keep in (memory_id, "both"):
            marks.append("kept")
        said = f"{agent} on {channel or 'an unknown channel'}" + (f", {source}" if source else "")
        lines.append(f"  {n}. {text}" + (f"  ({', '.join(marks)})" if marks else ""))
        lines.append(f"     {said}; memory {memory_id}")
    if conflict.resolution is not None:
        decided = conflict.resolution
        lines.append(f"  decided by {decided.by}" + (f": {decided.note}" if decided.note else ""))
    elif conflict.open:
        lines.append(f"  decide: memhub conflicts resolve {conflict.id} --keep 1|2|both")
    return lines


def _pages(args: argparse.Namespace) -> Iterator[Conflict]:
    status = None if args.status == "all" else args.status
    params: dict[str, Any] = {
        k: v for k, v in (("status", status), ("agent", args.agent), ("severity", args.severity)) if v
    }
    offset: str | None = None
    while True:
        page = call_hub(
            args, "GET", "/v1/conflicts", params={**params, **({"offset": offset} if offset else {})}
        )
        yield from (Conflict.model_validate(c) for c in page["conflicts"])
        offset = page["next_offset"]
        if offset is None:
            return


def cmd_conflicts(args: argparse.Namespace) -> int:
    if args.action == "list":
        shown = 0
        for conflict in _pages(args):
            print("\n".join(describe(conflict)), end="\n\n")
            shown += 1
        print(f"{shown} conflict(s)" + ("" if args.status == "all" else f", {args.status}"))
        return 0
    path = f"/v1/conflicts/{quote(args.conflict_id, safe='')}"  # a mistyped id names no other route
    conflict = Conflict.model_validate(call_hub(args, "GET", path))
    keep = conflict.memory_ids[_SIDES[args.keep]] if args.keep in _SIDES else args.keep
    if keep != "both" and keep not in conflict.memory_ids:
        print(f"memhub conflicts: --keep takes 1, 2, both or one of {conflict.memory_ids}", file=sys.stderr)
        return 2
    body = {"keep": keep, "by": "owner", "note": args.note}
    decided = Conflict.model_validate(call_hub(args, "POST", f"{path}/resolve", json=body))
    print("\n".join(describe(decided)))
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
