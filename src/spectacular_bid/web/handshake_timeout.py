"""Connections that never finish arriving are closed (PROTOCOL.md "Limits and close codes"), and
finished ones leave nothing behind.

uvicorn arms no timer until a first response has been sent: a client that opens a connection and
sends nothing, half an HTTP request, or half a WebSocket upgrade holds a file descriptor and a
protocol object for ever, and enough of them (about a thousand at the usual 1,024-descriptor
limit) stop every new handshake. Here each connection gets ``timeout_s`` to deliver a complete
HTTP request; a WebSocket upgrade gets the same span, counted afresh from the upgrade, until the
app has accepted (or refused) it. A connection past its deadline is closed, with no reply: there
is no complete request to answer.

Each also lets go of its objects when its connection is done, leaving no reference cycle
behind: the server's collector freezes what lives and sweeps only when no clock runs
(:mod:`~spectacular_bid.web.collector`), so under steady load a cycle is kept for ever.

Both classes extend uvicorn's own protocols (``httptools`` and ``websockets-sansio``, the ones
``specbid serve`` runs); the real-server tests in ``tests/live/test_slow_clients.py`` fail if a
uvicorn release changes the hooks used here.
"""

from __future__ import annotations

import asyncio
import logging

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

log = logging.getLogger(__name__)


def protocols(timeout_s: float) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol]]:
    """The HTTP and WebSocket protocol classes for uvicorn's ``http=`` and ``ws=``."""
    if timeout_s <= 0:
        raise ValueError(f"timeout_s must be > 0, got {timeout_s!r}")
    return _timed_http(timeout_s), _timed_websocket(timeout_s)


def _timed_websocket(timeout_s: float) -> type[asyncio.Protocol]:
    class TimedWebSocket(WebSocketsSansIOProtocol):
        """A WebSocket whose handshake must be answered by the app within ``timeout_s``."""

        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            self._deadline = self.loop.call_later(timeout_s, self._on_deadline)

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            super().connection_lost(exc)
            self._let_go()

        async def run_asgi(self) -> None:
            await super().run_asgi()
            if self.disconnected:  # a send after the loss may have restarted the parser
                self._let_go()

        def _let_go(self) -> None:
            """Once the connection is lost nothing reads from the websockets protocol again,
            so its frame parser, a generator whose frame refers back to it, is closed. Left
            open, that reference cycle kept every closed socket's objects under load, where the
            collector never sweeps (collector.py)."""
            self.conn.parser.close()

        def _on_deadline(self) -> None:
            self._deadline = None
            if not self.handshake_complete and not self.transport.is_closing():
                log.info("closed a WebSocket handshake unfinished after %g s", timeout_s)
                self.transport.close()

    return TimedWebSocket


def _timed_http(timeout_s: float) -> type[asyncio.Protocol]:
    class TimedHttp(HttpToolsProtocol):
        """An HTTP connection whose every request must arrive whole within ``timeout_s``."""

        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm()

        def on_message_complete(self) -> None:
            self._disarm()
            super().on_message_complete()

        def handle_websocket_upgrade(self) -> None:
            self._disarm()  # the WebSocket protocol times the rest of the handshake
            super().handle_websocket_upgrade()
            # This protocol is done: the WebSocket one now owns the transport, and is the one
            # told of the connection's loss. uvicorn drops the parser (which refers back to its
            # protocol) only on that loss, so every upgraded connection left a reference cycle
            # holding its transport and the WebSocket's objects. Under load the collector
            # freezes and never sweeps (collector.py): a one-hour soak kept every closed
            # socket's objects, 18,531 of them by its 14th minute.
            self.parser = None  # type: ignore[assignment]

        def _arm(self) -> None:
            if self._deadline is None:
                self._deadline = self.loop.call_later(timeout_s, self._on_deadline)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _on_deadline(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                log.info("closed a connection whose request was unfinished after %g s", timeout_s)
                self.transport.close()

    return TimedHttp
