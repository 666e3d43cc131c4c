"""A match driven by commands over the real protocol, so that a browser test reaches a phase in a
few hundred milliseconds instead of clicking its way there.

Each seat is a guest made over HTTP; its token is both the browser contexts' cookie (so any number
of pages, at any size, show that seat) and the bearer of a socket of its own that sends the
commands (docs/PROTOCOL.md, "Client → server"). A command waits for its ``ack`` (or fails the test
on an ``error``), and the reads use ``GET /api/matches/{id}`` as that seat.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

import httpx
from playwright.sync_api import BrowserContext
from websockets.sync.client import ClientConnection, connect

from .policy import Choice

TIMEOUT_S = 10.0
COOKIE = "specbid_token"

Msg = dict[str, Any]


def new_guest(base_url: str, name: str) -> str:
    """A guest named ``name``; its token."""
    response = httpx.post(f"{base_url}/api/session", json={"name": name}, timeout=TIMEOUT_S)
    assert response.status_code == 201, response.text
    token: str = response.json()["token"]
    return token


def sign_in(context: BrowserContext, base_url: str, token: str) -> None:
    """The context's pages act for ``token``'s guest (the cookie a browser would keep)."""
    context.add_cookies([{"name": COOKIE, "value": token, "url": base_url}])


def open_seat(stack: ExitStack, base_url: str, match_id: str, token: str) -> ScriptedSeat:
    """``token``'s seat of the match, its socket open until ``stack`` closes."""
    ws_url = base_url.replace("http://", "ws://", 1)
    ws = stack.enter_context(
        connect(f"{ws_url}/ws/matches/{match_id}?token={token}", open_timeout=TIMEOUT_S)
    )
    return ScriptedSeat(base_url, match_id, token, ws)


class ScriptedSeat:
    """One seat's socket: sends commands and waits for what they made."""

    def __init__(self, base_url: str, match_id: str, token: str, ws: ClientConnection) -> None:
        self.base_url = base_url
        self.match_id = match_id
        self.token = token
        self.ws = ws
        self._ids = itertools.count(1)
        self.version = -1
        self._receive_until(lambda msg: msg["type"] == "state")

    def read(self) -> Msg:
        """``{"version": V, "match": {...}}`` as this seat sees it now."""
        response = httpx.get(
            f"{self.base_url}/api/matches/{self.match_id}",
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=TIMEOUT_S,
        )
        assert response.status_code == 200, response.text
        body: Msg = response.json()
        return body

    def _receive_until(self, done: Callable[[Msg], bool]) -> Msg:
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no answer from the server within {TIMEOUT_S} s"
            msg: Msg = json.loads(self.ws.recv(timeout=left))
            if msg["type"] in ("state", "update"):
                self.version = msg["version"]
            if done(msg):
                return msg

    def send(self, command: Msg) -> Msg:
        """Send ``command`` made against the current version; the ``ack`` it got."""
        command_id = f"s{next(self._ids)}"
        body = {**command, "id": command_id, "version": self.read()["version"]}
        self.ws.send(json.dumps(body))
        answer = self._receive_until(
            lambda msg: msg["type"] in ("ack", "error") and msg.get("id") == command_id
        )
        assert answer["type"] == "ack", f"{command} was refused: {answer}"
        return answer


def command_of(choice: Choice) -> Msg:
    """The protocol command for a :mod:`.policy` choice."""
    kind, argument, place = choice
    if kind == "play":
        return {"type": "play", "tile": argument, "at": place or None}
    if kind == "bid":
        return {"type": "bid", "amount": int(argument)}
    return {"type": kind}
