"""The load generator's own WebSocket client against a real WebSocket server in this process:
messages in and out, fragments, pings, the server's close code, a refused handshake, and a
reader that fails; and, by hand on a wire, its own reading of the frames however the stream is
cut, the frames it writes, and a frame no server may send."""

from __future__ import annotations

import asyncio
import base64
import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Final

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import InvalidStatus
from websockets.frames import Close, Frame, Opcode
from websockets.http11 import Request, Response
from websockets.streams import StreamReader
from websockets.utils import GUID

from spectacular_bid.bench.lean_socket import LeanSocket, abort_connected, open_socket
from waiting import until

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
            await until(lambda: received, what="the server's first message")
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


class _Wire:
    """A transport that keeps what the socket writes, to answer it by hand."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.aborted = False
        self.closing = False

    def write(self, data: bytes) -> None:
        self.written.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closing

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.aborted = True

    def close(self) -> None:
        self.closing = True


def _switched(socket: LeanSocket, wire: _Wire) -> bytes:
    """The server's response that accepts the request the socket wrote (RFC 6455 4.2.2)."""
    request = wire.written[0].decode()
    key = next(
        line.split(":", 1)[1].strip()
        for line in request.split("\r\n")
        if line.lower().startswith("sec-websocket-key:")
    )
    accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
    return (
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Accept: {accept}\r\n\r\n"
    ).encode()


def _server_frame(opcode: Opcode, data: bytes, *, fin: bool = True) -> bytes:
    return Frame(opcode, data, fin).serialize(mask=False)


def _read_back(frames: bytes) -> list[Frame]:
    """The frames a client wrote, read as the server reads them (masked)."""
    reader = StreamReader()
    reader.feed_data(frames)
    reader.feed_eof()
    parsed: list[Frame] = []
    while reader.buffer:
        parser = Frame.parse(reader.read_exact, mask=True)
        try:
            next(parser)
        except StopIteration as done:
            parsed.append(done.value)
        else:
            raise AssertionError("a partial frame")
    return parsed


def _open_by_hand(chunks: Callable[[bytes], list[bytes]]) -> tuple[LeanSocket, _Wire, list[bytes]]:
    """A socket on a wire, given the server's bytes in the ``chunks`` made of them (the
    response, then three messages of each length form with a ping amid a fragmented one)."""
    socket = LeanSocket("ws://127.0.0.1:1/ws/matches/m1")
    wire = _Wire()
    socket.connection_made(wire)  # type: ignore[arg-type]
    received = _collect(socket)
    stream = (
        _switched(socket, wire)
        + _server_frame(Opcode.TEXT, b"short")
        + _server_frame(Opcode.TEXT, b"m" * 300)
        + _server_frame(Opcode.TEXT, b"frag", fin=False)
        + _server_frame(Opcode.PING, b"are you there")
        + _server_frame(Opcode.CONT, b"ment", fin=False)
        + _server_frame(Opcode.CONT, b"ed")
        + _server_frame(Opcode.BINARY, b"\x00\x01")
        + _server_frame(Opcode.TEXT, b"L" * 70_000)
    )
    for chunk in chunks(stream):
        socket.data_received(chunk)
    return socket, wire, received


EXPECTED: Final = [b"short", b"m" * 300, b"fragmented", b"L" * 70_000]


@pytest.mark.parametrize("cut", [1, 2, 3, 7, 64, 1_000_000])
def test_frames_are_read_however_the_stream_is_cut(cut: int) -> None:
    """Every length form (7, 16 and 64 bits), a fragmented message with a ping amid it, a
    binary frame skipped, the head and the frames cut anywhere: the same messages, and the
    ping answered with its pong, masked (RFC 6455 5.3, 5.5.3)."""

    async def run() -> tuple[LeanSocket, _Wire, list[bytes]]:
        return _open_by_hand(lambda s: [s[i : i + cut] for i in range(0, len(s), cut)])

    socket, wire, received = asyncio.run(run())
    assert received == EXPECTED
    assert socket.opened.done()
    assert socket.opened.exception() is None
    answers = _read_back(b"".join(wire.written[1:]))
    assert [(f.opcode, f.data) for f in answers] == [(Opcode.PONG, b"are you there")]
    assert not wire.aborted


def test_what_it_sends_is_one_masked_text_frame_each() -> None:
    async def run() -> _Wire:
        socket, wire, _ = _open_by_hand(lambda s: [s])
        del wire.written[:]
        socket.send('{"type":"start","version":0}')
        socket.send("é" * 100)
        socket.send("x" * 70_000)
        return wire

    wire = asyncio.run(run())
    frames = _read_back(b"".join(wire.written))
    assert [(f.opcode, f.fin, f.data) for f in frames] == [
        (Opcode.TEXT, True, b'{"type":"start","version":0}'),
        (Opcode.TEXT, True, ("é" * 100).encode()),
        (Opcode.TEXT, True, b"x" * 70_000),
    ]


def test_a_masked_frame_from_the_server_fails_the_connection_with_1002() -> None:
    """A server never masks (RFC 6455 5.1): the protocol is handed the frame and closes."""

    async def run() -> tuple[list[bytes], list[Frame], int | None]:
        socket = LeanSocket("ws://127.0.0.1:1/ws/matches/m1")
        wire = _Wire()
        socket.connection_made(wire)  # type: ignore[arg-type]
        received = _collect(socket)
        socket.data_received(
            _switched(socket, wire)
            + _server_frame(Opcode.TEXT, b"fine")
            + Frame(Opcode.TEXT, b"masked").serialize(mask=True)
            + _server_frame(Opcode.TEXT, b"never read")
        )
        socket.connection_lost(None)
        return received, _read_back(b"".join(wire.written[1:])), socket.close_code

    received, answers, code = asyncio.run(run())
    assert received == [b"fine"]
    assert [(f.opcode, Close.parse(f.data).code) for f in answers] == [(Opcode.CLOSE, 1002)]
    assert code == 1006


def test_a_long_message_from_a_real_server() -> None:
    async def handler(ws: ServerConnection) -> None:
        await ws.send("x" * 200_000)
        await ws.send(await ws.recv())
        await ws.close(1000)

    async def run() -> tuple[list[bytes], int | None]:
        async with serving(handler) as uri:
            socket = await open_socket(uri, 5)
            received = _collect(socket)
            socket.send("y" * 100_000)
            await asyncio.wait_for(socket.closed, 5)
            return received, socket.close_code

    received, code = asyncio.run(run())
    assert received == [b"x" * 200_000, b"y" * 100_000]
    assert code == 1000


async def test_a_close_cancelled_as_the_server_ends_the_connection_is_cancelled() -> None:
    """Python 3.11's ``asyncio.wait_for`` dropped a cancellation that came in the turn its
    wait ended: a slot cancelled at the end of a run as its socket closed played on, and the
    run waited minutes for it (``asyncio.timeout`` keeps the cancellation)."""
    socket = LeanSocket("ws://127.0.0.1:1/ws/matches/m1")
    closing = asyncio.create_task(socket.close())
    await asyncio.sleep(0)  # one turn of the loop, not a wait: the close reaches its await
    socket.closed.set_result(None)
    closing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await closing
