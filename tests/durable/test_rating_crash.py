"""Kill -9 during a match between two accounts (D5, PROTOCOL.md "Players: profiles, ratings and
archives"): the server started again on the same database ends the match aborted — timing failure,
unrated — and neither player's rating, wins, losses or rating history moves."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from .conftest import Target
from .live import Server, bearer, guest, new_match, running_server

JSON = Any


async def account(http: httpx.AsyncClient, name: str) -> str:
    token = await guest(http, name)
    made = await http.post(
        "/api/account", json={"password": "correct horse"}, headers=bearer(token)
    )
    assert made.status_code == 201, made.text
    http.cookies.clear()
    session: str = made.json()["token"]
    return session


async def receive_until(
    ws: ClientConnection, wanted: str, condition: Callable[[JSON], bool] = lambda _: True
) -> JSON:
    """The first ``wanted`` message whose match view meets ``condition``."""
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == wanted and condition(message["match"]):
            return message


async def resign(server: Server, match_id: str, token: str) -> None:
    async with connect(server.ws_url(match_id, token)) as ws:
        state = await receive_until(ws, "state")
        await ws.send(json.dumps({"type": "resign", "version": state["version"]}))
        await receive_until(ws, "update", lambda m: m["status"] == "finished")


async def profiles(http: httpx.AsyncClient) -> dict[str, JSON]:
    return {name: (await http.get(f"/api/players/{name}")).json() for name in ("Ann", "Bo")}


async def test_a_killed_server_aborts_a_match_of_two_accounts_and_moves_no_rating(
    target: Target, tmp_path: Path
) -> None:
    async with (
        running_server(target, tmp_path / "killed") as server,
        httpx.AsyncClient(base_url=server.url, timeout=10) as http,
    ):
        ann, bo = await account(http, "Ann"), await account(http, "Bo")
        rated = await new_match(http, ann, bo)
        await resign(server, rated, bo)  # ratings of their own, not a newcomer's
        before = await profiles(http)
        assert before["Ann"]["ratings"][0]["match_id"] == rated
        match_id = await new_match(http, ann, bo)
        async with (
            connect(server.ws_url(match_id, ann)) as first,
            connect(server.ws_url(match_id, bo)) as second,
        ):
            for ws in (first, second):
                state = await receive_until(ws, "state")
                await ws.send(json.dumps({"type": "start", "version": state["version"]}))
            for ws in (first, second):  # the round is dealt and a decision's clock runs
                await receive_until(ws, "update", lambda m: m["clock"]["running"] is not None)
            server.kill()

    async with (
        running_server(target, tmp_path / "restarted", "--no-upgrade") as again,
        httpx.AsyncClient(base_url=again.url) as http,
    ):
        view = (await http.get(f"/api/matches/{match_id}")).json()["match"]
        assert (view["status"], view["result"]) == (
            "aborted",
            {"winner": None, "reason": "timing_failure"},
        )
        header = (await http.get(f"/api/matches/{match_id}/record")).json()["match"]
        assert (header["status"], header["reason"], header["rated"]) == (
            "aborted",
            "timing_failure",
            False,
        )
        assert header["players"]["first"] == {"name": "Ann", "account": True}
        assert await profiles(http) == before
