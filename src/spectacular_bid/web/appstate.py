"""What :func:`~spectacular_bid.web.app.create_app` keeps on ``app.state``, and the dependency
aliases through which routes reach it (FastAPI template: ``Annotated`` dependencies)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from spectacular_bid.service.matches import MatchService
from spectacular_bid.web.settings import WebSettings


def service_of(conn: HTTPConnection) -> MatchService:
    service = conn.app.state.service
    assert isinstance(service, MatchService), "create_app() puts the MatchService on app.state"
    return service


def settings_of(conn: HTTPConnection) -> WebSettings:
    settings = conn.app.state.settings
    assert isinstance(settings, WebSettings), "create_app() puts the WebSettings on app.state"
    return settings


def is_stopping(conn: HTTPConnection) -> bool:
    """True once the app's lifespan is ending and the service is closing its matches."""
    return bool(conn.app.state.stopping)


Service = Annotated[MatchService, Depends(service_of)]
Settings = Annotated[WebSettings, Depends(settings_of)]
