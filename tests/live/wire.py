"""A test client of the real protocol: guests and matches over HTTP, and match sockets that keep
every frame they receive (so a test can scan them all, D4) and read them through a queue with a
timeout (so a missing message fails the test instead of hanging it).

Every frame is validated against the server message models (``docs/protocol.schema.json``) as it
arrives; :meth:`Peer.close` fails on the first frame that did not validate.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
from collections.abc import Callable
from typing import Any

import httpx
from pydantic import TypeAdapter, ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

from spectacular_bid.web.messages import ServerMessage

from .server import LiveServer

TIMEOUT_S = 5.0
"""The longest wait for one expected message on loopback."""
Msg = dict[str, Any]

_SERVER_MESSAGE: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)

OPENED: list[Peer | Api] = []
"""Every socket and HTTP client a test opened; the ``_closed_clients`` fixture closes them even
when the test failed half-way."""


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Api:
    """The HTTP API of one server; tokens go in headers, never in the cookie jar."""

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self.http = httpx.AsyncClient(base_url=server.http_url, timeout=TIMEOUT_S)
        OPENED.append(self)

    async def close(self) -> None:
        await self.http.aclose()

    async def guest(self, name: str) -> str:
        response = await self.http.post("/api/session", json={"name": name})
        assert response.status_code == 201, response.text
        self.http.cookies.clear()
        token: str = response.json()["token"]
        return token

    async def new_match(self, token: str, mode: str = "invite", **clock: int) -> str:
        """A new match with ``token`` in the first seat; ``clock`` is ``bank_ms``/``delay_ms``."""
        body: dict[str, object] = {"mode": mode, **clock}
        response = await self.http.post("/api/matches", json=body, headers=bearer(token))
        assert response.status_code == 201, response.text
        match_id: str = response.json()["id"]
        return match_id

    async def join(self, match_id: str, token: str) -> httpx.Response:
        return await self.http.post(f"/api/matches/{match_id}/join", headers=bearer(token))

    async def duel(self, **clock: int) -> tuple[str, str, str]:
        """A joined invite match: its id, the first seat's token, the second seat's token."""
        first, second = await self.guest("Ann"), await self.guest("Bob")
        match_id = await self.new_match(first, "invite", **clock)
        joined = await self.join(match_id, second)
        assert joined.json() == {"seat": "second"}, joined.text
        return match_id, first, second

    async def read(self, match_id: str, token: str | None = None) -> Msg:
        """``GET /api/matches/{id}`` as ``token`` sees it (a spectator without one)."""
        headers = bearer(token) if token is not None else {}
        response = await self.http.get(f"/api/matches/{match_id}", headers=headers)
        assert response.status_code == 200, response.text
        body: Msg = response.json()
        return body


class Peer:
    """One WebSocket of a player or spectator. ``frames`` holds every message received, in order;
    ``version`` and ``match`` follow the last ``state``/``update`` received."""

    def __init__(self, ws: ClientConnection, name: str) -> None:
        self.ws = ws
        self.name = name
        self.frames: list[Msg] = []
        self.invalid: list[str] = []
        self.version = -1
        self.match: Msg | None = None
        self._queue: asyncio.Queue[Msg | None] = asyncio.Queue()
        self._ids = itertools.count(1)
        self._reader = asyncio.create_task(self._read(), name=f"peer-{name}")
        OPENED.append(self)

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                if not isinstance(raw, str):
                    self.invalid.append(f"a binary frame: {raw!r}")
                    continue
                try:
                    _SERVER_MESSAGE.validate_json(raw)
                except ValidationError as exc:
                    self.invalid.append(f"{raw[:300]}: {exc}")
                    if exc.errors()[0]["type"] == "json_invalid":
                        continue
                msg: Msg = json.loads(raw)
                self.frames.append(msg)
                if msg["type"] in ("state", "update"):
                    self.version = msg["version"]
                    self.match = msg["match"]
                self._queue.put_nowait(msg)
        except ConnectionClosed:
            pass
        finally:
            self._queue.put_nowait(None)

    @property
    def close_code(self) -> int | None:
        return self.ws.close_code

    @property
    def view(self) -> Msg:
        assert self.match is not None, f"{self.name} has no match view yet"
        return self.match

    def errors(self) -> list[Msg]:
        return [f for f in self.frames if f["type"] == "error"]

    async def send_text(self, text: str | bytes) -> None:
        await self.ws.send(text)

    async def send(self, message: Msg) -> None:
        await self.ws.send(json.dumps(message))

    async def receive(self, timeout: float = TIMEOUT_S) -> Msg:
        try:
            msg = await asyncio.wait_for(self._queue.get(), timeout)
        except TimeoutError:
            raise AssertionError(f"{self.name}: no message within {timeout} s") from None
        if msg is None:
            self._queue.put_nowait(None)
            raise AssertionError(f"{self.name}: the socket closed ({self.close_code})")
        return msg

    async def until(self, wanted: Callable[[Msg], bool], timeout: float = TIMEOUT_S) -> Msg:
        """Read on, skipping other messages, to the first one that is ``wanted``."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            msg = await self.receive(max(left, 0.001))
            if wanted(msg):
                return msg

    async def until_type(self, kind: str, timeout: float = TIMEOUT_S) -> Msg:
        return await self.until(lambda m: m["type"] == kind, timeout)

    async def update_at(self, version: int, timeout: float = TIMEOUT_S) -> Msg:
        """The ``update`` of ``version``; an update past it means it was skipped."""
        msg = await self.until(lambda m: m["type"] == "update" and m["version"] >= version, timeout)
        assert msg["version"] == version, f"{self.name}: expected version {version}, got {msg}"
        return msg

    async def command(self, kind: str, version: int | None = None, **fields: Any) -> Msg:
        """Send a command made against ``version`` (default: the last one received) and return
        its ``ack`` or ``error``, told apart from other replies by a fresh ``id``."""
        client_id = f"{self.name}-{next(self._ids)}"
        made_at = self.version if version is None else version
        await self.send({"type": kind, "version": made_at, "id": client_id, **fields})

        def is_reply(m: Msg) -> bool:
            if m["type"] == "error" and m["id"] is None:
                return True  # refused before its id was read (not JSON, too large)
            return m["type"] in ("ack", "error") and m["id"] == client_id

        return await self.until(is_reply)

    async def act(self, kind: str, **fields: Any) -> int:
        """A command that must be applied: wait for its ack, return the version it made."""
        before = self.version
        reply = await self.command(kind, **fields)
        assert reply["type"] == "ack", f"{self.name}: {kind} {fields} refused: {reply}"
        assert reply["version"] == before + 1, reply
        version: int = reply["version"]
        return version

    async def no_message(self, seconds: float) -> None:
        """Nothing arrives within ``seconds``."""
        with contextlib.suppress(TimeoutError):
            msg = await asyncio.wait_for(self._queue.get(), seconds)
            raise AssertionError(f"{self.name}: unexpected {msg}")

    async def wait_closed(self, timeout: float = TIMEOUT_S) -> int | None:
        await asyncio.wait_for(self._reader, timeout)
        return self.close_code

    async def close(self) -> None:
        await self.ws.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._reader, TIMEOUT_S)
        self._reader.cancel()
        assert not self.invalid, f"{self.name}: frames off the protocol: {self.invalid[:3]}"


