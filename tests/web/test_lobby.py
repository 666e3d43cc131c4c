"""``/api/lobby``: open challenges, live matches, and the finished list read from the store:
newest first, paged as the archive is, each line with its players, result, ratings moved and
replay (docs/PROTOCOL.md "GET /api/lobby")."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from spectacular_bid.service.commands import ResignMatch, Start
from spectacular_bid.service.matches import MatchService
from spectacular_bid.web.app import create_app
from spectacular_bid.web.routes.lobby import Lobby
from spectacular_bid.web.settings import WebSettings

from .guests import bearer, error_of, guest, joined_match, new_match
from .test_accounts import account

DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"


def ids(lines: list[dict[str, object]]) -> list[object]:
    return [line["id"] for line in lines]


async def resign(app: FastAPI, client: httpx.AsyncClient, match_id: str, token: str) -> None:
    """The player of ``token`` gives the match up (R5.2); a shared-device match is started
    first, as its one player does."""
    service = app.state.service
    assert isinstance(service, MatchService)
    actor = service.get(match_id)
    player = await service.guests.resolve(token) or await app.state.accounts.resolve(token)
    assert player is not None
    if actor.state.mode.value == "shared":
        await actor.submit(player.id, Start(), actor.version, service.now_ms())
    await actor.submit(player.id, ResignMatch(), actor.version, service.now_ms())
    assert actor.state.status.value == "finished"


async def ended_shared(app: FastAPI, client: httpx.AsyncClient, token: str) -> str:
    match_id = await new_match(client, token, "shared")
    await resign(app, client, match_id, token)
    return match_id


async def test_an_empty_lobby(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/lobby")
    assert response.status_code == 200
    assert response.json() == {
        "open_challenges": [],
        "live": [],
        "finished": [],
        "finished_next": None,
        "rematch_offers": [],
        "invitations": [],
        "time_controls": {
            "own": {"bank_ms": 120_000, "delay_ms": 10_000},
            "casual": [
                {"bank_ms": 60_000, "delay_ms": 5_000},
                {"bank_ms": 300_000, "delay_ms": 10_000},
                {"bank_ms": 600_000, "delay_ms": 20_000},
            ],
            "bank_ms_max": 3_600_000,
            "delay_ms_max": 600_000,
        },
    }


async def test_the_lobby_tells_the_servers_own_time_control(settings: WebSettings) -> None:
    """A server started with another control offers that one as its own (R7.1, R7.2), and a
    casual preset equal to it is not offered twice: the client shows what the server says."""
    five = settings.model_copy(update={"bank_ms": 300_000, "delay_ms": 10_000})
    app = create_app(five)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://testserver") as client,
    ):
        controls = (await client.get("/api/lobby")).json()["time_controls"]
    assert controls["own"] == {"bank_ms": 300_000, "delay_ms": 10_000}
    assert controls["casual"] == [
        {"bank_ms": 60_000, "delay_ms": 5_000},
        {"bank_ms": 600_000, "delay_ms": 20_000},
    ]


async def test_matches_move_through_the_lobby(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    open_id = await new_match(client, ann, "open")
    invite_id = await new_match(client, ann, "invite")
    shared_id = await new_match(client, bob, "shared")

    lobby = (await client.get("/api/lobby")).json()
    assert ids(lobby["open_challenges"]) == [open_id]  # an invitation is not listed
    assert ids(lobby["live"]) == [shared_id]
    line = lobby["open_challenges"][0]
    assert line["first"] == "Ann"
    assert line["second"] is None
    assert line["mode"] == "open"
    assert line["status"] == "waiting"

    await client.post(f"/api/matches/{open_id}/join", headers=bearer(bob))
    lobby = (await client.get("/api/lobby")).json()
    assert lobby["open_challenges"] == []
    assert set(ids(lobby["live"])) == {open_id, shared_id}

    await resign(app, client, shared_id, bob)
    lobby = (await client.get("/api/lobby")).json()
    assert ids(lobby["finished"]) == [shared_id]
    ended = lobby["finished"][0]
    assert (ended["status"], ended["reason"]) == ("finished", "resignation")
    assert ended["winner"] in ("first", "second")  # a seat of the device resigned (R5.2)
    assert ended["ended_at_ms"] >= ended["created_at_ms"]  # "finished … ago" counts from here
    assert (ended["replay_url"], ended["record_url"]) == (
        f"/replay/{shared_id}",
        f"/api/matches/{shared_id}/record",
    )
    assert all(m["ended_at_ms"] is None for m in lobby["live"])
    assert invite_id not in ids(lobby["live"]) + ids(lobby["finished"])


async def test_a_new_process_lists_the_matches_ended_before_it(
    settings: WebSettings, app: FastAPI, client: httpx.AsyncClient
) -> None:
    """The finished list is the store's, not the memory of the process that ran the match."""
    bob = await guest(client, "Bob")
    ended = [await ended_shared(app, client, bob) for _ in range(2)]
    later = create_app(settings)  # the same data folder: another process of the same server
    async with later.router.lifespan_context(later):
        transport = httpx.ASGITransport(app=later)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as fresh:
            lobby = (await fresh.get("/api/lobby")).json()
    assert ids(lobby["finished"]) == ended[::-1]
    assert lobby["finished"][0]["first"] == "Bob"
    assert lobby["finished"][0]["first_profile"].startswith("/@/")


