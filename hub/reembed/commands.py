"""`memhub reembed`: switch a hub to another embedding model, or rewrite its sparse vectors."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hub.settings import Settings, get_settings


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "reembed",
        help="rewrite every memory's vectors with another model (or the same one, after a change to "
        "the sparse encoder), then switch the hub to it",
    )
    parser.add_argument(
        "--model",
        help="a sentence-transformers folder or name (default MEMHUB_MODEL, else all-MiniLM-L6-v2)",
    )
    parser.add_argument("--sha256", help="the hash the model's weights must have (MEMHUB_MODEL_SHA256)")
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="where the embedded store lives (default MEMHUB_DATA_DIR, ./memhub-data)",
    )
    parser.set_defaults(func=cmd_reembed)


def _settings(args: argparse.Namespace) -> Settings:
    given = {"data_dir": args.data_dir, "model": args.model, "model_sha256": args.sha256}
    return get_settings().model_copy(update={k: v for k, v in given.items() if v is not None})


def cmd_reembed(args: argparse.Namespace) -> int:
    from hub.connections import EmbeddedRedis, connect
    from hub.embedded import DataDirInUse, holding
    from hub.embedding import load_embedder
    from hub.reembed.rewrite import Progress, reembed
    from hub.sparse import SparseEncoder
    from hub.store.edge import StoreInUse

    settings = _settings(args)
    embedder = load_embedder(settings)
    print(f"memhub reembed: rewriting the hub with {embedder.identity.describe()}", file=sys.stderr)

    def show(progress: Progress) -> None:
        print(
            f"memhub reembed: {progress.stage}: {progress.read} of {progress.total} memories read, "
            f"{progress.embedded} embedded, {progress.deleted} dropped, {progress.seconds:.0f} s",
            file=sys.stderr,
        )

    try:
        if settings.redis_url:
            done = reembed(
                settings,
                connect(settings.redis_url),
                embedder=embedder,
                sparse=SparseEncoder(),
                progress=show,
            )
        else:  # the one-machine hub's own Redis, in its data folder, which `memhub up` must not hold
            with holding(settings.data_dir):
                server = EmbeddedRedis(settings.data_dir)
                try:
                    done = reembed(
                        settings, server.client(), embedder=embedder, sparse=SparseEncoder(), progress=show
                    )
                finally:
                    server.shutdown()
    except (DataDirInUse, StoreInUse) as exc:
        print(
            f"memhub reembed: {exc}; stop `memhub up` first (events published meanwhile wait in Redis)",
            file=sys.stderr,
        )
        return 2
    print(
        f"memhub reembed: done, {done.embedded} memories embedded in {done.seconds:.0f} s; start the API and "
        f"workers with MEMHUB_MODEL={embedder.identity.name}",
        file=sys.stderr,
    )
    return 0
