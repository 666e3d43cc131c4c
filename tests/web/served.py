"""What an app under test serves with, for tests that look behind its routes."""

from __future__ import annotations

from fastapi import FastAPI

from spectacular_bid.service.matches import MatchService


def service_of(app: FastAPI) -> MatchService:
    service = app.state.service
    assert isinstance(service, MatchService)
    return service
