"""What the lobby's browser tests do besides clicking: players and matches made, and matches
ended, over the server's HTTP API and WebSocket from the test itself, so that the page under test
only reads what they leave behind."""

from __future__ import annotations

import json
import time
from types import TracebackType
from typing import Any, Self

import httpx
from websockets.sync.client import connect

from .server import BrowserServer


class Api:
    """The server's HTTP API with bearer tokens (no cookie: each call names its player)."""

    def __init__(self, server: BrowserServer) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.url, timeout=10)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.http.close()

    def guest(self, name: str) -> str:
        made = self.http.post("/api/session", json={"name": name})
        assert made.status_code == 201, made.text
        self.http.cookies.clear()
        token: str = made.json()["token"]
        return token

    def account(self, name: str) -> str:
        token = self.guest(name)
        made = self.post("/api/account", token, {"password": "correct horse"})
        session: str = made["token"]
        return session

    def post(self, path: str, token: str, body: dict[str, Any] | None = None) -> Any:
        answer = self.http.post(path, json=body or {}, headers={"Authorization": f"Bearer {token}"})
        self.http.cookies.clear()
        assert answer.is_success, f"POST {path}: {answer.status_code} {answer.text}"
        return answer.json()

    def get(self, path: str) -> Any:
        answer = self.http.get(path)
        assert answer.is_success, f"GET {path}: {answer.status_code} {answer.text}"
        return answer.json()

    def invitation(self, first: str, second: str | None = None) -> str:
        match_id: str = self.post("/api/matches", first, {"mode": "invite"})["id"]
        if second is not None:
            self.post(f"/api/matches/{match_id}/join", second)
        return match_id

    def resign(self, match_id: str, token: str) -> None:
        """The player of ``token`` gives the match up over its socket (R5.2)."""
        url = f"ws://127.0.0.1:{self.server.port}/ws/matches/{match_id}?token={token}"
        with connect(url, open_timeout=10) as ws:
            frame: dict[str, Any] = {}
            while frame.get("type") != "state":
                frame = json.loads(ws.recv(timeout=10))
            ws.send(json.dumps({"type": "resign", "version": frame["version"], "id": "r"}))
            while frame.get("type") != "update" or frame["match"]["status"] == "active":
                frame = json.loads(ws.recv(timeout=10))
            assert frame["match"]["status"] == "finished", frame

    def until(self, path: str, ok: Any, what: str, within_s: float = 15.0) -> Any:
        """``GET path`` until ``ok(answer)`` holds."""
        deadline = time.monotonic() + within_s
        answer = self.get(path)
        while not ok(answer):
            assert time.monotonic() < deadline, f"{what} (after {within_s} s): {answer!r}"
            time.sleep(0.05)
            answer = self.get(path)
        return answer
