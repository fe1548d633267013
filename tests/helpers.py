"""Running memhub commands as a user would: real processes, real ports."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

import httpx

from hub.store.base import MemoryStore

ROOT = Path(__file__).resolve().parent.parent


T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def alive(pid: int) -> bool:
    """Whether process `pid` runs; one that exited but is not yet reaped (a zombie) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:  # reaped between the two looks
        return False


def memhub_process(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """`memhub ARGS` in its own process, output to `log`."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHUB_")}
    full_env.update(env)
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "hub.cli", *args],
            cwd=ROOT,
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def stop(process: subprocess.Popen[bytes], *, timeout: float = 60, log: Path | None = None) -> int:
    """SIGTERM `process` and return its exit code; one still running after `timeout` is killed and fails the test."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        # Killed, or it would outlive the test and hold its port, data folder and Redis.
        process.kill()
        process.wait()
        said = log.read_text()[-3000:] if log is not None and log.exists() else "(no log)"
        raise AssertionError(
            f"{process.args} still ran {timeout} s after SIGTERM; killed it:\n{said}"
        ) from None


def wait_healthy(base_url: str, process: subprocess.Popen[bytes], log: Path, *, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"memhub exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"memhub not healthy after {timeout} s:\n{log.read_text()[-3000:]}")


def memhub_cli(
    *args: str, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`memhub ARGS` run to its end, as a user types it (with `env` added to this process's); its exit
    code and output."""
    return subprocess.run(
        [sys.executable, "-m", "hub.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


@contextmanager
def memhub_up(
    data_dir: Path, log: Path, env: dict[str, str] | None = None, *, port: int | None = None
) -> Iterator[str]:
    """`memhub up` on `data_dir` in its own process, once healthy; its URL. Leaving stops it (SIGTERM),
    and it must exit 0. The same `port` and `data_dir` again restart the same hub."""
    url = f"http://127.0.0.1:{port or free_port()}"
    hub = memhub_process(
        ["up", "--data-dir", str(data_dir), "--port", url.rpartition(":")[2]], env or {}, log
    )
    try:
        wait_healthy(url, hub, log)
        yield url
    finally:
        assert stop(hub, log=log) == 0, log.read_text()[-3000:]


def at_once(*calls: Callable[[], T]) -> list[T]:
    """Run each call in a thread of its own, all released together; their results, in order."""
    barrier = threading.Barrier(len(calls))
    results: dict[int, T] = {}

    def run(i: int) -> None:
        barrier.wait()
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [results[i] for i in range(len(calls))]


def expire(store: MemoryStore, *memory_ids: str) -> None:
    """Temporary memories whose time is up: expired a second ago, as if their TTL had passed (a short
    TTL would let them expire before the test has read them)."""
    for memory_id in memory_ids:
        store.update(memory_id, {"expires_at": datetime.now(UTC) - timedelta(seconds=1)})
