"""The load generator's WebSocket: websockets' sans-I/O protocol on a bare asyncio transport.

``specbid bench server`` plays thousands of seats from one process that shares the machine's
cores with the servers it measures, so every millisecond it spends is one the servers cannot
have: it shows up as their latency, their loop's preemptions (``longest_pauses``) and a lower
ceiling for several processes (issue 13). The library's asyncio connection wakes a task for
every message and keeps a queue, futures and a keep-alive task per socket; here each message is
handed to a callback from ``data_received``, as it is parsed, and pings are answered by the
sans-I/O protocol itself. Nor does it send pings of its own, as a browser cannot. Only what the
benchmark uses is here: open, send text, read text, close, and the close code the server gave.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Final, cast

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

MAX_SIZE: Final = 2**22
"""The largest message read: a ``state`` of a long match carries its whole move log."""
CLOSE_TIMEOUT_S: Final = 5.0
_CONNECTED: set[LeanSocket] = set()
"""Every socket whose TCP connection is up: what :func:`abort_connected` ends."""


class LeanSocket(asyncio.Protocol):
    """One client connection. Each text message goes, as UTF-8, to :attr:`on_message`, held
    until one is set (a spectator's reader drops them); :attr:`closed` resolves when the TCP
    connection has ended, whoever ended it."""

    def __init__(self, uri: str) -> None:
        self._loop = loop = asyncio.get_running_loop()
        self._protocol = ClientProtocol(parse_uri(uri), max_size=MAX_SIZE)
        self._transport: asyncio.Transport | None = None
        self._fragments: list[bytes] = []
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
        self._protocol.receive_data(data)
        self._take_events()

    def eof_received(self) -> bool | None:
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
        """Send a text message now; nothing if the connection is no longer open."""
        if self._protocol.state is State.OPEN:
            self._protocol.send_text(text.encode())
            self._flush()

    async def close(self) -> None:
        """Start the closing handshake and wait for the server to end the connection."""
        if self._protocol.state is State.OPEN:
            self._protocol.send_close(1000)
            self._flush()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.closed), CLOSE_TIMEOUT_S)
        if self._transport is not None:
            self._transport.close()

    # -- inside ----------------------------------------------------------------------------

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

    return await asyncio.wait_for(connect(), timeout_s)
