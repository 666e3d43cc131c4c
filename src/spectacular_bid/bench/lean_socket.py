"""The load generator's WebSocket: websockets' sans-I/O protocol on a bare asyncio transport.

``specbid bench server`` plays thousands of seats from one process that shares the machine's
cores with the servers it measures, so every millisecond it spends is one the servers cannot
have: it shows up as their latency, their loop's preemptions (``longest_pauses``) and a lower
ceiling for several processes (OPERATIONS.md "Running it for real"). The library's asyncio
connection wakes a task for every message and keeps a queue, futures and a keep-alive task per
socket; here each message is handed to a callback from ``data_received``, as it is parsed, and pings
are answered by the sans-I/O protocol itself. Nor does it send pings of its own, as a browser
cannot. Only what the benchmark uses is here: open, send text, read text, close, and the close code
the server gave.

Once the handshake is done, the frames the server sends are read here too
(:attr:`Reading.FRAMES`): the data frames, which are all but a few, are cut out of the stream
and handed on; each control frame (ping, pong, close), whole, and anything this reader does not
expect (a masked frame, extension bits), with the rest of the stream, go to the sans-I/O
protocol, which so sees only whole frames. Text frames are built and masked here too. The
protocol's generic parser and framing were about a fifth of the load generator's stack samples
at ``--processes 2 --think-ms 0``; doing both here took its CPU per command from 0.10 to
about 0.075 ms, which the servers it shares the cores with now have.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from enum import Enum
from typing import Final, cast

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.speedups import apply_mask
from websockets.uri import parse_uri

MAX_SIZE: Final = 2**22
"""The largest message read: a ``state`` of a long match carries its whole move log."""
CLOSE_TIMEOUT_S: Final = 5.0
_CONNECTED: set[LeanSocket] = set()
"""Every socket whose TCP connection is up: what :func:`abort_connected` ends."""
_HEAD_END: Final = b"\r\n\r\n"
_SWITCHED: Final = b"HTTP/1.1 101 "
_FIN: Final = 0x80
_RSV: Final = 0x70
_MASKED: Final = 0x80
_CONTROL: Final = 0x08
_TEXT: Final = Opcode.TEXT.value
_CONT: Final = Opcode.CONT.value
_KNOWN: Final = frozenset(op.value for op in Opcode)


class Reading(Enum):
    """Who reads the bytes the server sends next."""

    HEAD = "head"
    """The handshake's response, gathered here until its blank line."""
    FRAMES = "frames"
    """The frames after a switch to WebSocket, cut out here (:meth:`LeanSocket._read_frames`)."""
    PROTOCOL = "protocol"
    """All of it, by the sans-I/O protocol (a refused handshake, a close, the unexpected)."""


def text_frame(data: bytes) -> bytes:
    """``data`` as one masked text frame, as a client sends it (RFC 6455 section 5.2)."""
    length = len(data)
    if length < 126:
        head = bytes((_FIN | _TEXT, _MASKED | length))
    elif length < 1 << 16:
        head = bytes((_FIN | _TEXT, _MASKED | 126)) + length.to_bytes(2, "big")
    else:
        head = bytes((_FIN | _TEXT, _MASKED | 127)) + length.to_bytes(8, "big")
    mask = os.urandom(4)
    return head + mask + apply_mask(data, mask)


