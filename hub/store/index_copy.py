"""Indexing the embedded store without stopping it: build the index on a copy, in a process of its own.

qdrant-edge's `optimize()` holds the GIL of the process that runs it for its whole run (on two cores
~100 s for 100k memories from scratch, ~15 minutes for a million), and in `memhub up` that process
serves every search. So `EdgeStore.optimize` copies the shard beside itself (`<name>.indexing`), and
this module's `main` indexes the copy in a child process at a lower OS priority, while the hub goes on
searching and writing the original. The writes made meanwhile are replayed onto the copy; then the
copy is marked ready and takes the original's place by two renames (the original goes to
`<name>.swapped`, then is deleted).

A crash at any point leaves a whole shard: `recover` (run before a shard is opened) keeps the
original, or the ready copy where the original had already been moved aside.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

INDEXING = ".indexing"
SWAPPED = ".swapped"
READY = "memhub-index-ready"  # in a copy: it holds every write the original had when it was swapped in
_PR_SET_PDEATHSIG = 1


def copy_of(path: Path) -> Path:
    return path.with_name(path.name + INDEXING)


def swapped(path: Path) -> Path:
    return path.with_name(path.name + SWAPPED)


def recover(path: Path) -> None:
    """Finish or undo a swap that a crash cut short, and delete what it left."""
    copy, old = copy_of(path), swapped(path)
    if not path.exists():
        # Both were whole when the original was moved aside: the copy is the indexed one.
        if (copy / READY).exists():
            copy.rename(path)
        elif old.exists():
            old.rename(path)
        if path.exists():
            fsync_dir(path.parent)
    for leftover in (copy, old):
        shutil.rmtree(leftover, ignore_errors=True)


def mark_ready(copy: Path) -> None:
    with (copy / READY).open("w") as fh:
        fh.flush()
        os.fsync(fh.fileno())
    fsync_dir(copy)


def swap_in(path: Path) -> None:
    """Put the ready copy where the shard at `path` was (both closed), then drop the original."""
    old = swapped(path)
    path.rename(old)
    copy_of(path).rename(path)
    fsync_dir(path.parent)
    shutil.rmtree(old, ignore_errors=True)


def fsync_dir(path: Path) -> None:
    # A rename is durable only once the folder that holds it is on disk.
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def start_build(copy: Path, dimensions: int, *, niceness: int) -> subprocess.Popen[bytes]:
    """Index the shard copied at `copy` in a child process (`main`), which dies with this one."""
    # Not `-m`: the package imports this module before runpy would run it again as __main__, which
    # Python warns of on every build.
    entry = f"import sys; from {__name__} import main; main(sys.argv[1:])"
    command = [sys.executable, "-c", entry, str(copy), str(dimensions), str(niceness), str(os.getpid())]
    return subprocess.Popen(command, stdin=subprocess.DEVNULL)


def main(argv: list[str]) -> None:
    copy, dimensions, niceness, parent = Path(argv[0]), int(argv[1]), int(argv[2]), int(argv[3])
    _die_with(parent)
    os.nice(niceness)
    import qdrant_edge as qe

    from hub.store.edge import stored_config

    shard = qe.EdgeShard.load(str(copy), stored_config(copy, dimensions))
    try:
        shard.optimize()
        shard.flush()
    finally:
        shard.close()


def _die_with(parent: int) -> None:
    # The engine holds the GIL while it indexes, so no thread of this process could watch the parent:
    # the kernel kills it when the parent dies (Linux), `kill -9` included.
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it died before the line above
        os._exit(1)
