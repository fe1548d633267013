"""memhub client SDKs: publish memories and search them, over HTTP or straight to Redis."""

from clients.events import NotAcknowledged
from clients.http import Memhub, MemhubError
from clients.redis_publisher import RedisPublisher

__all__ = ["Memhub", "MemhubError", "NotAcknowledged", "RedisPublisher"]