async def test_the_finished_list_is_paged_with_the_archives_cursor(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    bob = await guest(client, "Bob")
    ended = [await ended_shared(app, client, bob) for _ in range(12)]
    newest_first = ended[::-1]
    lobby = (await client.get("/api/lobby")).json()
    size = len(lobby["finished"])
    assert 0 < size < len(ended)  # a page, not everything
    assert ids(lobby["finished"]) == newest_first[:size]
    cursor = lobby["finished_next"]
    assert isinstance(cursor, str)

    more = await client.get("/api/lobby/finished", params={"before": cursor})
    assert more.status_code == 200, more.text
    page = more.json()
    assert (ids(page["matches"]), page["next"]) == (newest_first[size:], None)
    assert page["matches"][0].keys() == lobby["finished"][0].keys()  # the same lines
    archive = (await client.get("/api/matches", params={"before": cursor})).json()
    assert ids(archive["matches"]) == ids(page["matches"])  # the same cursor as the archive

    small = (await client.get("/api/lobby/finished", params={"limit": 5})).json()
    assert ids(small["matches"]) == newest_first[:5]
    rest = (await client.get("/api/lobby/finished", params={"before": small["next"]})).json()
    assert ids(rest["matches"]) == newest_first[5 : 5 + size]

    for bad in ({"before": "yesterday"}, {"limit": 0}, {"limit": 101}):
        refused = await client.get("/api/lobby/finished", params=bad)
        assert refused.status_code == 422, bad
        assert error_of(refused)["code"] == "bad_message"


async def test_a_rated_line_shows_the_ratings_it_moved_and_others_none(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bo, cy = (
        await account(client, "Ann"),
        await account(client, "Bo"),
        await guest(client, "Cy"),
    )
    rated = await joined_match(client, ann, bo)
    await resign(app, client, rated, bo)  # Ann wins
    casual = await joined_match(client, ann, cy)
    await resign(app, client, casual, ann)  # a guest's match: no rating moves
    lobby = (await client.get("/api/lobby")).json()
    lines = {line["id"]: line for line in lobby["finished"]}

    line = lines[rated]
    assert (line["rated"], line["winner"], line["reason"]) == (True, "first", "resignation")
    assert (line["first_profile"], line["second_profile"]) == ("/@/Ann", "/@/Bo")
    for seat, name in (("first", "Ann"), ("second", "Bo")):
        moved = line[f"{seat}_rating_change"]
        now = (await client.get(f"/api/players/{name}")).json()["rating"]
        assert moved["before"] == 1500.0  # both were newcomers
        assert math.isclose(moved["after"], now["value"], abs_tol=0.01)
        assert moved["change"] == round(moved["after"]) - round(moved["before"])
    assert line["first_rating_change"]["change"] > 0 > line["second_rating_change"]["change"]

    other = lines[casual]
    assert (other["rated"], other["winner"]) == (False, "second")
    assert other["first_rating_change"] is other["second_rating_change"] is None


async def test_a_lobby_line_is_made_again_only_when_its_match_changed(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    bob = await guest(client, "Bob")
    shared_id = await new_match(client, bob, "shared")
    service = app.state.service
    assert isinstance(service, MatchService)
    (before,) = service.live_matches()
    assert service.live_matches()[0] is before  # nothing changed: the same line
    await resign(app, client, shared_id, bob)
    assert service.live_matches() == []


def test_the_protocols_lobby_example_is_a_lobby() -> None:
    """The example under "GET /api/lobby" in docs/PROTOCOL.md is what the server sends."""
    doc = DOC.read_text(encoding="utf-8")
    section = doc.split("### `GET /api/lobby`", 1)[1].split("\n### ", 1)[0]
    blocks = re.findall(r"```json\n(.*?)```", section, re.DOTALL)
    examples: list[Any] = [json.loads(block) for block in blocks]
    lobby = next(e for e in examples if "open_challenges" in e)
    assert Lobby.model_validate(lobby).finished, "the example shows a finished line"
