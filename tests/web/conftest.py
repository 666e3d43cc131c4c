from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from lenient import LENIENT
from service.replayed import stored_matches as stored_matches
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings


@pytest.fixture(autouse=True)
def _no_specbid_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings tests start from the defaults, whatever the shell exports, but for the suite's
    lenient guards (``lenient.py``)."""
    for name in list(os.environ):
        if name.startswith("SPECBID_"):
            monkeypatch.delenv(name)
    for name, value in LENIENT.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def settings(tmp_path: Path) -> WebSettings:
    # No static folder (the browser client is tests/browser's), a predictable deck.
    return WebSettings(static_dir=tmp_path / "no-static", fixed_deck_seed=7, data_dir=tmp_path)


@pytest.fixture
async def app(settings: WebSettings) -> AsyncIterator[FastAPI]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client
