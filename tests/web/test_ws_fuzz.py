"""The match socket fuzzed (the WebSocket half), in process.

Hypothesis sends three kinds of frame to a player's socket in a dealt match: arbitrary JSON
values, near-valid client messages (a real ``type`` with fields wrong, missing, extra, huge, deeply
nested, long, or holding lone surrogates) and raw text (broken JSON, duplicate keys, non-JSON
literals, binary frames). After each it checks what must hold for any input:

- the frame gets exactly one reply (``ack``, ``error`` or ``pong``), and every message the socket
  receives is UTF-8 that validates against the server models (``ServerMessage``);
- a refused frame (``error``) and a ping change nothing: the match keeps its version, and an
  ``ack`` carries the match's version (a press already in effect is acked and changes nothing);
- a reply's ``id`` is the frame's own or none;
- nothing is logged at ERROR or above;
- the socket stays usable: a ping sent after the frame gets its pong.

A close would have to carry a documented code other than 1011; none is expected in process, where
the size limit is the app's (``too_large``) and the rate limit is lifted. Examples are bounded
(:data:`EXAMPLES`) and derandomized, so the file takes a few seconds and fails the same way on
every run; a failure prints the frame that broke it.
"""

from __future__ import annotations

import itertools
import json
import logging
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import hypothesis
import pytest
from fastapi import FastAPI
from hypothesis import strategies as st
from pydantic import TypeAdapter

from spectacular_bid.rules.notation import SIDE_NOTATION
from spectacular_bid.service.matches import MatchService
from spectacular_bid.web.app import create_app
from spectacular_bid.web.messages import CLIENT_MESSAGES, ServerMessage
from spectacular_bid.web.settings import WebSettings

from .asgi_socket import AsgiSocket, Closed
from .guests import guest, joined_match

EXAMPLES = 120
"""Examples per kind of frame."""
MAX_BYTES = 4096
"""The app's message limit here (the default), which long strings go past."""
DOCUMENTED_CLOSES = frozenset({1007, 1008, 1009})
"""Close codes a client's frame may earn (docs/PROTOCOL.md); 1011 is the server's own failure."""
REPLIES = frozenset({"ack", "error", "pong"})

SERVER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)

FUZZ = hypothesis.settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture],
)


# -- the table ----------------------------------------------------------------------------------


@dataclass
class Table:
    """A dealt match and the first seat's socket; a new one after any command is applied, so a
    resign or a move does not leave the rest of the examples an ended match."""

    app: FastAPI
    client: httpx.AsyncClient
    match_id: str = ""
    ws: AsgiSocket | None = None
    version: int = -1
    stale: bool = True
    sentinels: itertools.count[int] = field(default_factory=itertools.count)

    @property
    def service(self) -> MatchService:
        service = self.app.state.service
        assert isinstance(service, MatchService)
        return service

    def match_version(self) -> int:
        return self.service.get(self.match_id).version

    async def socket(self) -> AsgiSocket:
        if self.stale or self.ws is None:
            await self.close()
            await self._deal()
            self.stale = False
        assert self.ws is not None
        return self.ws

    async def _deal(self) -> None:
        ann, bob = await guest(self.client, "Ann"), await guest(self.client, "Bob")
        self.match_id = await joined_match(self.client, ann, bob)
        path = f"/ws/matches/{self.match_id}"
        async with AsgiSocket(self.app, path, query={"token": bob}) as other:
            await other.receive_until("presence")
            await other.send_json({"type": "start", "version": 1})
            assert (await other.receive_until("ack"))["version"] == 2
        self.ws = AsgiSocket(self.app, path, query={"token": ann})
        await self.ws.__aenter__()
        await self.ws.receive_until("presence")
        await self.ws.send_json({"type": "start", "version": 2, "id": "deal"})
        while (await self.ws.receive_json())["type"] != "ack":
            pass
        self.version = self.match_version()
        assert self.version > 2, "both started: the round is dealt"

    async def close(self) -> None:
        if self.ws is not None and self.ws.closed is None:
            await self.ws.__aexit__(None, None, None)
        self.ws = None