async def open_peer(
    server: LiveServer,
    match_id: str,
    name: str,
    token: str | None = None,
    *,
    origin: str | None = None,
    **query: str,
) -> Peer:
    """A socket to the match as ``token`` (a spectator without one); the bearer token goes in
    the handshake's header, as a non-browser client sends it."""
    headers = bearer(token) if token is not None else None
    ws = await connect(
        server.ws_url(match_id, **query),
        additional_headers=headers,
        origin=None if origin is None else Origin(origin),
        compression=None,
        open_timeout=TIMEOUT_S,
        close_timeout=1,
    )
    return Peer(ws, name)


def legal_options(legal: Msg) -> list[Msg]:
    """Every command the server says the viewer may give now, in the server's order."""
    options: list[Msg] = []
    for play in legal["plays"]:
        for at in play["places"] or [None]:
            options.append({"type": "play", "tile": play["tile"], "at": at})
    if legal["can_draw"]:
        options.append({"type": "draw"})
    if legal["can_decline"]:
        options.append({"type": "decline"})
    if legal["can_accept"]:
        options.append({"type": "accept"})
    options.extend({"type": "bid", "amount": bid["amount"]} for bid in legal["bids"])
    return options


def choose(legal: Msg, rng: random.Random) -> Msg:
    """A random legal command (its fields, without ``version``)."""
    options = legal_options(legal)
    assert options, f"a seat to act with nothing legal: {legal}"
    return rng.choice(options)
