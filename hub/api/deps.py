"""Dependencies of the read API, as `Annotated` aliases."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status

from hub.auth.api_keys import authenticate, token_hash
from hub.auth.principal import Principal
from hub.services import Services


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


def get_principal(request: Request, services: ServicesDep) -> Principal:
    """Who is calling: the owner in single-user mode, else the agent its API key belongs to."""
    settings = services.settings
    if not settings.auth:
        return Principal.owner()
    # The scheme is case-insensitive and one or more spaces may follow it (RFC 9110 11.4); tabs are taken too.
    scheme, _, token = " ".join(request.headers.get("authorization", "").split()).partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "send `Authorization: Bearer <key>`; an admin creates keys with `memhub keys create`",
            headers={"WWW-Authenticate": "Bearer"},
        )
    admin = settings.admin_key
    if admin is not None and hmac.compare_digest(token_hash(token), token_hash(admin.get_secret_value())):
        return Principal.owner()
    api_key = authenticate(services.redis, services.keys, token)
    if api_key is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, "unknown or revoked API key", headers={"WWW-Authenticate": "Bearer"}
        )
    wait = services.rate_limit.retry_after(api_key.id, per_minute=settings.rate_limit_per_minute)
    if wait is not None:
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            f"key {api_key.id} is over {settings.rate_limit_per_minute} requests a minute; retry in {wait} s",
            headers={"Retry-After": str(wait)},
        )
    return Principal(agent=api_key.agent, admin=api_key.admin, grants=api_key.grants, key_id=api_key.id)


CallerDep = Annotated[Principal, Depends(get_principal)]


def require_owner_level(request: Request, caller: CallerDep) -> None:
    """The owner's routes: reading them needs an unrestricted key, and every POST among them changes
    the owner's memory (decides a conflict or a promotion, closes a loop, compacts, replays), so a
    read-only key may not."""
    if request.method in ("GET", "HEAD"):
        caller.require_owner_level()
    else:
        caller.require_owner_write()


def require_admin(caller: CallerDep) -> None:
    caller.require_admin()
