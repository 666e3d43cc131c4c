"""A rematch asked for from the archive ("find it in their history a day later and ask
for a rematch"): the ended match is no longer in memory, nobody is on its page, and the opponent
finds the offer in its own lobby, where it accepts or declines it; nobody else sees it. An offer
made while the match was in memory stands on when the match leaves memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from spectacular_bid.service.rematches import OFFER_MS, Rematches
from spectacular_bid.service.replay import Rebuilt
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings
from waiting import until

from .asgi_socket import AsgiSocket
from .guests import bearer, guest, joined_match
from .served import service_of

TTL_MS = 300
"""How long an ended match stays in memory in these tests."""


@pytest.fixture
async def app(settings: WebSettings) -> AsyncIterator[FastAPI]:
    app = create_app(settings.model_copy(update={"finished_ttl_ms": TTL_MS}))
    async with app.router.lifespan_context(app):
        yield app


async def resigned(app: FastAPI, client: httpx.AsyncClient, ann: str, bo: str) -> str:
    """A match of Ann (first) and Bo (second) that Bo resigned, still in memory."""
    match_id = await joined_match(client, ann, bo)
    async with AsgiSocket(app, f"/ws/matches/{match_id}", query={"token": bo}) as ws:
        state = await ws.receive_until("state")
        await ws.send_json({"type": "resign", "version": state["version"], "id": "r"})
        assert (await ws.receive_until("update"))["match"]["status"] == "finished"
    return match_id


async def archived(app: FastAPI, client: httpx.AsyncClient, ann: str, bo: str) -> str:
    [match_id] = await archived_many(app, client, ann, bo, 1)
    return match_id


async def archived_many(
    app: FastAPI, client: httpx.AsyncClient, ann: str, bo: str, count: int
) -> list[str]:
    """``count`` resigned matches of Ann and Bo, all of them left memory."""
    ids = [await resigned(app, client, ann, bo) for _ in range(count)]
    service = service_of(app)
    await until(lambda: not any(service.holds(i) for i in ids), what="left memory")
    for match_id in ids:
        assert isinstance(await service_of(app).find(match_id), Rebuilt)
    return ids


async def offers(client: httpx.AsyncClient, token: str | None) -> list[dict[str, Any]]:
    headers = bearer(token) if token is not None else {}
    found: list[dict[str, Any]] = (await client.get("/api/lobby", headers=headers)).json()[
        "rematch_offers"
    ]
    return found


async def test_the_opponent_finds_an_archive_offer_in_its_lobby_and_accepts_it(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bo, cy = await guest(client, "Ann"), await guest(client, "Bo"), await guest(client, "Cy")
    match_id = await archived(app, client, ann, bo)
    version = (await client.get(f"/api/matches/{match_id}")).json()["version"]
    offered = await client.post(f"/api/matches/{match_id}/rematch", headers=bearer(ann))
    assert offered.status_code == 200, offered.text
    assert (offered.json()["offered_by"], offered.json()["match_id"]) == ("first", None)
    [line] = await offers(client, bo)
    assert line["match_id"] == match_id
    assert (line["by"], line["by_rating"], line["bank_ms"], line["delay_ms"]) == (
        "Ann",
        None,  # a guest
        120_000,
        10_000,
    )
    assert line["by_profile"].startswith("/@/")
    assert 0 < line["expires_in_ms"] <= OFFER_MS
    assert await offers(client, ann) == []  # one's own offer is not offered to oneself
    assert await offers(client, cy) == []
    assert await offers(client, None) == []
    accepted = await client.post(f"/api/matches/{match_id}/rematch", headers=bearer(bo))
    new_id = accepted.json()["match_id"]
    assert new_id is not None
    view = (await client.get(f"/api/matches/{new_id}")).json()["match"]
    names = (view["players"]["first"]["name"], view["players"]["second"]["name"])
    assert (view["status"], names) == ("active", ("Bo", "Ann"))  # the seats swapped
    assert await offers(client, bo) == []
    read = (await client.get(f"/api/matches/{match_id}/rematch")).json()
    assert read["match_id"] == new_id  # the offering page is taken there when it reads
    assert (await client.get(f"/api/matches/{match_id}")).json()["version"] == version


async def test_a_declined_or_lapsed_archive_offer_leaves_the_lobby(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bo = await guest(client, "Ann"), await guest(client, "Bo")
    match_id, other_id = await archived_many(app, client, ann, bo, 2)
    await client.post(f"/api/matches/{match_id}/rematch", headers=bearer(bo))
    assert [o["by"] for o in await offers(client, ann)] == ["Bo"]
    declined = await client.delete(f"/api/matches/{match_id}/rematch", headers=bearer(ann))
    assert declined.json() == {"offered_by": None, "expires_in_ms": None, "match_id": None}
    assert await offers(client, ann) == []
    now = [0]
    service_of(app).rematches = Rematches(lambda: now[0])
    url = f"/api/matches/{match_id}/rematch"
    await client.post(url, headers=bearer(bo))
    for now[0] in range(0, OFFER_MS, 10_000):  # Bo's page reads it: Bo is still there
        await client.get(url, headers=bearer(bo))
    now[0] = OFFER_MS - 1
    assert len(await offers(client, ann)) == 1
    now[0] = OFFER_MS
    assert await offers(client, ann) == []
    other = await client.post(f"/api/matches/{other_id}/rematch", headers=bearer(ann))
    assert (other.json()["offered_by"], other.json()["match_id"]) == ("first", None)
    assert len(service_of(app).rematches) == 1  # the lapsed offer is not kept for ever


async def test_an_offer_stands_on_when_the_match_leaves_memory(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bo = await guest(client, "Ann"), await guest(client, "Bo")
    match_id = await joined_match(client, ann, bo)
    path = f"/ws/matches/{match_id}"
    async with (
        AsgiSocket(app, path, query={"token": ann}) as ann_ws,
        AsgiSocket(app, path, query={"token": bo}) as bo_ws,
    ):
        state = await bo_ws.receive_until("state")
        await bo_ws.send_json({"type": "resign", "version": state["version"], "id": "r"})
        await bo_ws.receive_until("update")
        await client.post(f"/api/matches/{match_id}/rematch", headers=bearer(ann))
        assert (await ann_ws.receive_until("rematch"))["offered_by"] == "first"
        # The match leaves memory; its sockets close.
        await until(lambda: not service_of(app).holds(match_id), what="left memory")
    assert isinstance(await service_of(app).find(match_id), Rebuilt)
    read = (await client.get(f"/api/matches/{match_id}/rematch")).json()
    assert read["offered_by"] == "first"
    assert [o["by"] for o in await offers(client, bo)] == ["Ann"]
