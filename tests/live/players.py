"""Accounts, profiles and short matches over a real server's HTTP API and sockets (PROTOCOL.md
"Players: profiles, ratings and archives").

Account names are unique on a server, and a module's server serves all its tests: :func:`named`
gives each test names of its own.
"""

from __future__ import annotations

import itertools

import httpx

from .glicko2 import Glicko
from .server import LiveServer
from .wire import Api, Msg, bearer, open_peer

PASSWORD = "correct horse"
_SERIAL = itertools.count(1)


def named(*names: str) -> list[str]:
    """``names`` made unique on this test run: ``Ann`` becomes ``Ann7``."""
    serial = next(_SERIAL)
    return [f"{name}{serial}" for name in names]


async def account(api: Api, name: str, password: str = PASSWORD) -> str:
    """A guest that saves its name as an account; returns the account's session token."""
    guest = await api.guest(name)
    response = await api.http.post(
        "/api/account", json={"password": password}, headers=bearer(guest)
    )
    assert response.status_code == 201, response.text
    api.http.cookies.clear()
    assert response.json()["player"]["account"] is True
    token: str = response.json()["token"]
    return token


async def login(api: Api, name: str, password: str) -> httpx.Response:
    response = await api.http.post("/api/login", json={"name": name, "password": password})
    api.http.cookies.clear()
    return response


async def who(api: Api, token: str) -> str | int:
    """The name ``token`` is logged in as, or the status code refusing it."""
    response = await api.http.get("/api/session", headers=bearer(token))
    if response.status_code != 200:
        return response.status_code
    name: str = response.json()["player"]["name"]
    return name


async def profile(api: Api, name: str) -> Msg:
    response = await api.http.get(f"/api/players/{name}")
    assert response.status_code == 200, response.text
    body: Msg = response.json()
    return body


async def header(api: Api, match_id: str) -> Msg:
    """The record's header of an ended match: its result, ``rated`` and players."""
    response = await api.http.get(f"/api/matches/{match_id}/record")
    assert response.status_code == 200, response.text
    match: Msg = response.json()["match"]
    return match


async def duel(api: Api, first: str, second: str, **clock: int) -> str:
    """An invitation match of ``first`` (who makes it) against ``second`` (who joins it)."""
    match_id = await api.new_match(first, "invite", **clock)
    joined = await api.join(match_id, second)
    assert joined.json() == {"seat": "second"}, joined.text
    return match_id


async def resign(server: LiveServer, match_id: str, token: str, seat: str | None = None) -> Msg:
    """``token`` resigns over the WebSocket (for ``seat`` on a shared device); returns its final
    view of the match."""
    peer = await open_peer(server, match_id, "resigning", token)
    await peer.until_type("presence")
    await peer.act("resign", **({"seat": seat} if seat else {}))
    view = peer.view
    await peer.close()
    assert view["status"] == "finished", view
    return view


def assert_rating(shown: Msg, expected: Glicko) -> None:
    """A profile's ``rating`` is ``expected`` to within its rounding (0.01)."""
    got = (shown["value"], shown["deviation"], shown["volatility"])
    assert abs(got[0] - expected.value) <= 0.01, (got, expected)
    assert abs(got[1] - expected.deviation) <= 0.01, (got, expected)
    assert abs(got[2] - expected.volatility) <= 0.000001, (got, expected)
    assert shown["provisional"] is (expected.deviation > 110)
