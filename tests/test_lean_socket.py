"""The load generator's own WebSocket client against a real WebSocket server in this process:
messages in and out, fragments, pings, the server's close code, a refused handshake, and a
reader that fails."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import InvalidStatus
from websockets.http11 import Request, Response

from spectacular_bid.bench.lean_socket import LeanSocket, abort_connected, open_socket

Handler = Callable[[ServerConnection], Awaitable[None]]


@asynccontextmanager
async def serving(handler: Handler, **options: object) -> AsyncIterator[str]:
    async with serve(handler, "127.0.0.1", 0, **options) as server:  # type: ignore[arg-type]
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/ws/matches/m1?token=t"


def _collect(socket: LeanSocket) -> list[bytes]:
    received: list[bytes] = []
    socket.on_message = received.append
    return received


def test_messages_both_ways_fragments_and_pings_then_the_servers_close_code() -> None:
    async def handler(ws: ServerConnection) -> None:
        assert ws.request is not None
        await ws.send(f"path {ws.request.path}")
        echo = await ws.recv()
        assert isinstance(echo, str)
        await ws.send(["frag", "ment", "ed"])
        await ws.ping()
        await ws.send(f"echo {echo}")
        await ws.close(1013, "falling behind")

    async def run() -> tuple[list[bytes], int | None]:
        async with serving(handler) as uri:
            socket = await open_socket(uri, 5)
            received = _collect(socket)
            await asyncio.sleep(0.05)
            socket.send('{"type":"start","version":0}')
            await asyncio.wait_for(socket.closed, 5)
            return received, socket.close_code

    received, code = asyncio.run(run())
    assert received == [
        b"path /ws/matches/m1?token=t",
        b"fragmented",
        b'echo {"type":"start","version":0}',
    ]
    assert code == 1013


def test_closing_from_this_side_is_a_clean_close() -> None:
    async def handler(ws: ServerConnection) -> None:
        async for _ in ws:
            pass

    async def run() -> int | None:
        async with serving(handler) as uri:
            socket = await open_socket(uri, 5)
            await socket.close()
            assert socket.closed.done()
            socket.send("after the close")  # nothing, and no error
            return socket.close_code

    assert asyncio.run(run()) == 1000


def test_a_refused_handshake_raises_with_the_status() -> None:
    def refuse(_conn: ServerConnection, _request: Request) -> Response:
        return Response(503, "Service Unavailable", Headers({"Retry-After": "3"}), b"busy\n")

    async def handler(ws: ServerConnection) -> None:
        raise AssertionError("a refused handshake never reaches the handler")

    async def run() -> None:
        async with serving(handler, process_request=refuse) as uri:
            await open_socket(uri, 5)

    with pytest.raises(InvalidStatus, match="503"):
        asyncio.run(run())


def test_a_reader_that_fails_drops_the_connection_and_keeps_the_cause() -> None:
    async def handler(ws: ServerConnection) -> None:
        await ws.send("not json")
        await ws.send("never read")
        await ws.wait_closed()

    def failing(_message: bytes) -> None:
        raise ValueError("cannot read this")

    async def run() -> tuple[Exception | None, int | None]:
        async with serving(handler) as uri:
            socket = await open_socket(uri, 5)
            socket.on_message = failing
            await asyncio.wait_for(socket.closed, 5)
            return socket.failure, socket.close_code

    failure, code = asyncio.run(run())
    assert isinstance(failure, ValueError)
    assert code == 1006


def test_nothing_listening_raises() -> None:
    async def run() -> None:
        await open_socket("ws://127.0.0.1:9/ws", 5)

    with pytest.raises(ConnectionRefusedError):
        asyncio.run(run())


def test_what_is_still_connected_at_the_end_of_a_run_is_aborted() -> None:
    """A slot cancelled while it had a socket open leaves it connected; the run ends every
    such connection before its loop closes (a loop closed over an open transport hung)."""

    async def handler(ws: ServerConnection) -> None:
        await ws.wait_closed()

    async def run() -> tuple[int, bool, int]:
        async with serving(handler) as uri:
            left = [await open_socket(uri, 5) for _ in range(3)]
            closed = await open_socket(uri, 5)
            await closed.close()
            aborted = await abort_connected()
            await asyncio.wait_for(asyncio.gather(*(s.closed for s in left)), 5)
            return aborted, all(s.closed.done() for s in left), await abort_connected()

    assert asyncio.run(run()) == (3, True, 0)
