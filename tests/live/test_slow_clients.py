"""Connections that never finish arriving, and sockets that stop answering (PROTOCOL.md "Limits and
close codes"), on a real server: each is closed after its timeout, and the server keeps taking new
handshakes."""

from __future__ import annotations

import asyncio
import resource
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from spectacular_bid.cli.serve import raise_descriptor_limit

from .server import LiveServer, serve

TIMEOUT_S = 1.0
PING_S = 0.5


@pytest.fixture(scope="module")
def impatient_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from serve(
        tmp_path_factory.mktemp("impatient-server"),
        "--handshake-timeout-s",
        str(TIMEOUT_S),
        env={"SPECBID_WS_PING_INTERVAL_S": str(PING_S), "SPECBID_WS_PING_TIMEOUT_S": str(PING_S)},
    )


def open_raw(server: LiveServer, data: bytes) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    if data:
        conn.sendall(data)
    return conn


def seconds_until_closed(conn: socket.socket) -> float:
    """How long until the server closes ``conn`` (reading and dropping what it sends)."""
    started = time.monotonic()
    with conn:
        while conn.recv(4096):
            pass
    return time.monotonic() - started


def upgrade_head(server: LiveServer, match_id: str) -> bytes:
    return (
        f"GET /ws/matches/{match_id} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
    ).encode()


@pytest.mark.parametrize(
    "sent",
    [
        b"",
        b"GET /api/lobby HTTP/1.1\r\nHost: x\r\n",
        b"POST /api/session HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{",
        "upgrade",
    ],
    ids=["silent", "half-sent headers", "half-sent body", "half-sent upgrade"],
)
def test_an_unfinished_request_is_closed_after_the_timeout(
    impatient_server: LiveServer, sent: bytes | str
) -> None:
    data = upgrade_head(impatient_server, "x")[:-2] if sent == "upgrade" else sent
    assert isinstance(data, bytes)
    took = seconds_until_closed(open_raw(impatient_server, data))
    assert TIMEOUT_S * 0.9 <= took < TIMEOUT_S + 3


def test_many_slow_clients_do_not_stop_new_handshakes(impatient_server: LiveServer) -> None:
    slow = [open_raw(impatient_server, b"GET / HTTP/1.1\r\n") for _ in range(200)]
    try:
        r = httpx.get(f"{impatient_server.http_url}/api/lobby", timeout=5)
        assert r.status_code == 200
        time.sleep(TIMEOUT_S + 1)  # the time under test: the server's timeout runs out
        for conn in slow:  # every one was closed by the server
            conn.settimeout(2)
            assert conn.recv(1) == b""
    finally:
        for conn in slow:
            conn.close()


def test_a_finished_request_is_answered_even_when_its_reply_takes_a_while(
    impatient_server: LiveServer,
) -> None:
    # A keep-alive connection that sends its next request late is timed from that request on.
    with httpx.Client(base_url=impatient_server.http_url, timeout=5) as http:
        assert http.get("/api/lobby").status_code == 200
        time.sleep(TIMEOUT_S * 0.6)  # the time under test: idle, within the timeout
        assert http.get("/api/lobby").status_code == 200


async def test_a_socket_that_answers_no_ping_is_closed(impatient_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=impatient_server.http_url) as http:
        token = (await http.post("/api/session", json={"name": "Ann"})).json()["token"]
        created = await http.post(
            "/api/matches", json={"mode": "invite"}, headers={"Authorization": f"Bearer {token}"}
        )
        match_id = created.json()["id"]
    # A client that answers pings stays; one whose pongs never come is dropped.
    async with connect(impatient_server.ws_url(match_id), ping_interval=None) as alive:
        await alive.recv()
        await asyncio.sleep(PING_S * 4)  # the time under test: several pings, each answered
        await alive.send('{"type":"ping"}')
        assert '"pong"' in await _next_text(alive, "pong")
    head = upgrade_head(impatient_server, match_id) + b"\r\n"
    conn = await asyncio.to_thread(open_raw, impatient_server, head)
    took = await asyncio.to_thread(seconds_until_closed, conn)  # it reads but never pongs
    assert PING_S * 2 * 0.9 <= took < PING_S * 2 + 3


async def _next_text(ws: ClientConnection, kind: str) -> str:
    while True:
        text = await ws.recv()
        assert isinstance(text, str)
        if f'"{kind}"' in text:
            return text


def test_the_server_lifts_its_descriptor_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))
        lifted = raise_descriptor_limit()
        assert lifted == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert lifted > 256 or hard <= 256
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
