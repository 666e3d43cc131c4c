"""A text message that is not UTF-8 closes its connection with 1007, as the client's fault.

uvicorn's websockets-sansio protocol decodes each whole text message itself (the websockets
library checks UTF-8 only in its own connection classes, which uvicorn does not use) and, on
invalid UTF-8, logs the ``UnicodeDecodeError`` at ERROR with its traceback before closing the
connection with 1007: any client could fill the server's error log at will, and a traceback
reads as a bug in the server. :class:`Utf8CheckedWebSocket` checks first and closes the same way,
with a reason, logging one INFO line.

The check is ``bytes.isascii()`` for nearly every message (all of this protocol's are ASCII),
and a decode for the others, which uvicorn then decodes again: a few microseconds per non-ASCII
message. ``tests/live/test_frame_errors.py`` runs it in a real server, so a uvicorn release that
renames the hook used here fails there.
"""

from __future__ import annotations

import asyncio
from typing import Final

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

CLOSE_INVALID_DATA: Final = 1007
"""RFC 6455 §7.4.1: the payload is not of its type (a text message that is not UTF-8)."""


class Utf8CheckedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's websockets-sansio protocol that refuses a text message of invalid UTF-8 quietly."""

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type == "text" and not self.close_sent:
            data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
            if not _is_utf8(data):
                self.frames = []
                client = f"{self.client[0]}:{self.client[1]}" if self.client else "a client"
                self.logger.info(
                    "%s - WebSocket closed with %d: a text message is not UTF-8",
                    client,
                    CLOSE_INVALID_DATA,
                )
                self.conn.send_close(CLOSE_INVALID_DATA, "invalid UTF-8")
                self.handle_parser_exception()  # tells the app, sends the close, ends the transport
                return
        super().send_receive_event_to_app()


def _is_utf8(data: bytes) -> bool:
    if data.isascii():
        return True
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def checking_utf8(protocol: type[asyncio.Protocol]) -> type[asyncio.Protocol]:
    """``protocol`` (a websockets-sansio protocol, e.g. one that times handshakes) with the UTF-8
    check of :class:`Utf8CheckedWebSocket` in front, for uvicorn's ``ws=``."""
    if not issubclass(protocol, WebSocketsSansIOProtocol):
        raise TypeError(f"not a websockets-sansio protocol: {protocol!r}")
    if issubclass(protocol, Utf8CheckedWebSocket):
        return protocol
    return type(f"Utf8Checked{protocol.__name__}", (Utf8CheckedWebSocket, protocol), {})
