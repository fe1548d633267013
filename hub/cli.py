"""The `memhub` command: run the hub on one machine, or its API and workers separately."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from hub.settings import Settings, SettingsInvalid, get_settings

if TYPE_CHECKING:
    from hub.services import Services


def _settings(args: argparse.Namespace) -> Settings:
    given = {"data_dir": args.data_dir, "port": getattr(args, "port", None)}
    overrides = {k: v for k, v in given.items() if v is not None}
    base = get_settings()
    return base.model_copy(update=overrides) if overrides else base


def _count(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is too few: at least 1")
    return value


def _port(text: str) -> int:
    """An argparse type: a TCP port."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= value <= 65_535:
        raise argparse.ArgumentTypeError(f"{value} is not a port: 1 to 65535")
    return value


def _started() -> None:
    """Exempt what start-up built from the garbage collector: the model, the tokenizer and the store
    are ~490k objects that live as long as the process, and a full collection walked them all (237 ms,
    `python -m benchmarks.gc_pause`) inside whatever request or job was running; frozen, it walks only
    what came since."""
    gc.freeze()


def _services(settings: Settings, command: str) -> Services | None:
    """The process's services against MEMHUB_REDIS_URL, or None having said on stderr what to set."""
    from hub.connections import connect
    from hub.services import build_services
    from hub.store.edge import StoreInUse
    from hub.store.pinning import ModelMismatch

    if not settings.redis_url:
        print(
            f"memhub {command}: set MEMHUB_REDIS_URL (and MEMHUB_QDRANT_URL to share a Qdrant server); "
            "`memhub up` runs everything on one machine",
            file=sys.stderr,
        )
        return None
    try:
        return build_services(settings, connect(settings.redis_url))
    except StoreInUse as exc:
        print(
            f"memhub {command}: {exc}; set MEMHUB_QDRANT_URL so that `memhub api` and the workers share "
            "a Qdrant server, or run `memhub up` alone",
            file=sys.stderr,
        )
        return None
    except ModelMismatch as exc:
        print(f"memhub {command}: {exc}", file=sys.stderr)
        return None


def cmd_up(args: argparse.Namespace) -> int:
    import uvicorn

    from hub.api.app import create_app
    from hub.compaction.schedule import CronThread
    from hub.embedded import DataDirInUse, embedded_hub
    from hub.store.pinning import ModelMismatch

    settings = _settings(args)
    if "auth" not in settings.model_fields_set:
        # The one-machine hub is single-user unless MEMHUB_AUTH asks for keys (README, "Access and trust").
        settings = settings.model_copy(update={"auth": False})
    # uvicorn shuts down gracefully on SIGINT/SIGTERM, then re-raises the signal to the handler that
    # was there before it. With these no-op handlers that re-raise lets run() return, so the workers
    # stop and the store and Redis close cleanly instead of the process dying on the spot.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: None)
    with ExitStack() as stack:
        try:
            hub = stack.enter_context(embedded_hub(settings, workers=args.workers))
        except (DataDirInUse, ModelMismatch) as exc:
            print(f"memhub up: {exc}", file=sys.stderr)
            return 2
        # The review and compaction schedules, in a thread beside the workers.
        cron = CronThread(settings, hub.services.redis).start() if settings.embedded_cron else None
        _started()
        print(f"memhub: data in {settings.data_dir.resolve()}, API on http://{settings.host}:{settings.port}")
        # log_config=None: uvicorn's own lines go through the process's handler, in MEMHUB_LOG_FORMAT.
        uvicorn.run(
            create_app(hub.services),
            host=settings.host,
            port=settings.port,
            log_level="warning",
            log_config=None,
            access_log=False,
        )
        if cron:
            cron.stop()
    print("memhub: stopped")
    return 0


