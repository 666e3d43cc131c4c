"""A closed connection leaves no reference cycle behind on a real uvicorn server (OPERATIONS.md
"Under load and abuse").

Under steady load the server's collector freezes what survives its rounds and never sweeps
(``web.collector``), so an object kept only by a cycle is kept for ever. A one-hour soak found
every closed socket's objects still there (18,531 websockets protocols by its 14th minute, with
6,000 sockets open): an upgraded connection's HTTP protocol and its parser referred to each
other, and so did each websockets protocol and its frame parser. Here the server runs in the
test's own process, with ``specbid serve``'s connection settings, and the cycle collector off:
whatever reference counting does not free after the connections close is such a cycle.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import socket
import weakref
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any, cast

import httpx
import pytest
import uvicorn
from starlette.websockets import WebSocketDisconnect, WebSocketState
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.asyncio.client import connect
from websockets.server import ServerProtocol

from spectacular_bid.cli.serve import connection_options
from spectacular_bid.service.audience import Audience
from spectacular_bid.web.app import create_app, served
from spectacular_bid.web.settings import WebSettings
from spectacular_bid.web.subscriber import Subscriber
from spectacular_bid.web.ws import MatchSocket
from waiting import until

from .guests import guest, joined_match

SERVER_SIDE = (HttpToolsProtocol, WebSocketsSansIOProtocol, ServerProtocol, MatchSocket)


def server_side() -> list[str]:
    # type(), not isinstance(): a weak proxy to a freed object raises on isinstance.
    return sorted(t.__name__ for o in gc.get_objects() if issubclass(t := type(o), SERVER_SIDE))


@pytest.fixture
async def base(settings: WebSettings) -> AsyncIterator[str]:
    """A real uvicorn server on a free port, the cycle collector off while it runs."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(
        served(create_app(settings)),
        host="127.0.0.1",
        port=port,
        **connection_options(settings),
        loop="none",
        lifespan="on",
        log_level="warning",
    )
    server = uvicorn.Server(config)
    gc.collect()
    gc.disable()
    task = asyncio.create_task(server.serve())
    try:
        await until(lambda: server.started, what="the server started")
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        gc.enable()


async def test_closed_sockets_and_requests_leave_no_reference_cycle(base: str) -> None:
    async with httpx.AsyncClient(base_url=f"http://{base}") as client:
        ann, bo = await guest(client, "Ann"), await guest(client, "Bo")
        match_id = await joined_match(client, ann, bo)
    url = f"ws://{base}/ws/matches/{match_id}"
    sockets = [
        await connect(f"{url}?token={ann}"),
        await connect(f"{url}?token={bo}"),
        *[await connect(url) for _ in range(8)],
    ]
    for ws in sockets:
        await ws.recv()
    assert len([name for name in server_side() if name == "ServerProtocol"]) == len(sockets)
    for ws in sockets[:5]:
        await ws.close()  # a closing handshake
    for ws in sockets[5:]:
        ws.transport.abort()  # the connection just ends
    for _ in range(3):  # plain requests, each on a connection of its own
        async with httpx.AsyncClient(base_url=f"http://{base}") as client:
            assert (await client.get("/api/lobby")).status_code == 200
    del sockets, ws
    with contextlib.suppress(AssertionError):  # the assertion below names what is left
        await until(lambda: not server_side(), within_s=10)
    assert server_side() == []


class GoneClient:
    """A client that left while the server was sending to it."""

    application_state = WebSocketState.CONNECTED

    async def receive(self) -> dict[str, Any]:
        await asyncio.Event().wait()  # it sends nothing more
        raise AssertionError("unreachable")

    async def send_text(self, text: str) -> None:
        raise WebSocketDisconnect(1006)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        raise AssertionError("a socket whose client is gone is not closed again")


async def test_a_socket_whose_client_left_mid_send_leaves_no_reference_cycle(
    settings: WebSettings,
) -> None:
    """The sender's WebSocketDisconnect, re-raised in the socket's own task, made a cycle through
    that task's frame (it holds the sender task, which holds the error): 50 sockets kept whole
    after 20 minutes of load."""
    subscriber = Subscriber(Audience.SPECTATOR, None, limit=8)
    subscriber.offer("a frame")
    service = cast(Any, SimpleNamespace(now_ms=lambda: 0))
    room = cast(Any, SimpleNamespace(actor=SimpleNamespace(id="m1")))
    client = cast(Any, GoneClient())
    match_socket = MatchSocket(client, service, settings, room, subscriber, None)
    gone = weakref.ref(match_socket)
    gc.collect()
    gc.disable()
    try:
        await asyncio.wait_for(match_socket.run(), timeout=5)
        del match_socket
        assert gone() is None  # freed by reference counting alone
    finally:
        gc.enable()
