"""The lobby remembers: its finished list is read from the database, so a server process started
after matches ended lists them, and every process on one database lists the same, with each
match's players, result and ratings moved (docs/PROTOCOL.md "GET /api/lobby")."""

from __future__ import annotations

import asyncio
import json
import math
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from .conftest import Target
from .live import Server, bearer, guest, running_server

JOIN_TIMEOUT_MS = 400


async def account(http: httpx.AsyncClient, name: str) -> str:
    token = await guest(http, name)
    made = await http.post(
        "/api/account", json={"password": "correct horse"}, headers=bearer(token)
    )
    assert made.status_code == 201, made.text
    http.cookies.clear()
    session: str = made.json()["token"]
    return session


async def invitation(http: httpx.AsyncClient, first: str, second: str | None) -> str:
    made = await http.post("/api/matches", json={"mode": "invite"}, headers=bearer(first))
    assert made.status_code == 201, made.text
    match_id: str = made.json()["id"]
    if second is not None:
        joined = await http.post(f"/api/matches/{match_id}/join", headers=bearer(second))
        assert joined.status_code == 200, joined.text
    return match_id


async def resign(server: Server, match_id: str, token: str) -> None:
    """The player of ``token`` gives the match up over its socket (R5.2)."""
    async with connect(server.ws_url(match_id, token)) as ws:
        frame: dict[str, Any] = {}
        while frame.get("type") != "state":
            frame = json.loads(await ws.recv())
        await ws.send(json.dumps({"type": "resign", "version": frame["version"], "id": "r"}))
        while frame.get("type") != "update" or frame["match"]["status"] == "active":
            frame = json.loads(await ws.recv())
        assert frame["match"]["status"] == "finished", frame


async def until_ended(http: httpx.AsyncClient, match_id: str, within_s: float = 15.0) -> None:
    deadline = time.monotonic() + within_s
    while (await http.get(f"/api/matches/{match_id}")).json()["match"]["status"] == "waiting":
        assert time.monotonic() < deadline, f"{match_id} did not end in {within_s} s"
        await asyncio.sleep(0.05)


async def finished_lines(server: Server) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        lobby = await http.get("/api/lobby")
    assert lobby.status_code == 200, lobby.text
    lines: list[dict[str, Any]] = lobby.json()["finished"]
    return lines


async def test_a_fresh_server_lists_the_matches_ended_before_it_started(
    target: Target, tmp_path: Path
) -> None:
    flags = ("--join-timeout-ms", str(JOIN_TIMEOUT_MS))
    async with (
        running_server(target, tmp_path / "before", *flags) as before,
        httpx.AsyncClient(base_url=before.url, timeout=10) as http,
    ):
        ann, bo = await account(http, "Ann"), await account(http, "Bo")
        cy, dee = await guest(http, "Cy"), await guest(http, "Dee")
        rated = await invitation(http, ann, bo)
        await resign(before, rated, bo)  # Ann wins a rated match
        aborted = await invitation(http, cy, None)  # nobody joins (D3)
        await until_ended(http, aborted)
        casual = await invitation(http, cy, dee)
        await resign(before, casual, dee)  # Cy wins against a guest: unrated
        ratings = {
            name: (await http.get(f"/api/players/{name}")).json()["rating"]
            for name in ("Ann", "Bo")
        }

    async with running_server(target, tmp_path / "after") as after:
        lines = await finished_lines(after)
        assert [line["id"] for line in lines] == [casual, aborted, rated]  # newest first
        by_id = {line["id"]: line for line in lines}

        won = by_id[rated]
        assert (won["first"], won["second"], won["winner"], won["reason"], won["rated"]) == (
            "Ann",
            "Bo",
            "first",
            "resignation",
            True,
        )
        assert (won["first_profile"], won["second_profile"]) == ("/@/Ann", "/@/Bo")
        for seat, name in (("first", "Ann"), ("second", "Bo")):
            moved = won[f"{seat}_rating_change"]
            assert math.isclose(moved["after"], ratings[name]["value"], abs_tol=0.01)
        assert won["first_rating_change"]["change"] > 0 > won["second_rating_change"]["change"]

        gone = by_id[aborted]
        assert (gone["status"], gone["winner"], gone["reason"], gone["second"]) == (
            "aborted",
            None,
            "join_timeout",
            None,
        )
        beaten = by_id[casual]
        assert (beaten["winner"], beaten["rated"], beaten["second_rating_change"]) == (
            "first",
            False,
            None,
        )
        async with httpx.AsyncClient(base_url=after.url, timeout=10) as http:
            replay = await http.get(f"/api/matches/{rated}/replay")
            assert replay.status_code == 200, replay.text

        # A second process beside it, on the same database, lists the same.
        async with running_server(target, tmp_path / "beside") as beside:
            assert await finished_lines(beside) == lines
