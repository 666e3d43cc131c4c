"""The API's first answers, given with the client's page, so that it need not ask for them.

A page of the client starts by reading the API: who is this browser (``GET /api/session``), and
the lobby (``GET /api/lobby``) or the match (``GET /api/matches/{id}``). Asked for after the
page and its script have come, each costs a round trip more before the page answers input, and
a request on every visit, however warm the cache. So the server answers them as it serves the
page: each read of the route's list (:data:`PAGE_READS`) is made against the app itself, as the
same browser (its cookie and ``Authorization`` header, nothing else), through the same routes,
checks and middleware as if the browser had asked, and every ``200`` answer goes into the page,
in a JSON block (``<script type="application/json" id="client-answers">``) keyed by the path
the client would have asked. The client takes each answer once, at its first read of that path,
and forgets them all at its first request that changes something (``static/js/api.js``). An
answer that is not ``200`` is left out: the client asks for it and handles the refusal itself.

Such a page is the browser's own view (a player's match holds its own hand), so it is sent
``Cache-Control: private, no-cache``: kept by that browser only, revalidated on each visit.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

import anyio
from starlette.types import ASGIApp, Message, Scope

ANSWERS_ID: Final = "client-answers"
PAGE_READS: Final[Mapping[str, tuple[str, ...]]] = {
    "/": ("/api/session", "/api/lobby"),
    "/m/{match_id}": ("/api/session", "/api/matches/{match_id}"),
}
"""Per client route, the reads its page starts with (the lobby's and a match's)."""
_PASSED_ON: Final = frozenset({b"cookie", b"authorization", b"host", b"user-agent"})
"""The browser's headers a read is made with: who it is, and as whom it reached the server."""
_ESCAPES: Final = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}
"""So that no text in an answer (a player's name) can end the block or start markup."""


async def read_answers(app: ASGIApp, scope: Scope, paths: tuple[str, ...]) -> dict[str, Any]:
    """Each of ``paths`` read from ``app`` as the request of ``scope``; the ``200`` answers."""
    answers: dict[str, Any] = {}
    for path in paths:
        status, body = await _get(app, scope, path)
        if status == 200:
            answers[path] = json.loads(body)
    return answers


def answers_block(answers: Mapping[str, Any]) -> str:
    """The JSON block that carries ``answers`` in the page's head ("" when there are none)."""
    if not answers:
        return ""
    text = json.dumps(answers, separators=(",", ":"), ensure_ascii=False).translate(_ESCAPES)
    return f'  <script type="application/json" id="{ANSWERS_ID}">{text}</script>\n'


async def _get(app: ASGIApp, scope: Scope, path: str) -> tuple[int, bytes]:
    headers = [(name, value) for name, value in scope["headers"] if name in _PASSED_ON]
    read: Scope = {
        "type": "http",
        "asgi": scope.get("asgi", {"version": "3.0"}),
        "http_version": scope.get("http_version", "1.1"),
        "method": "GET",
        "scheme": scope.get("scheme", "http"),
        "server": scope.get("server"),
        "client": scope.get("client"),
        "root_path": "",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [*headers, (b"accept", b"application/json")],
        "state": dict(scope.get("state", {})),
    }
    status = 500
    body: list[bytes] = []
    asked = False
    answered = anyio.Event()

    async def receive() -> Message:
        nonlocal asked
        if asked:  # the "browser" goes only once it has the whole answer
            await answered.wait()
            return {"type": "http.disconnect"}
        asked = True
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])
        elif message["type"] == "http.response.body":
            body.append(bytes(message.get("body", b"")))
            if not message.get("more_body", False):
                answered.set()

    await app(read, receive, send)
    return status, b"".join(body)
