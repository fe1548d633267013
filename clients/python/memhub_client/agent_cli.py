"""`memhub-agent`: the hub from an agent's shell, one command per thing an agent does with memory.

    memhub-agent remember "Dana prefers green tea" --kind preference
    memhub-agent remember "Yael books trips on Sundays" --kind deduced --evidence "booked Eilat on Sun 3 May"
    memhub-agent recall "what does Dana drink?"
    memhub-agent summary --session 2026-05-03-wa --decision "Fly TAP on 10 April" --done "Booked the hotel"
    memhub-agent core | questions | resolve CONFLICT --keep MEMORY | forget MEMORY

The hub, the agent and its key come from MEMHUB_URL, MEMHUB_AGENT, MEMHUB_API_KEY and MEMHUB_CHANNEL
(or --url, --agent, --api-key, --channel before the command). Exit 0 on success, 1 when the hub
refused (its reason on stderr, naming what to fix), 2 for a mistake in the command line.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from typing import Any

import httpx

from memhub_client.events import NotAcknowledged
from memhub_client.http import Memhub, MemhubError
from memhub_client.models import Confidence, EventState, Kind, Pattern, Scope, SearchHit


def _where(hit: SearchHit) -> str:
    said = f"{hit.kind.value}, {hit.agent}" + (f" on {hit.channel}" if hit.channel else "")
    if hit.source:
        said += f", {hit.source}"
    if hit.occurred_at:
        said += f", {hit.occurred_at:%Y-%m-%d}"
    if hit.conflict_ids:
        said += f"; disputed: {', '.join(hit.conflict_ids)} (ask the owner: memhub-agent questions)"
    return said


def remember(hub: Memhub, args: argparse.Namespace) -> None:
    fields = {
        "kind": args.kind,
        "scope": args.scope,
        "project": args.project,
        "person": args.person,
        "evidence": args.evidence or None,
        "confidence": args.confidence,
        "source": args.source,
        "session": args.session,
        "ttl_seconds": args.ttl,
    }
    event_id = hub.publish(args.text, **{k: v for k, v in fields.items() if v is not None})
    if args.no_wait:
        print(f"published {event_id}")
        return
    status = hub.wait(event_id)
    if status.status in (EventState.rejected, EventState.failed):
        raise SystemExit(f"memhub-agent: not stored: {status.error}")
    print(f"remembered {status.memory_id}")


def recall(hub: Memhub, args: argparse.Namespace) -> None:
    filters = {
        "project": args.project,
        "person": args.person,
        "everywhere": args.everywhere or None,
        "kinds": args.kind or None,
    }
    hits = hub.search(args.query, limit=args.limit, **{k: v for k, v in filters.items() if v is not None})
    if args.json:
        print(json.dumps([h.model_dump(mode="json") for h in hits], indent=2))
        return
    if not hits:
        print("nothing remembered about that")
    for hit in hits:
        print(f"- {hit.text}\n  ({_where(hit)}; memory {hit.id})")


def summary(hub: Memhub, args: argparse.Namespace) -> None:
    event_id = hub.summarize_session(
        args.text,
        session=args.session,
        decisions=args.decision,
        tasks_completed=args.done,
        patterns=[Pattern(text=text, evidence=evidence) for text, evidence in args.pattern],
        open_loops=args.open_loop,
        promote=args.promote,
    )
    status = hub.wait(event_id)
    if status.status in (EventState.rejected, EventState.failed):
        raise SystemExit(f"memhub-agent: not stored: {status.error}")
    print(f"summary of session {args.session} remembered {status.memory_id}")


def core(hub: Memhub, args: argparse.Namespace) -> None:
    print(hub.load_core(person=args.person, project=args.project).markdown)


def questions(hub: Memhub, args: argparse.Namespace) -> None:
    found = hub.questions()
    if not found:
        print("no questions for the owner")
    for question in found:
        print(f"{question.conflict_id}: ask in {question.ask_in or 'your channel'}: {question.question}")
        for answer, keep in question.options.items():
            print(f"  {answer}: memhub-agent resolve {question.conflict_id} --keep {keep}")


def resolve(hub: Memhub, args: argparse.Namespace) -> None:
    conflict = hub.resolve_conflict(args.conflict, args.keep, note=args.note)
    print(f"{conflict.id} {conflict.status.value}: kept {args.keep}")


def forget(hub: Memhub, args: argparse.Namespace) -> None:
    gone = hub.forget(args.memory)
    print(f"forgot {', '.join(gone.forgotten)}")


class PatternAction(argparse.Action):
    """`--pattern TEXT` starts a deduction; each `--because EVIDENCE` after it supports it."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        patterns: list[tuple[str, list[str]]] = namespace.pattern
        if option_string == "--pattern":
            patterns.append((str(values), []))
        elif not patterns:
            parser.error("--because supports the --pattern before it: give the pattern first")
        else:
            patterns[-1][1].append(str(values))


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="memhub-agent",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[2:]),
    )
    top.add_argument("--url", default=os.environ.get("MEMHUB_URL", "http://127.0.0.1:8420"))
    top.add_argument("--agent", default=os.environ.get("MEMHUB_AGENT"))
    top.add_argument("--api-key", default=os.environ.get("MEMHUB_API_KEY"))
    top.add_argument("--channel", default=os.environ.get("MEMHUB_CHANNEL"))
    commands = top.add_subparsers(dest="command", required=True)

    p = commands.add_parser("remember", help="keep a memory (waits until stored; prints its id)")
    p.add_argument("text")
    p.add_argument("--kind", choices=[k.value for k in Kind], default="fact")
    p.add_argument("--evidence", action="append", help="why a deduction holds (repeat for more)")
    p.add_argument("--scope", choices=[s.value for s in Scope])
    p.add_argument("--project")
    p.add_argument("--person")
    p.add_argument("--confidence", choices=[c.value for c in Confidence])
    p.add_argument("--source", help="where it was said: a message id, a file and line")
    p.add_argument("--session")
    p.add_argument("--ttl", type=int, metavar="SECONDS", help="with --scope temporary: when it expires")
    p.add_argument("--no-wait", action="store_true", help="print the event id once the hub holds it")
    p.set_defaults(run=remember)

    p = commands.add_parser("recall", help="search the shared memory, best first")
    p.add_argument("query")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--project", help="also this project's memories")
    p.add_argument("--person", help="also this person's memories")
    p.add_argument("--everywhere", action="store_true", help="also every project's and person's")
    p.add_argument("--kind", action="append", choices=[k.value for k in Kind], help="only these kinds")
    p.add_argument("--json", action="store_true", help="every field of each hit, as JSON")
    p.set_defaults(run=recall)

    p = commands.add_parser("summary", help="keep what a session settled, each item a memory")
    p.add_argument("text", nargs="?", help="the summary in your words (default: made from the items)")
    p.add_argument("--session", required=True, help="the session's id, e.g. 2026-05-03-whatsapp")
    p.add_argument("--decision", action="append", default=[])
    p.add_argument("--done", action="append", default=[], help="a task completed")
    p.add_argument("--pattern", action=PatternAction, default=[], help="a deduction about the owner")
    p.add_argument(
        "--because", action=PatternAction, dest="pattern", help="evidence for the --pattern before"
    )
    p.add_argument("--open-loop", action="append", default=[], help="left to do or to follow up")
    p.add_argument("--promote", action="append", default=[], help="a fact to keep long-term")
    p.set_defaults(run=summary)

    p = commands.add_parser("core", help="the core memory as markdown: read it at session start")
    p.add_argument("--person")
    p.add_argument("--project")
    p.set_defaults(run=core)

    p = commands.add_parser("questions", help="conflicts to ask the owner about, and how to answer")
    p.set_defaults(run=questions)

    p = commands.add_parser("resolve", help="record the owner's answer to a conflict")
    p.add_argument("conflict")
    p.add_argument("--keep", required=True, help="the memory id the owner confirmed, or 'both'")
    p.add_argument("--note", help="what the owner said")
    p.set_defaults(run=resolve)

    p = commands.add_parser("forget", help="forget a memory for good, when the owner asks")
    p.add_argument("memory")
    p.set_defaults(run=forget)
    return top


def main(argv: Sequence[str] | None = None) -> None:
    top = parser()
    args = top.parse_args(argv)
    if not args.agent:
        top.error("which agent? set MEMHUB_AGENT or pass --agent NAME (before the command)")
    try:
        with Memhub(args.url, agent=args.agent, channel=args.channel, api_key=args.api_key) as hub:
            args.run(hub, args)
    except MemhubError as error:
        raise SystemExit(f"memhub-agent: {error}") from None
    except (httpx.TransportError, NotAcknowledged) as error:
        cause = error.__cause__ if isinstance(error, NotAcknowledged) else error
        raise SystemExit(
            f"memhub-agent: no answer from the hub at {args.url} ({cause}): is it running?"
        ) from None


if __name__ == "__main__":
    main()
