"""Managing API keys (admin key only): create, list, revoke."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, status
from pydantic import BaseModel, ConfigDict, Field

from hub.api.deps import ServicesDep
from hub.api.schemas import ErrorBody, Name
from hub.auth.api_keys import ApiKeyPublic, Grants, create_key, list_keys, revoke_key

router = APIRouter(prefix="/v1/keys", tags=["keys"])


class KeyCreate(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"agent": "wa-assistant", "grants": {"channels": ["whatsapp"], "projects": ["kitchen"]}},
                {"agent": "backup", "grants": {"write": False}},
            ]
        }
    )

    agent: Name
    grants: Grants = Field(default_factory=Grants)
    admin: bool = False


class KeyCreated(BaseModel):
    key: ApiKeyPublic
    token: str = Field(description="The secret itself: shown once, stored only as a hash.")


class KeyList(BaseModel):
    keys: list[ApiKeyPublic]


def _public(api_key: object) -> ApiKeyPublic:
    return ApiKeyPublic.model_validate(api_key, from_attributes=True)


@router.post("", summary="Create an API key", response_model=KeyCreated, status_code=status.HTTP_201_CREATED)
def create(body: KeyCreate, services: ServicesDep) -> KeyCreated:
    """A key bound to one agent, with its grants."""
    api_key, token = create_key(
        services.redis, services.keys, agent=body.agent, grants=body.grants, admin=body.admin
    )
    return KeyCreated(key=_public(api_key), token=token)


@router.get("", summary="List API keys", response_model=KeyList)
def list_all(services: ServicesDep) -> KeyList:
    """Every key, revoked ones included, with its agent and grants; never the secret."""
    return KeyList(keys=[_public(k) for k in list_keys(services.redis, services.keys)])


@router.delete(
    "/{key_id}",
    summary="Revoke an API key",
    response_model=ApiKeyPublic,
    responses={404: {"model": ErrorBody}},
)
def revoke(key_id: str, services: ServicesDep) -> ApiKeyPublic:
    """From now on the key gets 401; it stays listed, with when it was revoked."""
    revoked = revoke_key(services.redis, services.keys, key_id)
    if revoked is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no key with id {key_id!r}")
    return _public(revoked)
