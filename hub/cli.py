"""The `memhub` command: run the hub on one machine, or its API and workers separately."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from pathlib import Path

from hub.settings import Settings, SettingsInvalid, get_settings


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {
        k: v for k, v in {"data_dir": args.data_dir, "port": getattr(args, "port", None)}.items() if v
    }
    base = get_settings()
    return base.model_copy(update=overrides) if overrides else base


def cmd_up(args: argparse.Namespace) -> int:
    import uvicorn

    from hub.api.app import create_app
    from hub.compaction.schedule import CronThread
    from hub.embedded import embedded_hub

    settings = _settings(args)
    if "auth" not in settings.model_fields_set:
        # The one-machine hub is single-user unless MEMHUB_AUTH asks for keys (README, "Access and trust").
        settings = settings.model_copy(update={"auth": False})
    # uvicorn shuts down gracefully on SIGINT/SIGTERM, then re-raises the signal to the handler that
    # was there before it. With these no-op handlers that re-raise lets run() return, so the workers
    # stop and the store and Redis close cleanly instead of the process dying on the spot.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: None)
    with embedded_hub(settings, workers=args.workers) as hub:
        # The review and compaction schedules, in a thread beside the workers.
        cron = CronThread(settings, hub.services.redis).start() if settings.embedded_cron else None
        print(f"memhub: data in {settings.data_dir.resolve()}, API on http://{settings.host}:{settings.port}")
        uvicorn.run(create_app(hub.services), host=settings.host, port=settings.port, log_level="warning")
        if cron:
            cron.stop()
    print("memhub: stopped")
    return 0


def cmd_api(args: argparse.Namespace) -> int:
    import uvicorn

    from hub.api.app import create_app

    settings = _settings(args)
    if settings.auth and settings.admin_key is None:
        logging.getLogger("memhub").warning(
            "MEMHUB_ADMIN_KEY is not set: no new key can be made (`memhub keys create` needs it), "
            "so only agents whose keys already exist will get past 401"
        )
    uvicorn.run(create_app(settings=settings), host=args.host or settings.host, port=settings.port)
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    from hub.connections import connect
    from hub.services import build_services
    from workers.worker import run_worker

    settings = _settings(args)
    if not settings.redis_url:
        print(
            "memhub worker: set MEMHUB_REDIS_URL (and MEMHUB_QDRANT_URL to share a Qdrant server)",
            file=sys.stderr,
        )
        return 2
    services = build_services(settings, connect(settings.redis_url))
    try:
        run_worker(services, burst=args.burst)
    finally:
        services.close()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memhub", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    up = sub.add_parser("up", help="the whole hub on one machine: embedded Redis and store, workers, API")
    up.add_argument("--data-dir", type=Path, help="where memories and the embedded Redis live")
    up.add_argument("--port", type=int)
    up.add_argument("--workers", type=int, help="worker threads (default MEMHUB_EMBEDDED_WORKERS)")
    up.set_defaults(func=cmd_up)

    api = sub.add_parser("api", help="the read API alone, against MEMHUB_REDIS_URL and MEMHUB_QDRANT_URL")
    api.add_argument("--data-dir", type=Path)
    api.add_argument("--host")
    api.add_argument("--port", type=int)
    api.set_defaults(func=cmd_api)

    worker = sub.add_parser("worker", help="one worker process, against MEMHUB_REDIS_URL")
    worker.add_argument("--data-dir", type=Path)
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    worker.set_defaults(func=cmd_worker)

    from hub.markdown.commands import add_commands  # `memhub import` and `memhub export`

    add_commands(sub)

    from hub.compaction import commands as compaction_commands  # `memhub maintenance` and `memhub cron`

    compaction_commands.add_commands(sub)

    from hub.auth import commands as auth_commands  # `memhub keys` and `memhub dlq`

    auth_commands.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except SettingsInvalid as exc:
        print(f"memhub {args.command}: {exc}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
