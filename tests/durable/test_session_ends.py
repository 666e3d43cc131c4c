"""A token ended on one server process is ended on all of them (PROTOCOL.md, Identity).

Two real ``specbid serve`` processes on one PostgreSQL database, relaying through the real Redis
(``TEST_REDIS_URL``): a logout, a new password or a guest become an account on the first; on
the second the old token is refused within 1 s over HTTP (401) and over a new WebSocket (one
``unauthorized`` error, then close 4001), and a socket it holds open there is closed with 4001.
A browser's cookie of an ended session is nobody: its socket watches as a spectator.

The servers with Redis trust what they read of a token for a minute here, so that the
announcement alone can make the 1 s. Without Redis the servers hear nothing from each other,
and each one's memory of a token lasts at most ``SPECBID_SESSION_CACHE_MS`` (1 s by default):
the ended token is refused within that.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from .conftest import TEST_DATABASE_URL, Target
from .live import Server, bearer, guest, running_server

REDIS_URL = os.environ.get("TEST_REDIS_URL", "")
WITHIN_S = 1.0
"""How soon every process must refuse an ended token."""
CLOSE_SESSION_ENDED = 4001
PASSWORD = "correct horse"
NEW_PASSWORD = "battery staple"

pytestmark = pytest.mark.parametrize("target", ["postgresql"], indirect=True)


@pytest.fixture
def postgresql() -> None:
    """Asked for before ``target``, so that a machine without PostgreSQL skips (CI fails)."""
    if not TEST_DATABASE_URL:
        if os.environ.get("CI"):
            pytest.fail("TEST_DATABASE_URL is not set: CI must test sessions on PostgreSQL")
        pytest.skip("TEST_DATABASE_URL is not set")


@pytest.fixture
def redis_url(postgresql: None) -> str:
    if not REDIS_URL:
        if os.environ.get("CI"):
            pytest.fail("TEST_REDIS_URL is not set: CI must test sessions on a real Redis")
        pytest.skip("TEST_REDIS_URL is not set")
    return REDIS_URL


async def two_servers(
    stack: AsyncExitStack, target: Target, folder: Path, *flags: str
) -> tuple[Server, Server]:
    first, second = await asyncio.gather(
        stack.enter_async_context(running_server(target, folder / "a", *flags)),
        stack.enter_async_context(running_server(target, folder / "b", *flags)),
    )
    return first, second


def relayed(redis_url: str) -> list[str]:
    """Flags of a server that hears the others' ends over Redis and, for the test, trusts what
    it read of a token for a minute: what it refuses within 1 s, it refuses because it heard."""
    return ["--redis-url", redis_url, "--session-cache-ms", "60000"]


# -- HTTP, tokens in headers only ----------------------------------------------------------------


async def call(
    server: Server, method: str, path: str, token: str | None = None, body: Any = None
) -> httpx.Response:
    headers = bearer(token) if token else {}
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        return await http.request(method, path, headers=headers, json=body)


async def account(server: Server, name: str) -> tuple[str, str]:
    """A guest made an account on ``server``: its guest token (now retired) and its session."""
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        guest_token = await guest(http, name)
    made = await call(server, "POST", "/api/account", guest_token, {"password": PASSWORD})
    assert made.status_code == 201, made.text
    session: str = made.json()["token"]
    return guest_token, session


async def login(server: Server, name: str, password: str = PASSWORD) -> str:
    response = await call(server, "POST", "/api/login", body={"name": name, "password": password})
    assert response.status_code == 200, response.text
    token: str = response.json()["token"]
    return token


async def whoami(server: Server, token: str) -> int:
    return (await call(server, "GET", "/api/session", token)).status_code


async def invitation(server: Server, first: str) -> str:
    """A match on ``server`` with ``first`` in the first seat and a new guest in the second."""
    made = await call(server, "POST", "/api/matches", first, {"mode": "invite"})
    assert made.status_code == 201, made.text
    match_id: str = made.json()["id"]
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        second = await guest(http, "Bo")
    joined = await call(server, "POST", f"/api/matches/{match_id}/join", second)
    assert joined.status_code == 200, joined.text
    return match_id


# -- sockets ------------------------------------------------------------------------------------


@dataclass
class Socket:
    """One match socket: every frame it got, and when and how it closed."""

    ws: ClientConnection
    frames: list[Any] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    closed_at: float | None = None
    reader: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, url: str, **headers: str) -> Socket:
        socket = cls(await connect(url, compression=None, additional_headers=headers))
        socket.reader = asyncio.create_task(socket._read())
        return socket

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for raw in self.ws:
                self.frames.append(json.loads(raw))
                self.arrived.set()
        self.closed_at = time.monotonic()
        self.arrived.set()

    async def first(self) -> Any:
        async with asyncio.timeout(10):
            while not self.frames and self.closed_at is None:
                self.arrived.clear()
                await self.arrived.wait()
        assert self.frames, f"closed with {self.ws.close_code} before any frame"
        return self.frames[0]

    async def close_code(self, within_s: float) -> int | None:
        assert self.reader is not None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within_s):
                await asyncio.shield(self.reader)
        return self.ws.close_code if self.closed_at is not None else None

    async def close(self) -> None:
        await self.ws.close()
        if self.reader is not None:
            await self.reader


async def seated(server: Server, match_id: str, token: str) -> Socket:
    """``token``'s socket on the match, once it shows the token's seat."""
    socket = await Socket.open(server.ws_url(match_id, token))
    state = await socket.first()
    assert state["type"] == "state", state
    assert state["match"]["audience"] == "first", state["match"]["audience"]
    return socket


async def refused_within(server: Server, token: str, ended_at: float) -> float:
    """Wait until ``server`` answers ``token`` 401; how long after ``ended_at`` that was."""
    while (status := await whoami(server, token)) != 401:
        assert status == 200, status
        waited = time.monotonic() - ended_at
        assert waited < WITHIN_S, f"the ended token still answered 200 after {waited:.2f} s"
        await asyncio.sleep(0.02)
    return time.monotonic() - ended_at


async def assert_ended_on(
    server: Server, match_id: str, token: str, ended_at: float, open_socket: Socket | None
) -> None:
    """Everything the brief asks of ``server`` once ``token`` has ended elsewhere."""
    await refused_within(server, token, ended_at)
    if open_socket is not None:
        code = await open_socket.close_code(within_s=WITHIN_S + 0.5)
        assert code == CLOSE_SESSION_ENDED, f"the open socket: close {code}"
        assert open_socket.closed_at is not None
        assert open_socket.closed_at - ended_at < WITHIN_S
    # A new socket presenting the token is refused: one error, then the close.
    again = await Socket.open(server.ws_url(match_id, token))
    error = await again.first()
    assert (error["type"], error["code"]) == ("error", "unauthorized"), error
    assert await again.close_code(within_s=5) == CLOSE_SESSION_ENDED
    # A browser's cookie it cannot clear is nobody: that socket watches.
    cookie = await Socket.open(server.ws_url(match_id), Cookie=f"specbid_token={token}")
    watched = await cookie.first()
    assert (watched["type"], watched["match"]["audience"]) == ("state", "spectator"), watched
    await cookie.close()


# -- the tests ---------------------------------------------------------------------------------


async def test_a_logout_on_one_process_ends_the_session_on_the_other(
    redis_url: str, target: Target, tmp_path: Path
) -> None:
    async with AsyncExitStack() as stack:
        a, b = await two_servers(stack, target, tmp_path, *relayed(redis_url))
        _, session = await account(a, "Ann")
        match_id = await invitation(b, session)
        socket = await seated(b, match_id, session)
        assert await whoami(b, session) == 200  # b knows the session now

        out = await call(a, "POST", "/api/logout", session)
        assert out.status_code == 204, out.text
        await assert_ended_on(b, match_id, session, time.monotonic(), socket)
        assert await whoami(a, session) == 401


async def test_a_new_password_on_one_process_ends_the_other_sessions_everywhere(
    redis_url: str, target: Target, tmp_path: Path
) -> None:
    async with AsyncExitStack() as stack:
        a, b = await two_servers(stack, target, tmp_path, *relayed(redis_url))
        _, kept = await account(a, "Ann")
        stolen = await login(b, "Ann")
        match_id = await invitation(a, stolen)  # run by a: the socket on b is relayed there
        socket = await seated(b, match_id, stolen)
        assert await whoami(b, stolen) == 200

        body = {"current": PASSWORD, "password": NEW_PASSWORD}
        changed = await call(a, "POST", "/api/account/password", kept, body)
        assert changed.status_code == 204, changed.text
        await assert_ended_on(b, match_id, stolen, time.monotonic(), socket)
        # The session that changed the password goes on, here and there.
        assert await whoami(a, kept) == 200
        assert await whoami(b, kept) == 200
        # The ended session changes nothing of the account, even knowing the new password.
        again = {"current": NEW_PASSWORD, "password": "stolen for good"}
        assert (await call(b, "POST", "/api/account/password", stolen, again)).status_code == 401
        made = await call(b, "POST", "/api/matches", stolen, {"mode": "invite"})
        assert made.status_code == 401


async def test_a_guest_become_an_account_on_one_process_ends_its_guest_token_on_the_other(
    redis_url: str, target: Target, tmp_path: Path
) -> None:
    async with AsyncExitStack() as stack:
        a, b = await two_servers(stack, target, tmp_path, *relayed(redis_url))
        async with httpx.AsyncClient(base_url=b.url, timeout=10) as http:
            guest_token = await guest(http, "Ann")
        match_id = await invitation(b, guest_token)
        socket = await seated(b, match_id, guest_token)
        assert await whoami(b, guest_token) == 200

        made = await call(a, "POST", "/api/account", guest_token, {"password": PASSWORD})
        assert made.status_code == 201, made.text
        await assert_ended_on(b, match_id, guest_token, time.monotonic(), socket)
        # The new session is the same player, in the same seat, on either process.
        session = made.json()["token"]
        await (await seated(b, match_id, session)).close()
        await (await seated(a, match_id, session)).close()


async def test_without_redis_a_process_forgets_an_ended_session_within_its_cache_time(
    postgresql: None, target: Target, tmp_path: Path
) -> None:
    """Nothing tells the second process; its memory of the token lapses within 1 s all the
    same. A change to the account re-reads the store at once."""
    async with AsyncExitStack() as stack:
        a, b = await two_servers(stack, target, tmp_path)
        _, kept = await account(a, "Ann")
        stolen = await login(b, "Ann")
        assert await whoami(b, stolen) == 200

        body = {"current": PASSWORD, "password": NEW_PASSWORD}
        changed = await call(a, "POST", "/api/account/password", kept, body)
        assert changed.status_code == 204, changed.text
        ended_at = time.monotonic()
        again = {"current": NEW_PASSWORD, "password": "stolen for good"}
        assert (await call(b, "POST", "/api/account/password", stolen, again)).status_code == 401
        await refused_within(b, stolen, ended_at)
