"""Dependencies of the read API, as `Annotated` aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from hub.services import Services


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]
