"""The resident memory of a worker and of the API under a small load: what the pods' requests are sized from.

    python -m benchmarks.footprint [--redis-url redis://127.0.0.1:6379/14] [--events 2000] [--searches 200]

Starts `memhub worker` on an empty embedded store and publishes --events over Redis, sampling the
worker's resident memory until every event is stored and reviewed; then `memhub api` on the store
the worker filled (the embedded store is one process's: the API opens it once the worker is gone),
which answers --searches searches and takes --events / 4 events over HTTP. Prints, for each, the
resident memory once started, its peak (the kernel's high-water mark, VmHWM) and when done.
With a Qdrant server the store's memory is the server's: these are upper bounds for the processes.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from benchmarks.common import benchmark_parser, benchmark_redis, memory_mib
from hub.keys import Keys
from hub.queue import jobs_pending, make_queue
from hub.redis_publisher import RedisPublisher, build_event
from hub.settings import Settings
from memhub_client import Memhub

MIB = 1024 * 1024


def start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "hub.cli", *args],
            env={**os.environ, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def report(name: str, started: float, process: subprocess.Popen[bytes], took: float) -> None:
    now, peak = memory_mib(process.pid)
    print(f"{name}: {started:.0f} MiB started, {peak:.0f} MiB peak, {now:.0f} MiB after ({took:.1f} s)")


def main() -> None:
    parser = benchmark_parser(__doc__)
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--searches", type=int, default=200)
    args = parser.parse_args()
    settings = Settings()
    with benchmark_redis(args.redis_url) as (redis, redis_url), tempfile.TemporaryDirectory() as tmp:
        env = {"MEMHUB_REDIS_URL": redis_url, "MEMHUB_DATA_DIR": tmp, "MEMHUB_WORKER_METRICS_PORT": "0"}
        log = Path(tmp) / "processes.log"
        queues = [make_queue(redis, settings.queue_name), make_queue(redis, settings.background_queue_name)]

        worker = start(["worker"], env, log)
        try:
            while not redis.exists("rq:workers"):  # registered: the model is loaded, the store open
                assert worker.poll() is None, log.read_text()[-2000:]
                time.sleep(0.2)
            started, _ = memory_mib(worker.pid)
            began = time.monotonic()
            publisher = RedisPublisher(redis, agent="footprint", channel="bench")
            texts = [
                f"Note {i}: the {i % 40}th item on the list is due on day {i % 28 + 1}"
                for i in range(args.events)
            ]
            for chunk in range(0, len(texts), 500):
                publisher.publish_many(
                    [build_event(t, agent="footprint", channel="bench") for t in texts[chunk : chunk + 500]]
                )
            idle = 0
            while idle < 5:  # stored, reviewed and scored
                idle = (
                    0 if redis.xlen(Keys(settings.redis_prefix).stream) or jobs_pending(queues) else idle + 1
                )
                time.sleep(0.2)
            report(f"worker, {args.events} events", started, worker, time.monotonic() - began)
        finally:
            worker.terminate()
            worker.wait(60)

        admin = secrets.token_hex(16)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        api = start(["api", "--port", str(port)], {**env, "MEMHUB_ADMIN_KEY": admin}, log)
        try:
            base = f"http://127.0.0.1:{port}"
            while True:
                assert api.poll() is None, log.read_text()[-2000:]
                try:
                    if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                time.sleep(0.2)
            started, _ = memory_mib(api.pid)
            began = time.monotonic()
            with Memhub(base, agent="footprint", api_key=admin) as client:
                for i in range(args.searches):
                    client.search(f"which item is due on day {i % 28 + 1}?")
                for chunk in range(0, args.events // 4, 100):
                    client.publish_many(
                        [
                            build_event(f"Later note {chunk + j}", agent="footprint", channel="bench")
                            for j in range(100)
                        ]
                    )
            report(f"api, {args.searches} searches", started, api, time.monotonic() - began)
        finally:
            api.terminate()
            api.wait(60)


if __name__ == "__main__":
    main()
