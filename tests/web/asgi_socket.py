"""A minimal in-process WebSocket client speaking ASGI to the app, with timeouts.

Starlette's TestClient runs the app in another thread and deprecates plain httpx (a warning is an
error here), and its ``receive`` waits forever; this client runs on the test's own event loop, so a
missing message fails the test after ``TIMEOUT_S`` instead of hanging it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from types import TracebackType
from typing import Any
from urllib.parse import urlencode

from fastapi import FastAPI

from spectacular_bid.web.app import served

TIMEOUT_S = 2.0


class Closed(Exception):  # noqa: N818 - mirrors starlette's WebSocketDisconnect
    """The server closed the socket (or refused the handshake) with ``code``."""

    def __init__(self, code: int, reason: str = "") -> None:
        super().__init__(code, reason)
        self.code = code
        self.reason = reason


class AsgiSocket:
    def __init__(
        self,
        app: FastAPI,
        path: str,
        *,
        query: dict[str, str] | None = None,
        headers: dict[str, str | None] | None = None,
    ) -> None:
        all_headers: dict[str, str | None] = {
            "host": "testserver",
            "origin": "http://testserver",
            **(headers or {}),
        }
        self.scope: dict[str, Any] = {
            "type": "websocket",
            "asgi": {"version": "3.0", "spec_version": "2.4"},
            "scheme": "ws",
            "server": ("testserver", 80),
            "client": ("127.0.0.1", 50000),
            "root_path": "",
            "path": path,
            "raw_path": path.encode(),
            "query_string": urlencode(query or {}).encode(),
            "headers": [
                (k.lower().encode(), v.encode()) for k, v in all_headers.items() if v is not None
            ],
            "subprotocols": [],
            "extensions": {},
        }
        self.app = served(app)  # the sockets' endpoint in front of the app, as a server runs it
        self.to_app: asyncio.Queue[MutableMapping[str, Any]] = asyncio.Queue()
        self.from_app: asyncio.Queue[MutableMapping[str, Any]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.closed: Closed | None = None

    async def _run_app(self) -> None:
        await self.app(self.scope, self.to_app.get, self.from_app.put)

    async def __aenter__(self) -> AsgiSocket:
        self.task = asyncio.create_task(self._run_app())
        await self.to_app.put({"type": "websocket.connect"})
        message = await self._next()
        if message["type"] == "websocket.close":
            await self._finish()
            raise Closed(message.get("code", 1000), message.get("reason", ""))
        assert message["type"] == "websocket.accept", message
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.to_app.put({"type": "websocket.disconnect", "code": 1000})
        await self._finish()

    async def _finish(self) -> None:
        assert self.task is not None
        await asyncio.wait_for(self.task, TIMEOUT_S)

    async def _next(self) -> MutableMapping[str, Any]:
        return await asyncio.wait_for(self.from_app.get(), TIMEOUT_S)

    async def send_text(self, text: str) -> None:
        await self.to_app.put({"type": "websocket.receive", "text": text})

    async def send_bytes(self, data: bytes) -> None:
        await self.to_app.put({"type": "websocket.receive", "bytes": data})

    async def send_json(self, data: Any) -> None:
        await self.send_text(json.dumps(data))

    async def receive_text(self) -> str:
        message = await self._next()
        if message["type"] == "websocket.close":
            self.closed = Closed(message.get("code", 1000), message.get("reason", ""))
            raise self.closed
        assert message["type"] == "websocket.send", message
        text: str = message["text"]
        return text

    async def receive_json(self) -> Any:
        return json.loads(await self.receive_text())

    async def receive_until(self, kind: str) -> Any:
        """Skip ``presence`` and other messages up to the first of type ``kind``."""
        while True:
            message = await self.receive_json()
            if message["type"] == kind:
                return message

    async def expect_close(self) -> Closed:
        """Read (and drop) messages until the server closes; return the close."""
        while True:
            try:
                await self.receive_text()
            except Closed as closed:
                return closed
