"""The HTTP side of ended matches, through the app in this process: the paginated list, the
record (404 unknown, 409 while live — D4), and what an import refuses."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from spectacular_bid.service.commands import ResignMatch
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings

from .live import bearer, guest, new_match


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[FastAPI]:
    made = create_app(WebSettings(static_dir=tmp_path / "none"), InMemoryStore())
    async with made.router.lifespan_context(made):
        yield made


@pytest.fixture
async def http(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


async def resign(app: FastAPI, match_id: str, token: str) -> None:
    service = app.state.service
    assert isinstance(service, MatchService)
    actor = service.get(match_id)
    player = await service.guests.resolve(token)
    assert player is not None
    await actor.submit(player.id, ResignMatch(), actor.version, service.now_ms())


async def test_records_of_live_and_unknown_matches_are_refused(
    app: FastAPI, http: httpx.AsyncClient
) -> None:
    ann, bo = await guest(http, "Ann"), await guest(http, "Bo")
    match_id = await new_match(http, ann, bo)
    live = await http.get(f"/api/matches/{match_id}/record")
    assert live.status_code == 409
    assert live.json()["error"]["code"] == "wrong_phase"
    assert "public once it ends (D4)" in live.json()["error"]["message"]
    unknown = await http.get("/api/matches/nothing/record")
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "not_found")

    await resign(app, match_id, bo)
    record = await http.get(f"/api/matches/{match_id}/record")
    assert record.status_code == 200
    assert record.headers["content-type"] == "application/json"
    assert record.json()["match"]["winner"] == "first"


async def test_ended_matches_come_page_by_page(app: FastAPI, http: httpx.AsyncClient) -> None:
    ann, bo = await guest(http, "Ann"), await guest(http, "Bo")
    ids = []
    for _ in range(3):
        match_id = await new_match(http, ann, bo)
        await resign(app, match_id, ann)
        ids.append(match_id)
    seen: list[str] = []
    params: dict[str, str | int] = {"limit": 2}
    while True:
        page = (await http.get("/api/matches", params=params)).json()
        seen += [m["id"] for m in page["matches"]]
        if page["next"] is None:
            break
        params = {"limit": 2, "before": page["next"]}
    assert sorted(seen) == sorted(ids)
    assert len(seen) == 3
    aborted = (await http.get("/api/matches", params={"status": "aborted"})).json()
    assert aborted == {"matches": [], "next": None}

    for bad in ({"status": "active"}, {"before": "yesterday"}, {"limit": 0}, {"limit": 101}):
        refused = await http.get("/api/matches", params=bad)
        assert refused.status_code == 422, bad
        assert refused.json()["error"]["code"] == "bad_message"


async def test_an_import_refuses_what_is_not_a_verified_record(http: httpx.AsyncClient) -> None:
    token = await guest(http, "Ann")
    headers = {**bearer(token), "content-type": "application/json"}
    not_json = await http.post("/api/records", content=b"{nope", headers=headers)
    assert not_json.status_code == 422
    assert not_json.json()["error"]["message"].startswith("not JSON")
    other = await http.post("/api/records", json={"format": "x"}, headers=bearer(token))
    assert other.status_code == 422
    assert other.json()["error"]["message"].startswith("not a match record: format")
    huge = await http.post("/api/records", content=b" " * (4 * 1024 * 1024 + 1), headers=headers)
    assert (huge.status_code, huge.json()["error"]["code"]) == (413, "too_large")
