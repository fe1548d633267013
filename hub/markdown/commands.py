"""`memhub import` and `memhub export`: the markdown commands, run against a hub over HTTP."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from dataclasses import replace
from pathlib import Path

import httpx

from hub.markdown.exporter import ExportError, export_workspace
from hub.markdown.importer import import_workspace
from hub.markdown.layout import Layout, LayoutError, load_layout
from hub.settings import get_settings
from memhub_client import Memhub, MemhubError, NotAcknowledged

DEFAULT_AGENT = "main"  # OpenClaw's default agent id


def _client(args: argparse.Namespace) -> Memhub:
    url = args.url or get_settings().local_api_url
    # Many small requests: httpx's per-request INFO lines would bury the progress bar.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    return Memhub(
        url, agent=args.agent, channel=getattr(args, "channel", None), api_key=args.api_key, timeout=120.0
    )


def _layout(args: argparse.Namespace) -> Layout:
    """The layout file's paths (or the usual ones), and the owner's zone: `--timezone`, else the file's,
    else the hub's (`MEMHUB_TIMEZONE`), which its daily pages and schedules use."""
    owner = get_settings().timezone
    layout = load_layout(args.layout, timezone=owner) if args.layout else Layout(timezone=owner)
    return replace(layout, timezone=args.timezone) if args.timezone else layout  # checked again


def cmd_import(args: argparse.Namespace) -> int:
    if not args.path.is_dir():
        print(f"memhub import: {args.path} is not a folder", file=sys.stderr)
        return 2
    try:
        layout = _layout(args)
    except LayoutError as exc:
        print(f"memhub import: {exc}", file=sys.stderr)
        return 2
    try:
        with _client(args) as hub:
            report = import_workspace(
                args.path,
                hub=hub,
                layout=layout,
                dry_run=args.dry_run,
                wait=not args.no_wait,
                timeout=args.timeout,
                progress=not args.quiet,
            )
    except MemhubError as exc:  # it answered: a key it does not know, or one without the grants
        print(f"memhub import: the hub refused: {exc}", file=sys.stderr)
        return 2
    except (httpx.TransportError, NotAcknowledged) as exc:
        # An entry's id comes from its agent, file and text: importing again stores each once.
        print(
            f"memhub import: the hub did not answer ({exc}); is `memhub up` running? Importing again "
            "stores each memory once",
            file=sys.stderr,
        )
        return 2
    # The zone says how times written without one were read: the wrong one shifts every session.
    print(f"memhub import of {args.path} as {args.agent} (times in {layout.timezone}): {report.summary()}")
    return 1 if report.refused or (report.pending and not args.no_wait) else 0


def cmd_export(args: argparse.Namespace) -> int:
    try:
        layout = _layout(args)
        with _client(args) as hub:
            report = export_workspace(
                args.path,
                hub=hub,
                layout=layout,
                git=args.git,
                message=args.message,
                progress=not args.quiet,
            )
    except (ExportError, LayoutError) as exc:
        print(f"memhub export: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a folder it may not write to, a full disk: one line, not a traceback
        print(
            f"memhub export: cannot write {exc.filename or args.path}: {exc.strerror or exc}", file=sys.stderr
        )
        return 2
    except MemhubError as exc:
        print(f"memhub export: the hub refused: {exc}", file=sys.stderr)
        return 2
    except httpx.TransportError as exc:
        print(f"memhub export: the hub did not answer ({exc}); is `memhub up` running?", file=sys.stderr)
        return 2
    print(f"memhub export of {args.agent} (times in {layout.timezone}): {report.summary()}")
    return 0


def _agent(text: str) -> str:
    """An argparse type: an agent's name as the hub takes it (else every line would be refused for it)."""
    name = text.strip()
    if not 1 <= len(name) <= 200:
        raise argparse.ArgumentTypeError(f"{text!r} is not an agent's name: 1 to 200 characters")
    return name


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="the agent workspace (the folder holding MEMORY.md)")
    parser.add_argument(
        "--agent", type=_agent, default=DEFAULT_AGENT, help=f"the agent's name (default {DEFAULT_AGENT})"
    )
    parser.add_argument("--url", help="the hub's API (default: MEMHUB_HOST and MEMHUB_PORT, 127.0.0.1:8420)")
    parser.add_argument("--api-key", default=os.environ.get("MEMHUB_API_KEY"), help="default MEMHUB_API_KEY")
    parser.add_argument(
        "--layout", type=Path, help="a TOML file of paths, e.g. daily = ['journal/{date}.md']"
    )
    parser.add_argument(
        "--timezone",
        help="the owner's zone for times written without one (default MEMHUB_TIMEZONE, else UTC)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    imp = sub.add_parser("import", help="bring an agent's markdown memory folder into a running hub")
    _common(imp)
    imp.add_argument("--channel", help="the channel to credit lines with when their file names none")
    imp.add_argument("--dry-run", action="store_true", help="report what would be imported; publish nothing")
    imp.add_argument("--no-wait", action="store_true", help="return once the hub holds the events durably")
    imp.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for storage (default 600)")
    imp.set_defaults(func=cmd_import)

    exp = sub.add_parser("export", help="write an agent's memories from the hub as a markdown workspace")
    _common(exp)
    exp.add_argument("--git", action="store_true", help="commit the result (a repository is made if missing)")
    exp.add_argument("--message", help="the commit message")
    exp.set_defaults(func=cmd_export)
