"""`memhub maintenance` (one agent's compaction, by hand, with a progress bar) and `memhub cron`.

`maintenance` goes through the running hub's API: the embedded store has one owning process, and
an embedded hub's Redis has no address outside it. The hub queues the job; the command follows the
progress the job writes into its meta.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from typing import TextIO

import httpx
from tqdm import tqdm

from hub.settings import get_settings
from memhub_client import Memhub, MemhubError
from memhub_client.models import CompactionJob


def follow_compaction(
    client: Memhub, *, dry_run: bool, poll: float = 0.2, out: TextIO = sys.stderr, timeout: float = 3600
) -> CompactionJob:
    """Queue the client's agent's compaction and show its progress until it is done."""
    job = client.compact(dry_run=dry_run)
    deadline = time.monotonic() + timeout
    stage: str | None = None
    with tqdm(total=0, file=out, unit="step", desc="queued", leave=True) as bar:
        while not job.done:
            if time.monotonic() > deadline:
                raise TimeoutError(f"compaction {job.id} still {job.status} after {timeout} s")
            time.sleep(poll)
            job = client.compaction(job.id)
            progress = job.progress
            if progress.stage and progress.stage != stage:
                stage = progress.stage
                bar.reset(total=progress.total)
                bar.set_description(stage)
            bar.total = progress.total
            bar.n = progress.done
            bar.refresh()
    return job


def summary(job: CompactionJob) -> str:
    report = job.result
    if report is None:
        return f"compaction of {job.agent}: {job.status}\n{job.error or ''}".rstrip()
    merged = sum(len(m.merged) for m in report.merge)
    verb = "would" if report.dry_run else "did"
    before, after, budget = report.core_before, report.core_after, report.budget
    what = f"compaction of {job.agent}" + (" (dry run)" if report.dry_run else "")
    return "\n".join(
        [
            f"{what}: {verb} purge {len(report.purge)} expired, mark {len(report.mark_stale)} stale, merge "
            f"{merged} near-duplicates into {len(report.merge)}, demote {len(report.demote)} to archival",
            f"core: {before.words} words, {before.lines} lines -> {after.words} words, {after.lines} lines "
            f"(budget {budget.words} words, {budget.lines} lines)",
            *([f"skipped (changed meanwhile): {', '.join(report.skipped)}"] if report.skipped else []),
        ]
    )


def cmd_maintenance(args: argparse.Namespace) -> int:
    url = args.url or get_settings().local_api_url
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per poll would bury the bar
    try:
        with Memhub(url, agent=args.agent, api_key=args.api_key) as client:
            job = follow_compaction(client, dry_run=args.dry_run)
    except httpx.TransportError as exc:
        print(
            f"memhub maintenance: the hub at {url} did not answer ({exc}); is `memhub up` running?",
            file=sys.stderr,
        )
        return 2
    except MemhubError as exc:
        # No such agent (the hub names the agents it knows) or job: the hub's one line says it all.
        if exc.status_code == 404:
            print(f"memhub maintenance: {exc.detail}", file=sys.stderr)
            return 2
        # The hub answered: saying it did not would send the user to restart a hub that runs.
        key = "; pass --api-key or set MEMHUB_API_KEY" if exc.status_code == 401 else ""
        print(f"memhub maintenance: the hub at {url} refused it ({exc}){key}", file=sys.stderr)
        return 2
    print(summary(job))
    return 0 if job.status == "finished" else 1


def cmd_cron(args: argparse.Namespace) -> int:
    from hub.compaction.schedule import build_scheduler
    from hub.connections import connect

    settings = get_settings()
    if not settings.redis_url:
        print("memhub cron: set MEMHUB_REDIS_URL (`memhub up` runs the schedules itself)", file=sys.stderr)
        return 2
    scheduler = build_scheduler(settings, connect(settings.redis_url))
    for job in scheduler.get_jobs():
        print(
            f"memhub cron: {job.name} '{job.cron}' in {settings.timezone}, next {job.next_enqueue_time:%F %R} UTC"
        )
    stopped = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stopped.set())
    scheduler.run_until(stopped)
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    maintenance = sub.add_parser("maintenance", help="compact one agent's memories now, with a progress bar")
    maintenance.add_argument("--agent", required=True, help="the agent whose memories to compact")
    maintenance.add_argument(
        "--dry-run", action="store_true", help="report what would change, change nothing"
    )
    maintenance.add_argument("--url", help="the hub's API (default: MEMHUB_HOST and MEMHUB_PORT)")
    maintenance.add_argument("--api-key", default=os.environ.get("MEMHUB_API_KEY"), help="or MEMHUB_API_KEY")
    maintenance.set_defaults(func=cmd_maintenance)

    cron = sub.add_parser("cron", help="run the review and compaction schedules, against MEMHUB_REDIS_URL")
    cron.set_defaults(func=cmd_cron)