def cmd_api(args: argparse.Namespace) -> int:
    import uvicorn

    from hub.api.app import create_app

    settings = _settings(args)
    log = logging.getLogger("memhub")
    if not settings.auth:
        log.warning("MEMHUB_AUTH is false: every caller is the owner, with no key")
    elif settings.admin_key is None:
        log.warning(
            "MEMHUB_ADMIN_KEY is not set: no new key can be made (`memhub keys create` needs it), "
            "so only agents whose keys already exist will get past 401"
        )
    # Built here rather than in the app's lifespan, so a missing setting is one line, not a traceback.
    services = _services(settings, "api")
    if services is None:
        return 2
    _started()
    try:
        # The request log (hub.api.request_log) replaces uvicorn's access log, with the request id.
        uvicorn.run(
            create_app(services),
            host=args.host or settings.host,
            port=settings.port,
            log_config=None,
            access_log=False,
        )
    finally:
        services.close()
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    from workers.worker import run_worker

    services = _services(_settings(args), "worker")
    if services is None:
        return 2
    _started()
    try:
        run_worker(services, burst=args.burst, metrics_host=args.host)
    finally:
        services.close()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memhub", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    store_dir = "where the embedded store lives (default MEMHUB_DATA_DIR, ./memhub-data)"
    up = sub.add_parser("up", help="the whole hub on one machine: embedded Redis and store, workers, API")
    up.add_argument(
        "--data-dir",
        type=Path,
        help="where the embedded store and Redis live (default MEMHUB_DATA_DIR, ./memhub-data)",
    )
    up.add_argument("--port", type=_port, help="the API's port (default MEMHUB_PORT, 8420)")
    up.add_argument(
        "--workers", type=_count, help="worker threads, at least 1 (default MEMHUB_EMBEDDED_WORKERS, 1)"
    )
    up.set_defaults(func=cmd_up)

    api = sub.add_parser("api", help="the read API alone, against MEMHUB_REDIS_URL and MEMHUB_QDRANT_URL")
    api.add_argument("--data-dir", type=Path, help=f"{store_dir}, when MEMHUB_QDRANT_URL is unset")
    api.add_argument("--host", help="the address to listen on (default MEMHUB_HOST, 127.0.0.1)")
    api.add_argument("--port", type=_port, help="the port to listen on (default MEMHUB_PORT, 8420)")
    api.set_defaults(func=cmd_api)

    worker = sub.add_parser(
        "worker", help="one worker process, against MEMHUB_REDIS_URL and MEMHUB_QDRANT_URL"
    )
    worker.add_argument("--data-dir", type=Path, help=f"{store_dir}, when MEMHUB_QDRANT_URL is unset")
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    worker.add_argument("--host", help="the address its /metrics listens on (default MEMHUB_HOST, 127.0.0.1)")
    worker.set_defaults(func=cmd_worker)

    from hub.markdown.commands import add_commands  # `memhub import` and `memhub export`

    add_commands(sub)

    from hub.compaction import commands as compaction_commands  # `memhub maintenance` and `memhub cron`

    compaction_commands.add_commands(sub)

    from hub.auth import commands as auth_commands  # `memhub keys` and `memhub dlq`

    auth_commands.add_commands(sub)

    from hub.conflicts import commands as conflict_commands  # `memhub conflicts`

    conflict_commands.add_commands(sub)

    from hub.promotion import commands as promotion_commands  # `memhub promotions`

    promotion_commands.add_commands(sub)

    from hub.reembed import commands as reembed_commands  # `memhub reembed`

    reembed_commands.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from hub import logs

    args = build_parser().parse_args(argv)
    try:
        try:
            log_format = get_settings().log_format
        except SettingsInvalid:  # the command says what is wrong as it reads the settings
            log_format = "text"
        logs.configure(log_format)
        logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request would bury the answer
        code: int = args.func(args)
    except SettingsInvalid as exc:
        print(f"memhub {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # Read by `head` or a pager that quit: what was asked was done; the rest of the report has no
        # reader. Python would print a traceback flushing stdout at exit: point it at nothing instead.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a shell reports a command ended by SIGPIPE
    return code


if __name__ == "__main__":
    sys.exit(main())
