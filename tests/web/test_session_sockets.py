"""Match sockets and the end of their token (docs/PROTOCOL.md, close code 4001), in one process:
a token presented that names no one is refused; an open socket is closed when its token ends;
after a gap in the announcements of ends, the tokens of open sockets are read again."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from spectacular_bid.service.accounts import Accounts
from spectacular_bid.service.guests import token_hash
from spectacular_bid.service.ports import MatchStore
from spectacular_bid.web.identity import COOKIE

from .asgi_socket import AsgiSocket
from .guests import bearer, guest, new_match

SESSION_ENDED = 4001


async def account(client: httpx.AsyncClient, name: str) -> str:
    token = await guest(client, name)
    made = await client.post(
        "/api/account", json={"password": "correct horse"}, headers=bearer(token)
    )
    assert made.status_code == 201, made.text
    client.cookies.clear()
    session: str = made.json()["token"]
    return session


def seat_socket(app: FastAPI, match_id: str, token: str) -> AsgiSocket:
    return AsgiSocket(app, f"/ws/matches/{match_id}", query={"token": token})


@pytest.mark.parametrize("how", ["bearer", "query"])
async def test_a_token_presented_that_names_no_one_is_refused(
    app: FastAPI, client: httpx.AsyncClient, how: str
) -> None:
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    nobody = "x" * 43
    headers: dict[str, str | None] = dict(bearer(nobody)) if how == "bearer" else {}
    query = {"token": nobody} if how == "query" else {}
    async with AsgiSocket(app, f"/ws/matches/{match_id}", query=query, headers=headers) as ws:
        error = await ws.receive_json()
        assert (error["type"], error["code"], error["version"]) == ("error", "unauthorized", 0)
        closed = await ws.expect_close()
        assert (closed.code, closed.reason) == (SESSION_ENDED, "session ended")


async def test_a_cookie_that_names_no_one_watches(app: FastAPI, client: httpx.AsyncClient) -> None:
    """A page can neither read nor clear its HttpOnly cookie: it is nobody, not refused."""
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    headers: dict[str, str | None] = {"cookie": f"{COOKIE}={'x' * 43}"}
    async with AsgiSocket(app, f"/ws/matches/{match_id}", headers=headers) as ws:
        assert (await ws.receive_json())["match"]["audience"] == "spectator"


async def test_a_logout_closes_the_sessions_open_sockets_only(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    first = await account(client, "Ann")
    second = (
        await client.post("/api/login", json={"name": "Ann", "password": "correct horse"})
    ).json()["token"]
    client.cookies.clear()
    match_id = await new_match(client, first)
    async with seat_socket(app, match_id, first) as kept, seat_socket(app, match_id, second) as out:
        assert (await kept.receive_json())["match"]["audience"] == "first"
        assert (await out.receive_json())["match"]["audience"] == "first"
        assert (await client.post("/api/logout", headers=bearer(second))).status_code == 204
        closed = await out.expect_close()
        assert closed.code == SESSION_ENDED
        await kept.send_json({"type": "ping", "id": "p1"})
        assert (await kept.receive_until("pong"))["id"] == "p1"


async def test_after_a_gap_the_open_sockets_tokens_are_read_again(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """An end this process never heard of (the bus lost it): once the bus is back, the sockets
    of tokens the store no longer holds are closed, and the others stay."""
    first = await account(client, "Ann")
    second = (
        await client.post("/api/login", json={"name": "Ann", "password": "correct horse"})
    ).json()["token"]
    client.cookies.clear()
    bo = await guest(client, "Bo")
    match_id = await new_match(client, first)
    assert (await client.post(f"/api/matches/{match_id}/join", headers=bearer(bo))).is_success
    store: MatchStore = app.state.store
    accounts: Accounts = app.state.accounts
    async with (
        seat_socket(app, match_id, first) as kept,
        seat_socket(app, match_id, second) as ended,
        seat_socket(app, match_id, bo) as guest_socket,
    ):
        for ws in (kept, ended, guest_socket):
            await ws.receive_until("state")
        await store.end_session(token_hash(second))  # as another process does, unheard
        accounts.ends.gap()
        assert (await ended.expect_close()).code == SESSION_ENDED
        for ws, id_ in ((kept, "k"), (guest_socket, "g")):
            await ws.send_json({"type": "ping", "id": id_})
            assert (await ws.receive_until("pong"))["id"] == id_
