"""API keys: bound to one agent, stored hashed in Redis, each with its grants.

A key is `mh_<id>_<secret>` with 32 random bytes of secret, so a plain SHA-256 of it is safe to store
(there is nothing to brute-force that a slow hash would protect); only the hash is kept.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from datetime import datetime

from pydantic import BaseModel, Field
from redis import Redis

from hub.connections import as_text
from hub.keys import Keys
from hub.models import Scope, utcnow

ANY = "*"


class Grants(BaseModel):
    """What a key may read and write. `*` means any."""

    scopes: list[Scope] = Field(default_factory=lambda: list(Scope))
    projects: list[str] = Field(default_factory=lambda: [ANY])
    persons: list[str] = Field(default_factory=lambda: [ANY])
    channels: list[str] = Field(
        default_factory=lambda: [ANY], description="Channels it may publish and ask from."
    )
    read: bool = True
    write: bool = True

    @property
    def unrestricted(self) -> bool:
        """Sees everything the owner sees: may use the owner-level routes (ledger, promotions, pages)."""
        return (
            set(self.scopes) == set(Scope) and self.projects == [ANY] and self.persons == [ANY] and self.read
        )

    def readable_projects(self) -> frozenset[str] | None:
        """The projects it may read and write; None: any."""
        return None if ANY in self.projects else frozenset(self.projects)

    def readable_persons(self) -> frozenset[str] | None:
        """The persons it may read and write about; None: any."""
        return None if ANY in self.persons else frozenset(self.persons)

    def allows_project(self, project: str | None) -> bool:
        return project is None or (granted := self.readable_projects()) is None or project in granted

    def allows_person(self, person: str | None) -> bool:
        return person is None or (granted := self.readable_persons()) is None or person in granted

    def allows_channel(self, channel: str | None) -> bool:
        return ANY in self.channels or (channel is not None and channel in self.channels)


class ApiKey(BaseModel):
    id: str
    agent: str
    admin: bool = False
    grants: Grants = Field(default_factory=Grants)
    created_at: datetime
    revoked_at: datetime | None = None
    key_hash: str = Field(exclude=True, repr=False)


class ApiKeyPublic(BaseModel):
    id: str
    agent: str
    admin: bool
    grants: Grants
    created_at: datetime
    revoked_at: datetime | None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_key(
    redis: Redis, keys: Keys, *, agent: str, grants: Grants, admin: bool = False
) -> tuple[ApiKey, str]:
    """A new key for `agent`; the token is returned once and never stored."""
    key_id = secrets.token_hex(6)
    token = f"mh_{key_id}_{secrets.token_urlsafe(32)}"
    api_key = ApiKey(
        id=key_id, agent=agent, admin=admin, grants=grants, created_at=utcnow(), key_hash=token_hash(token)
    )
    pipe = redis.pipeline(transaction=True)
    pipe.set(keys.api_key(key_id), _dump(api_key))
    pipe.set(keys.api_key_by_hash(api_key.key_hash), key_id)
    pipe.sadd(keys.api_keys, key_id)
    pipe.execute()
    return api_key, token


def _dump(api_key: ApiKey) -> str:
    """The stored document: the public fields plus the hash, which serialising otherwise leaves out."""
    data = api_key.model_dump(mode="json")
    data["key_hash"] = api_key.key_hash
    return json.dumps(data)


def get_key(redis: Redis, keys: Keys, key_id: str) -> ApiKey | None:
    raw = redis.get(keys.api_key(key_id))
    return ApiKey.model_validate_json(raw) if raw else None


def list_keys(redis: Redis, keys: Keys) -> list[ApiKey]:
    ids = sorted(as_text(i) for i in redis.smembers(keys.api_keys))
    found = [get_key(redis, keys, i) for i in ids]
    return [k for k in found if k is not None]


def revoke_key(redis: Redis, keys: Keys, key_id: str) -> ApiKey | None:
    api_key = get_key(redis, keys, key_id)
    if api_key is None:
        return None
    if api_key.revoked_at is None:
        api_key.revoked_at = utcnow()
        pipe = redis.pipeline(transaction=True)
        pipe.set(keys.api_key(key_id), _dump(api_key))
        pipe.delete(keys.api_key_by_hash(api_key.key_hash))
        pipe.execute()
    return api_key


def authenticate(redis: Redis, keys: Keys, token: str) -> ApiKey | None:
    """The live key this token belongs to, or None."""
    digest = token_hash(token)
    key_id = redis.get(keys.api_key_by_hash(digest))
    if key_id is None:
        return None
    api_key = get_key(redis, keys, as_text(key_id))
    if api_key is None or api_key.revoked_at is not None or not hmac.compare_digest(api_key.key_hash, digest):
        return None
    return api_key