@pytest.fixture
async def fuzz_app(tmp_path: Path) -> AsyncIterator[FastAPI]:
    """The rate limit lifted (the fuzzer sends hundreds of frames a second), a fixed deck."""
    settings = WebSettings(
        static_dir=tmp_path / "no-static",
        data_dir=tmp_path,
        fixed_deck_seed=7,
        rate_limit_per_s=1_000_000,
        rate_burst=1_000_000,
        max_message_bytes=MAX_BYTES,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


@pytest.fixture
async def table(fuzz_app: FastAPI) -> AsyncIterator[Table]:
    transport = httpx.ASGITransport(app=fuzz_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        table = Table(fuzz_app, client)
        yield table
        await table.close()


# -- the invariants -----------------------------------------------------------------------------


def received(text: str) -> dict[str, Any]:
    """A server message: UTF-8 (what uvicorn would send) and valid against the models."""
    text.encode()
    SERVER.validate_json(text)
    message: dict[str, Any] = json.loads(text)
    return message


def own_id(frame: str | bytes) -> object:
    """The ``id`` the frame carries as a plain JSON reader sees it (the last of two wins)."""
    if isinstance(frame, bytes):
        return None
    try:
        data = json.loads(frame)
    except (ValueError, RecursionError):
        return None
    return data.get("id") if isinstance(data, dict) else None


async def check(table: Table, caplog: pytest.LogCaptureFixture, frame: str | bytes) -> None:
    """Send ``frame`` and a sentinel ping; check every invariant of the module docstring. After
    a failure the next example starts on a new match, so Hypothesis replays it on a clean one
    (and reports the frame that broke the socket, not the one after it)."""
    try:
        await _check(table, caplog, frame)
    except BaseException:
        table.stale = True
        raise


async def _check(table: Table, caplog: pytest.LogCaptureFixture, frame: str | bytes) -> None:
    ws = await table.socket()
    before = table.match_version()
    logged = len(caplog.records)
    sentinel = f"sentinel-{next(table.sentinels)}"
    if isinstance(frame, bytes):
        await ws.send_bytes(frame)
    else:
        await ws.send_text(frame)
    await ws.send_text(json.dumps({"type": "ping", "id": sentinel}))
    replies: list[dict[str, Any]] = []
    closed: Closed | None = None
    try:
        while True:
            message = received(await ws.receive_text())
            if message["type"] == "pong" and message["id"] == sentinel:
                break
            if message["type"] in REPLIES:
                replies.append(message)
    except Closed as exc:
        closed = exc
    loud = [r for r in caplog.records[logged:] if r.levelno >= logging.ERROR]
    assert not loud, [r.getMessage() for r in loud]
    if closed is not None:
        assert closed.code in DOCUMENTED_CLOSES, f"closed with {closed.code}: {frame!r}"
        table.stale = True
        return
    assert len(replies) == 1, f"{len(replies)} replies to {frame!r}: {replies}"
    (reply,) = replies
    hypothesis.event("reply", f"{reply['type']} {reply.get('code', '')}".strip())
    assert reply["id"] is None or reply["id"] == own_id(frame), (frame, reply)
    after = table.match_version()
    if reply["type"] == "ack":  # applied, or a press already in effect (changes nothing)
        assert after == reply["version"] >= before, (frame, reply)
        table.stale = after > before  # then a new match for the next example
    else:
        assert after == before == reply["version"], (frame, reply)


# -- the frames ---------------------------------------------------------------------------------

lone_surrogates = st.characters(categories=["Cs"])
texts = st.text(st.characters() | lone_surrogates, max_size=12)
long_texts = st.builds(
    lambda c, n: c * n,
    st.sampled_from("x\u00e9\u20ac\U0001f600") | st.characters(),
    st.integers(60, 1_000) | st.integers(MAX_BYTES - 100, MAX_BYTES + 100),
)
"""Long strings, from well within the size limit to just past it (in UTF-8, 1 to 4 bytes each,
or 6 escaped)."""
huge_numbers = st.sampled_from([2**63, -(2**63) - 1, 10**40, -(10**40), 1e308, -1e308, 1e-308])
scalars = (
    st.none() | st.booleans() | st.integers() | huge_numbers | st.floats(allow_nan=False) | texts
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=12,
)


def nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


deep_values = st.integers(1, 1_500).map(nested)
"""Nesting from shallow to past what json's decoder allows (its recursion limit)."""
wild = json_values | deep_values | long_texts

tiles = st.builds("{}-{}".format, st.integers(-1, 9), st.integers(-1, 9))
places = st.builds("{}:{}".format, tiles, st.sampled_from([*SIDE_NOTATION, "up", ""]))
FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "tile": tiles,
    "at": st.none() | places,
    "seat": st.sampled_from(["first", "second", "spectator", "FIRST"]),
    "amount": st.integers(-10, 310).map(lambda n: n * 5 // 5) | huge_numbers,
    "id": st.text(max_size=70) | texts,
}


@st.composite
def near_valid(draw: st.DrawFn, version: int) -> dict[str, Any]:
    """A real ``type`` with each field right, wrong, missing or doubled by an extra one."""
    kind = draw(st.sampled_from(sorted(CLIENT_MESSAGES)))
    fields = list(CLIENT_MESSAGES[kind].model_fields)
    message: dict[str, Any] = {"type": kind}
    for name in fields:
        if name == "type":
            continue
        good = FIELD_VALUES.get(name, st.sampled_from([version, version - 1, version + 1, 0]))
        choice = draw(st.sampled_from(["good"] * 6 + ["wild", "missing"]))
        if choice == "good":
            message[name] = draw(good)
        elif choice == "wild":
            message[name] = draw(wild)
    if draw(st.integers(0, 3)) == 0:
        extra = draw(st.sampled_from(["extra", "Type", "", "\ud800", "id "]))
        message[extra] = draw(wild)
    return message


def as_text(value: Any, ascii_only: bool) -> str:
    """JSON text: ASCII (surrogates spelt ``\\ud800``), or raw (a surrogate raw in the text,
    which only an in-process socket can carry)."""
    try:
        return json.dumps(value, ensure_ascii=ascii_only)
    except RecursionError:
        return "[" * sys.getrecursionlimit() + "]" * sys.getrecursionlimit()


def mutations(text: str) -> st.SearchStrategy[str]:
    """Small damage to a valid frame: cut it, insert a character, swap in a JSON-like token."""
    cut = st.integers(0, len(text)).map(lambda i: text[:i])
    inserted = st.tuples(st.integers(0, len(text)), st.characters()).map(
        lambda p: text[: p[0]] + p[1] + text[p[0] :]
    )
    return cut | inserted


RAW_FRAMES = [
    '{"type":"ping","type":"ping"}',
    '{"type":"ping","id":"a","id":"a"}',
    '{"type":"bid","version":1,"amount":NaN}',
    '{"type":"bid","version":1,"amount":Infinity}',
    '{"type":"bid","version":1,"amount":-Infinity}',
    '{"type":"ping"} {"type":"ping"}',
    '{"type":"ping"}\n',
    '\ufeff{"type":"ping"}',
    '{"type":"ping","id":"\\ud800"}',
    '{"type":"ping","id":"\\udfff\\ud800"}',
    '{"type":"ping","id":"\\u0000"}',
    '{"type":"ping","id":"\\x41"}',
    "",
    " ",
    "null",
    "[" * 100_000,
]


# -- the tests ----------------------------------------------------------------------------------


@FUZZ
@hypothesis.given(value=json_values, ascii_only=st.booleans())
async def test_any_json_value(
    table: Table, caplog: pytest.LogCaptureFixture, value: Any, ascii_only: bool
) -> None:
    await check(table, caplog, as_text(value, ascii_only))


@FUZZ
@hypothesis.given(data=st.data(), ascii_only=st.booleans())
async def test_near_valid_messages(
    table: Table, caplog: pytest.LogCaptureFixture, data: st.DataObject, ascii_only: bool
) -> None:
    await table.socket()
    message = data.draw(near_valid(table.version), label="message")
    await check(table, caplog, as_text(message, ascii_only))


@FUZZ
@hypothesis.given(data=st.data())
async def test_raw_text_and_binary_frames(
    table: Table, caplog: pytest.LogCaptureFixture, data: st.DataObject
) -> None:
    await table.socket()
    valid = json.dumps({"type": "ping", "id": "raw"})
    frames: st.SearchStrategy[str | bytes] = (
        st.sampled_from(RAW_FRAMES)
        | st.text(st.characters() | lone_surrogates, max_size=50)
        | mutations(valid)
        | mutations(json.dumps({"type": "draw", "version": table.version, "id": "raw"}))
        | st.binary(max_size=30)
    )
    await check(table, caplog, data.draw(frames, label="frame"))
