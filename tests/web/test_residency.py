"""A finished match leaves memory soon once nobody has it open (a one-hour run kept
every ended match for its full five minutes, ~1,500 of them at 2,000 live matches, and grew the
server by 160 MB). While a socket has it open it stays its full time: a player on its page still
sees a rematch offer or the opponent leave at once. Once gone it is read from its record."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from spectacular_bid.service.replay import Rebuilt
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings
from waiting import until

from .asgi_socket import AsgiSocket
from .guests import bearer, guest, joined_match, new_match
from .served import service_of

IDLE_MS = 150
"""The grace of an ended match nobody has open, in these tests."""
WAIT_S = 4 * IDLE_MS / 1000


@pytest.fixture
async def app(settings: WebSettings) -> AsyncIterator[FastAPI]:
    update = {"finished_ttl_ms": 600_000, "idle_ttl_ms": IDLE_MS, "join_timeout_ms": 300}
    app = create_app(settings.model_copy(update=update))
    async with app.router.lifespan_context(app):
        yield app


async def resigned(app: FastAPI, client: httpx.AsyncClient) -> tuple[str, str, str]:
    """A match of Ann (first) and Bo (second) that Bo resigned and closed: its id and the
    players' tokens."""
    ann, bo = await guest(client, "Ann"), await guest(client, "Bo")
    match_id = await joined_match(client, ann, bo)
    async with AsgiSocket(app, f"/ws/matches/{match_id}", query={"token": bo}) as ws:
        state = await ws.receive_until("state")
        await ws.send_json({"type": "resign", "version": state["version"], "id": "r"})
        assert (await ws.receive_until("update"))["match"]["status"] == "finished"
    return match_id, ann, bo


async def test_an_ended_match_whose_last_socket_closed_leaves_memory_after_the_grace(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    match_id, ann, _ = await resigned(app, client)
    service = service_of(app)
    assert service.holds(match_id)  # a reload right away finds the same match
    await until(lambda: not service.holds(match_id), what="left memory")
    assert isinstance(await service.find(match_id), Rebuilt)
    response = await client.get(f"/api/matches/{match_id}", headers=bearer(ann))
    assert response.json()["match"]["status"] == "finished"


async def test_an_ended_match_someone_has_open_stays_in_memory(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bo = await guest(client, "Ann"), await guest(client, "Bo")
    match_id = await joined_match(client, ann, bo)
    async with AsgiSocket(app, f"/ws/matches/{match_id}", query={"token": ann}) as watching:
        await watching.receive_until("state")
        async with AsgiSocket(app, f"/ws/matches/{match_id}", query={"token": bo}) as ws:
            state = await ws.receive_until("state")
            await ws.send_json({"type": "resign", "version": state["version"], "id": "r"})
            await ws.receive_until("update")
        await asyncio.sleep(WAIT_S)  # the time under test: the grace passes, the socket holds it
        assert service_of(app).holds(match_id)
    await until(lambda: not service_of(app).holds(match_id), what="left memory")


async def test_a_socket_opened_again_within_the_grace_gives_back_the_full_time(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    match_id, _, bo = await resigned(app, client)
    async with AsgiSocket(app, f"/ws/matches/{match_id}", query={"token": bo}) as again:
        state = await again.receive_until("state")
        assert state["match"]["status"] == "finished"
        await asyncio.sleep(WAIT_S)  # the time under test: the grace passes, the socket holds it
        assert service_of(app).holds(match_id)
    await until(lambda: not service_of(app).holds(match_id), what="left memory")


async def test_a_match_that_ends_after_its_last_socket_closed_leaves_memory_after_the_grace(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """Its room is there, empty, when its final version comes (here the join timeout, D3)."""
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann, mode="open")
    async with AsgiSocket(app, f"/ws/matches/{match_id}", query={"token": ann}) as ws:
        await ws.receive_until("state")
    service = service_of(app)
    assert service.get(match_id).is_live
    # The join timeout ends it, then the grace runs out.
    await until(lambda: not service.holds(match_id), what="left memory")
    ended = await service.find(match_id)
    assert isinstance(ended, Rebuilt)
    assert ended.state.status.value == "aborted"
