"""The memhub client: publish memories to a hub and search them, over HTTP.

Depends on httpx and pydantic only; the hub's models, generated from its OpenAPI document, are in
`memhub_client.models`.
"""

from memhub_client.events import NotAcknowledged
from memhub_client.http import Memhub, MemhubError
from memhub_client.models import Conflict, CoreBlock, EventCreate, EventStatusPublic, Question, SearchHit

__all__ = [
    "Conflict",
    "CoreBlock",
    "EventCreate",
    "EventStatusPublic",
    "Memhub",
    "MemhubError",
    "NotAcknowledged",
    "Question",
    "SearchHit",
]
