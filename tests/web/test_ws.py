"""``/ws/matches/{id}`` through ASGI: connect, commands, errors to the sender only (PROTOCOL.md
"The WebSocket")."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from pydantic import TypeAdapter

from spectacular_bid.service.matches import MatchService
from spectacular_bid.web.app import create_app
from spectacular_bid.web.identity import COOKIE
from spectacular_bid.web.messages import ServerMessage
from spectacular_bid.web.room import Rooms
from spectacular_bid.web.settings import WebSettings

from .asgi_socket import AsgiSocket, Closed
from .guests import bearer, guest, joined_match, new_match

SERVER = TypeAdapter(ServerMessage)


def socket(app: FastAPI, match_id: str, token: str | None = None, **query: str) -> AsgiSocket:
    if token is not None:
        query["token"] = token
    return AsgiSocket(app, f"/ws/matches/{match_id}", query=query)


async def version_of(client: httpx.AsyncClient, match_id: str) -> int:
    version: int = (await client.get(f"/api/matches/{match_id}")).json()["version"]
    return version


async def test_a_player_gets_the_state_then_presence(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    match_id = await joined_match(client, ann, bob)
    async with socket(app, match_id, ann) as ws:
        state = SERVER.validate_json(await ws.receive_text()).root
        assert state.type == "state"
        assert state.version == 1
        assert state.match.audience.value == "first"
        presence = await ws.receive_json()
        assert presence == {
            "type": "presence",
            "version": 1,
            "online": {"first": True, "second": False},
            "spectators": 0,
        }
        await ws.send_json({"type": "ping", "id": "p1"})
        pong = SERVER.validate_json(await ws.receive_text()).root
        assert pong.type == "pong"
        assert (pong.version, pong.id) == (1, "p1")


@pytest.mark.parametrize("how", ["cookie", "bearer", "query"])
async def test_every_way_of_giving_the_token(
    app: FastAPI, client: httpx.AsyncClient, how: str
) -> None:
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    headers: dict[str, str | None] = {"cookie": f"{COOKIE}={ann}"} if how == "cookie" else {}
    headers |= bearer(ann) if how == "bearer" else {}
    query = {"token": ann} if how == "query" else {}
    path = f"/ws/matches/{match_id}"
    async with AsgiSocket(app, path, query=query, headers=headers) as ws:
        assert (await ws.receive_json())["match"]["audience"] == "first"


async def test_a_command_gets_its_update_then_its_ack(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    match_id = await joined_match(client, ann, bob)
    async with socket(app, match_id, ann) as ws, socket(app, match_id) as watcher:
        await ws.receive_until("state")
        await ws.send_json({"type": "start", "version": 1, "id": "s1"})
        update = await ws.receive_until("update")
        assert update["events"] == [{"version": 2, "type": "ready", "seat": "first"}]
        assert await ws.receive_json() == {"type": "ack", "version": 2, "id": "s1"}
        seen = await watcher.receive_until("update")
        assert seen["version"] == 2
        assert seen["match"]["audience"] == "spectator"


async def test_malformed_json_is_a_bad_message_and_the_socket_stays(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    async with socket(app, match_id, ann) as ws:
        await ws.receive_until("presence")
        await ws.send_text('{"type": "draw", "version": ')
        error = SERVER.validate_json(await ws.receive_text()).root
        assert error.type == "error"
        assert error.code.value == "bad_message"
        assert error.message.startswith("not JSON")
        await ws.send_bytes(b'{"type": "ping"}')
        error = await ws.receive_json()
        assert (error["code"], error["message"]) == (
            "bad_message",
            "send JSON in text frames, not binary",
        )
        await ws.send_json({"type": "ping"})
        assert (await ws.receive_json())["type"] == "pong"


async def test_an_unknown_type_is_unknown_type(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    async with socket(app, match_id, ann) as ws:
        await ws.receive_until("presence")
        await ws.send_json({"type": "teleport", "version": 0, "id": "t1"})
        error = await ws.receive_json()
        assert (error["type"], error["code"], error["id"]) == ("error", "unknown_type", "t1")


async def test_a_stale_version_changes_nothing(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    match_id = await joined_match(client, ann, bob)
    async with socket(app, match_id, ann) as ws:
        await ws.receive_until("presence")
        await ws.send_json({"type": "resign", "version": 0, "id": "old"})
        error = await ws.receive_json()
        assert error == {
            "type": "error",
            "version": 1,
            "code": "stale_version",
            "message": "made against version 0, the match is at 1",
            "id": "old",
        }
    assert await version_of(client, match_id) == 1


async def test_a_press_already_in_effect_is_acknowledged_and_changes_nothing(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """Start is a press, never stale (PROTOCOL.md "Client → server"): pressed again, against any
    version, it gets an ack of the version it is already in — and no update, for nothing changed."""
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    match_id = await joined_match(client, ann, bob)
    async with socket(app, match_id, ann) as ws:
        await ws.receive_until("presence")
        await ws.send_json({"type": "start", "version": 1, "id": "s1"})
        assert (await ws.receive_until("update"))["version"] == 2
        assert await ws.receive_json() == {"type": "ack", "version": 2, "id": "s1"}
        for version in (1, 2, 0):
            await ws.send_json({"type": "start", "version": version, "id": f"again-{version}"})
            ack = await ws.receive_json()
            assert ack == {"type": "ack", "version": 2, "id": f"again-{version}"}
    assert await version_of(client, match_id) == 2


async def test_a_spectator_cannot_act(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann, bob, cat = [await guest(client, n) for n in ("Ann", "Bob", "Cat")]
    match_id = await joined_match(client, ann, bob)
    for token in (None, cat):
        async with socket(app, match_id, token) as ws:
            assert (await ws.receive_json())["match"]["audience"] == "spectator"
            await ws.receive_until("presence")
            await ws.send_json({"type": "start", "version": 1, "seat": "first"})
            error = await ws.receive_json()
            assert error["code"] == "not_a_player"
    assert await version_of(client, match_id) == 1


async def test_a_player_may_watch_as_a_spectator(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann, "shared")
    async with socket(app, match_id, ann, **{"as": "spectator"}) as ws:
        state = await ws.receive_json()
        assert (state["match"]["audience"], state["match"]["hand"]) == ("spectator", None)
        await ws.send_json({"type": "start", "version": 0})
        assert (await ws.receive_until("error"))["code"] == "not_a_player"


async def test_reconnecting_with_since_gets_the_missed_events(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    match_id = await joined_match(client, ann, bob)
    async with socket(app, match_id, ann) as ws:
        assert (await ws.receive_json())["version"] == 1
    async with socket(app, match_id, bob) as ws:
        await ws.receive_until("presence")
        await ws.send_json({"type": "start", "version": 1})
        await ws.receive_until("ack")
    async with socket(app, match_id, ann, since="1") as ws:
        missed = SERVER.validate_json(await ws.receive_text()).root
        assert missed.type == "update"
        assert [(e.version, e.type) for e in missed.events] == [(2, "ready")]
        assert missed.match.ready.second
    # Version 1 was stored before the match's room (its first socket) existed; the room's
    # window still holds it, so a client that saw nothing gets every event as one update.
    async with socket(app, match_id, ann, since="0") as ws:
        missed = SERVER.validate_json(await ws.receive_text()).root
        assert missed.type == "update"
        assert [(e.version, e.type) for e in missed.events] == [(1, "seat_taken"), (2, "ready")]
        assert missed.match.ready.second
    # A version the match never reached is a resync: the full state, whose log has it all.
    async with socket(app, match_id, ann, since="9") as ws:
        resync = SERVER.validate_json(await ws.receive_text()).root
        assert resync.type == "state"
        assert [(e.version, e.type) for e in resync.log] == [(1, "seat_taken"), (2, "ready")]


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ({"since": "x"}, "bad_message"),
        ({"since": "²"}, "bad_message"),
        ({"since": "9" * 5000}, "bad_message"),
        ({"as": "king"}, "bad_message"),
        ({"as": "second"}, "not_your_seat"),
    ],
)
async def test_bad_connect_parameters_are_refused(
    app: FastAPI, client: httpx.AsyncClient, query: dict[str, str], code: str
) -> None:
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    async with socket(app, match_id, ann, **query) as ws:
        assert (await ws.receive_json())["code"] == code
        assert (await ws.expect_close()).code == 1008


async def test_an_unknown_match_is_an_error_then_a_close(app: FastAPI) -> None:
    async with socket(app, "nope") as ws:
        error = await ws.receive_json()
        assert (error["code"], error["version"]) == ("not_found", 0)
        assert (await ws.expect_close()).code == 1008


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "http://testserver:8080", "https://testserver.evil", "null"]
)
async def test_a_foreign_origin_is_refused_before_the_handshake(
    app: FastAPI, client: httpx.AsyncClient, origin: str
) -> None:
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    path = f"/ws/matches/{match_id}"
    with pytest.raises(Closed) as refused:
        async with AsgiSocket(app, path, query={"token": ann}, headers={"origin": origin}):
            pass
    assert refused.value.code == 1008


@pytest.fixture
async def strict_app(tmp_path: Path) -> AsyncIterator[FastAPI]:
    settings = WebSettings(
        static_dir=tmp_path,
        allowed_origins=["https://play.example"],
        rate_limit_per_s=0.001,
        rate_burst=2,
        max_message_bytes=256,
        data_dir=tmp_path,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


async def open_match(app: FastAPI) -> tuple[str, str]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        ann = await guest(client, "Ann")
        return ann, await new_match(client, ann)


async def test_an_allowed_origin_and_no_origin_are_accepted(strict_app: FastAPI) -> None:
    _, match_id = await open_match(strict_app)
    path = f"/ws/matches/{match_id}"
    for origin in ("https://play.example", "HTTPS://PLAY.EXAMPLE/", "http://testserver:80", None):
        async with AsgiSocket(strict_app, path, headers={"origin": origin}) as ws:
            assert (await ws.receive_json())["type"] == "state"


async def test_an_oversized_message_is_too_large(strict_app: FastAPI) -> None:
    ann, match_id = await open_match(strict_app)
    async with socket(strict_app, match_id, ann) as ws:
        await ws.receive_until("presence")
        await ws.send_json({"type": "ping", "id": "é" * 60, "pad": "x" * 100})  # 120+ bytes
        error = await ws.receive_json()
        assert (error["code"], error["message"]) == ("too_large", "a message has at most 256 bytes")


async def test_a_flood_is_rate_limited_then_closed(strict_app: FastAPI) -> None:
    ann, match_id = await open_match(strict_app)
    async with socket(strict_app, match_id, ann) as ws:
        await ws.receive_until("presence")
        for _ in range(2):  # the burst
            await ws.send_json({"type": "ping"})
            assert (await ws.receive_json())["type"] == "pong"
        await ws.send_json({"type": "ping"})
        assert (await ws.receive_json())["code"] == "rate_limited"
        for _ in range(2):
            await ws.send_json({"type": "ping"})
        assert (await ws.expect_close()).code == 1008


async def test_a_dropped_socket_is_closed_with_1013(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    service = app.state.service
    assert isinstance(service, MatchService)
    async with socket(app, match_id, ann) as ws:
        await ws.receive_until("presence")
        rooms = app.state.rooms
        assert isinstance(rooms, Rooms)
        (subscriber,) = rooms.room(service.get(match_id)).subscribers
        subscriber.close()  # what the room does to a socket that fell behind
        assert (await ws.expect_close()).code == 1013


async def test_stopping_the_server_closes_sockets_with_1013_at_once(tmp_path: Path) -> None:
    app = create_app(WebSettings(static_dir=tmp_path, data_dir=tmp_path))
    lifespan = app.router.lifespan_context(app)
    await lifespan.__aenter__()
    try:
        ann, match_id = await open_match(app)
        ws = socket(app, match_id, ann)
        await ws.__aenter__()
        await ws.receive_until("presence")
    finally:
        await lifespan.__aexit__(None, None, None)
    assert (await ws.expect_close()).code == 1013  # the client reconnects to the next server
    await asyncio.wait_for(ws.__aexit__(None, None, None), 0.5)