class LeanSocket(asyncio.Protocol):
    """One client connection. Each text message goes, as UTF-8, to :attr:`on_message`, held
    until one is set (a spectator's reader drops them); :attr:`closed` resolves when the TCP
    connection has ended, whoever ended it."""

    def __init__(self, uri: str) -> None:
        self._loop = loop = asyncio.get_running_loop()
        self._protocol = ClientProtocol(parse_uri(uri), max_size=MAX_SIZE)
        self._transport: asyncio.Transport | None = None
        self._fragments: list[bytes] = []
        self._reading = Reading.HEAD
        self._bytes = bytearray()
        """What the server sent that is not read yet: the head so far, or a partial frame."""
        self._closing: asyncio.TimerHandle | None = None
        """Ends the TCP connection if the server has not, once the closing handshake began."""
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self._reader: Callable[[bytes], None] | None = None
        self._unread: list[bytes] = []
        self.failure: Exception | None = None
        """What the reader raised; the connection was then dropped."""

    @property
    def on_message(self) -> Callable[[bytes], None] | None:
        return self._reader

    @on_message.setter
    def on_message(self, reader: Callable[[bytes], None] | None) -> None:
        """Messages that came before a reader was set (the server's first ``state`` may share
        a TCP segment with the handshake's response) go to it now, in order."""
        self._reader = reader
        while reader is not None and self._unread and self.failure is None:
            self._deliver(self._unread.pop(0))

    @property
    def close_code(self) -> int | None:
        """The code of the close frame received (1006 if the connection ended without one)."""
        return self._protocol.close_code if self.closed.done() else None

    # -- asyncio.Protocol ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        _CONNECTED.add(self)
        self._protocol.send_request(self._protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        if self._reading is Reading.FRAMES:
            self._bytes += data
            self._read_frames()
        elif self._reading is Reading.HEAD:
            self._bytes += data
            self._read_head()
        else:
            self._protocol.receive_data(data)
            self._take_events()

    def eof_received(self) -> bool | None:
        if self._reading is Reading.HEAD and self._bytes:
            self._to_protocol()
        self._protocol.receive_eof()  # a refused handshake's response ends with the stream
        self._take_events()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        _CONNECTED.discard(self)
        if self._protocol.state is not State.CLOSED:
            self._protocol.state = State.CLOSED  # ended without a closing handshake: 1006
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"closed before the handshake: {exc}"))
        if not self.closed.done():
            self.closed.set_result(None)
        if self._closing is not None:
            self._closing.cancel()

    # -- what the benchmark calls ----------------------------------------------------------

    def send(self, text: str) -> None:
        """Send a text message now; nothing if the connection is no longer open (the protocol
        knows: every close frame, either way, goes through it)."""
        transport = self._transport
        if self._protocol.state is State.OPEN and transport is not None:
            transport.write(text_frame(text.encode()))

    async def close(self) -> None:
        """Start the closing handshake and wait for the server to end the connection."""
        if self._protocol.state is State.OPEN:
            self._protocol.send_close(1000)
            self._flush()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CLOSE_TIMEOUT_S):
                await asyncio.shield(self.closed)
        if self._transport is not None:
            self._transport.close()

    # -- inside ----------------------------------------------------------------------------

    def _read_head(self) -> None:
        """Once the response's head is complete, give it alone to the protocol; after a switch
        to WebSocket the frames that followed it are read here."""
        end = self._bytes.find(_HEAD_END)
        if end < 0:
            return
        if not self._bytes.startswith(_SWITCHED):
            self._to_protocol()  # a refusal: its body too
            return
        head, self._bytes = bytes(self._bytes[: end + len(_HEAD_END)]), self._bytes[end + 4 :]
        self._protocol.receive_data(head)
        self._take_events()
        if self._protocol.state is State.OPEN:
            self._reading = Reading.FRAMES
            self._read_frames()
        else:
            self._to_protocol()

    def _to_protocol(self) -> None:
        """From here on the protocol reads everything, beginning with what is unread."""
        self._reading = Reading.PROTOCOL
        unread, self._bytes = bytes(self._bytes), bytearray()
        if unread:
            self._protocol.receive_data(unread)
        self._take_events()

    def _read_frames(self) -> None:
        """Hand on every whole frame received (RFC 6455 section 5.2): data frames here,
        control frames through the protocol; keep a partial one for the next bytes."""
        data = self._bytes
        at = 0
        size = len(data)
        while size - at >= 2 and self._reading is Reading.FRAMES:
            first, second = data[at], data[at + 1]
            length, start = second & 0x7F, at + 2
            if length == 126:
                length, start = int.from_bytes(data[at + 2 : at + 4], "big"), at + 4
            elif length == 127:
                length, start = int.from_bytes(data[at + 2 : at + 10], "big"), at + 10
            opcode = first & 0x0F
            if second & _MASKED or first & _RSV or opcode not in _KNOWN or length > MAX_SIZE:
                break  # not what a server sends unasked: the protocol fails the connection
            end = start + length
            if end > size:
                del data[:at]
                return
            if opcode & _CONTROL:
                frame = bytes(data[at:end])
                at = end
                self._protocol.receive_data(frame)
                self._take_events()
                if self._protocol.state is not State.OPEN:
                    break  # closing: the protocol reads the rest
            else:
                payload = bytes(data[start:end])
                at = end
                self._on_data(opcode, bool(first & _FIN), payload)
        del data[:at]
        unexpected = size - at >= 2
        if self._reading is Reading.FRAMES and (
            unexpected or self._protocol.state is not State.OPEN
        ):
            self._to_protocol()

    def _on_data(self, opcode: int, fin: bool, payload: bytes) -> None:
        """A text message whole, or one of its fragments; binary ones are not read."""
        if opcode == _TEXT and fin:
            self._deliver(payload)
        elif opcode == _TEXT or (opcode == _CONT and self._fragments):
            self._fragments.append(payload)
            if fin:
                message, self._fragments = b"".join(self._fragments), []
                self._deliver(message)

    def _take_events(self) -> None:
        for event in self._protocol.events_received():
            if isinstance(event, Response):
                self._on_response()
            elif isinstance(event, Frame):
                self._on_frame(event)
        self._flush()

    def _on_response(self) -> None:
        failure = self._protocol.handshake_exc
        if self.opened.done():
            return
        if failure is None:
            self.opened.set_result(None)
        else:
            self.opened.set_exception(failure)

    def _on_frame(self, frame: Frame) -> None:
        if frame.opcode is Opcode.TEXT and frame.fin:
            self._deliver(bytes(frame.data))
        elif frame.opcode is Opcode.TEXT or (frame.opcode is Opcode.CONT and self._fragments):
            self._fragments.append(bytes(frame.data))
            if frame.fin:
                message, self._fragments = b"".join(self._fragments), []
                self._deliver(message)

    def _deliver(self, message: bytes) -> None:
        if self.failure is not None:
            return
        if self._reader is None:
            self._unread.append(message)
            return
        try:
            self._reader(message)
        except Exception as exc:  # the reader's own fault: drop the connection, keep the cause
            self.failure = exc
            if self._transport is not None:
                self._transport.abort()

    def _flush(self) -> None:
        transport = self._transport
        if transport is None or transport.is_closing():
            return
        for data in self._protocol.data_to_send():
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                transport.write_eof()
        if self._closing is None and self._protocol.close_expected():
            if self._loop.is_closed() or not self._loop.is_running():
                transport.abort()  # the run is over: nobody would wait for the server
                return
            self._closing = self._loop.call_later(CLOSE_TIMEOUT_S, transport.close)


async def abort_connected() -> int:
    """End every connection still up at once (a slot cancelled while it opened one, say), so
    that the run's loop closes with no transport left; how many there were."""
    left = [socket for socket in _CONNECTED if socket._transport is not None]
    for socket in left:
        assert socket._transport is not None
        socket._transport.abort()
    await asyncio.sleep(0)  # their connection_lost runs
    return len(left)


async def open_socket(uri: str, timeout_s: float) -> LeanSocket:
    """Connect and complete the handshake within ``timeout_s``, or raise."""
    target = parse_uri(uri)
    loop = asyncio.get_running_loop()

    async def connect() -> LeanSocket:
        _, socket = await loop.create_connection(lambda: LeanSocket(uri), target.host, target.port)
        try:
            await socket.opened
        except BaseException:
            await socket.close()
            raise
        return socket

    async with asyncio.timeout(timeout_s):
        return await connect()
