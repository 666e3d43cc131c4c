"""Hostile frames on ``/ws/matches/{id}`` (PROTOCOL.md "Limits and close codes"): lone surrogates,
duplicate keys, a foreign scheme in ``Origin``, and the id of a rate-limited message.

The in-process socket hands the server's text over as it is, where uvicorn encodes it to UTF-8
first; :func:`reply` does that encoding too, so a reply no real socket could carry fails here as
it would kill the socket there.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import hypothesis
import pytest
from fastapi import FastAPI
from hypothesis import strategies as st
from pydantic import TypeAdapter

from spectacular_bid.web.app import create_app
from spectacular_bid.web.frame_decode import (
    FrameRefusal,
    client_id_in,
    client_id_of,
    decode_client_text,
)
from spectacular_bid.web.messages import ServerMessage
from spectacular_bid.web.settings import WebSettings

from .asgi_socket import AsgiSocket, Closed
from .guests import guest, joined_match, new_match

SERVER = TypeAdapter(ServerMessage)


def socket(app: FastAPI, match_id: str, token: str, **headers: str | None) -> AsgiSocket:
    return AsgiSocket(app, f"/ws/matches/{match_id}", query={"token": token}, headers=headers)


async def reply(ws: AsgiSocket) -> dict[str, Any]:
    """The next message, which must be UTF-8 (as a real socket sends it) and in the protocol."""
    text = await ws.receive_text()
    text.encode()  # UnicodeEncodeError: uvicorn would fail the socket with 1011
    message: dict[str, Any] = SERVER.validate_json(text).root.model_dump(mode="json")
    return message


async def assert_still_usable(ws: AsgiSocket) -> None:
    await ws.send_text('{"type":"ping","id":"after"}')
    pong = await reply(ws)
    assert (pong["type"], pong["id"]) == ("pong", "after")


def quiet(caplog: pytest.LogCaptureFixture) -> None:
    """Nothing above INFO was logged: a client's bad frame is not the server's error."""
    loud = [r for r in caplog.records if r.levelno > logging.INFO]
    assert not loud, [r.getMessage() for r in loud]
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


# -- lone surrogates ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "client_id"),
    [
        ('{"type":"ping","id":"\\ud800"}', None),
        ('{"type":"ping","id":"a\\uDFFFb"}', None),
        ('{"type":"ping","id":"\\ude00\\ud83d"}', None),  # a pair in the wrong order
        ('{"type":"\\ud800","id":"s1"}', "s1"),
        ('{"type":"play","version":1,"tile":"\\udc00","id":"s2"}', "s2"),
        ('{"type":"play","version":1,"tile":"1-1","at":"\\ud800:lineA","id":"s3"}', "s3"),
        ('{"type":"ping","id":"s4","\\ud800":1}', "s4"),
        ('{"type":"draw","version":1,"seat":"\\ud800","id":"s5"}', "s5"),
        ('{"type":"ping","id":"s6","x":["ok",{"y":"\\ud800"}]}', "s6"),
        ('["\\ud800"]', None),
        ('"\\ud800"', None),
        ('{"type":"ping","id":"\ud800"}', None),  # a raw surrogate in the text (in-process only)
    ],
)
async def test_a_lone_surrogate_anywhere_is_a_bad_message(
    app: FastAPI,
    client: httpx.AsyncClient,
    caplog: pytest.LogCaptureFixture,
    text: str,
    client_id: str | None,
) -> None:
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    match_id = await joined_match(client, ann, bob)
    async with socket(app, match_id, ann) as ws:
        await ws.receive_until("presence")
        await ws.send_text(text)
        error = await reply(ws)
        assert (error["type"], error["code"], error["version"], error["id"]) == (
            "error",
            "bad_message",
            1,
            client_id,
        )
        assert "surrogate" in error["message"]
        await assert_still_usable(ws)
    assert (await client.get(f"/api/matches/{match_id}")).json()["version"] == 1
    quiet(caplog)


async def test_a_surrogate_pair_is_one_character(app: FastAPI, client: httpx.AsyncClient) -> None:
    """``\\ud83d\\ude00`` is JSON's spelling of U+1F600, not a lone surrogate: it is echoed."""
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    async with socket(app, match_id, ann) as ws:
        await ws.receive_until("presence")
        await ws.send_text('{"type":"ping","id":"\\ud83d\\ude00 \\\\ud800"}')
        pong = await reply(ws)
        assert (pong["type"], pong["id"]) == ("pong", "\U0001f600 \\ud800")


# -- duplicate keys -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "client_id"),
    [
        ('{"type":"ping","type":"ping","id":"d1"}', "type", "d1"),
        ('{"type":"start","version":0,"version":1,"id":"d2"}', "version", "d2"),
        ('{"type":"ping","id":"a","id":"b"}', "id", None),
        ('{"type":"ping","id":"d3","x":[{"k":1,"k":2}]}', "k", "d3"),
    ],
)
async def test_duplicate_keys_are_a_bad_message_naming_the_key(
    app: FastAPI,
    client: httpx.AsyncClient,
    caplog: pytest.LogCaptureFixture,
    text: str,
    key: str,
    client_id: str | None,
) -> None:
    """The last of two values would win, so a command could say one thing to one reader and
    another to the next: refused, and nothing changes (here a start, which would be acked)."""
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    match_id = await joined_match(client, ann, bob)
    async with socket(app, match_id, ann) as ws:
        await ws.receive_until("presence")
        await ws.send_text(text)
        error = await reply(ws)
        assert (error["type"], error["code"], error["id"]) == ("error", "bad_message", client_id)
        assert repr(key) in error["message"]
        await assert_still_usable(ws)
    assert (await client.get(f"/api/matches/{match_id}")).json()["version"] == 1
    quiet(caplog)


# -- the origin's scheme ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "scheme"),
    [("https://testserver", "ws"), ("https://testserver:80", "ws"), ("http://testserver", "wss")],
)
async def test_an_origin_of_another_scheme_is_refused(
    app: FastAPI, client: httpx.AsyncClient, origin: str, scheme: str
) -> None:
    """The same host and port under another scheme is another origin (RFC 6454): a page served
    over https elsewhere is not this http server's own page."""
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    ws = socket(app, match_id, ann, origin=origin)
    ws.scope["scheme"] = scheme
    with pytest.raises(Closed) as refused:
        async with ws:
            pass
    assert refused.value.code == 1008


async def test_the_own_origin_of_a_tls_server_is_accepted(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    ws = socket(app, match_id, ann, origin="https://testserver")
    ws.scope["scheme"] = "wss"
    async with ws:
        assert (await reply(ws))["type"] == "state"


# -- the id of a rate-limited message -----------------------------------------------------------


@pytest.fixture
async def slow_app(tmp_path: Path) -> AsyncIterator[FastAPI]:
    """Two messages, then nothing more for a very long time."""
    settings = WebSettings(
        static_dir=tmp_path, rate_limit_per_s=0.001, rate_burst=20, data_dir=tmp_path
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


@pytest.mark.parametrize(
    ("text", "client_id"),
    [
        ('{"type":"ping","id":"r1"}', "r1"),
        ('{"id":"r2","type":"ping"}', "r2"),
        ('{ "type" : "play", "version": 3, "tile": "1-1", "at": null, "id" : "r3" }', "r3"),
        ('{"type":"ping","id":"r\\"4\\u00e9"}', 'r"4é'),
        ('{"type":"ping","x":{"id":"nested"}}', None),
        ('{"type":"ping","x":"\\",\\"id\\":\\"in-a-string"}', None),
        ('{"type":"ping","x":[1,{"a":"]}"}],"id":"r5"}', None),  # after an array: unsure
        ('{"type":"ping","x":-1.5e+3,"y":true,"z":null,"id":"r5"}', "r5"),
        ('{"type":"ping","id":"\\ud800"}', None),
        ('{"type":"ping","id":12}', None),
        ('{"type":"ping","id":"' + "x" * 65 + '"}', None),
        ('[{"id":"in-a-list"}]', None),
        ("not json", None),
    ],
)
async def test_a_rate_limited_message_carries_its_id(
    slow_app: FastAPI, text: str, client_id: str | None
) -> None:
    transport = httpx.ASGITransport(app=slow_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        ann = await guest(client, "Ann")
        match_id = await new_match(client, ann)
    async with socket(slow_app, match_id, ann) as ws:
        await ws.receive_until("presence")
        for _ in range(20):  # the burst
            await ws.send_text('{"type":"ping"}')
            assert (await reply(ws))["type"] == "pong"
        await ws.send_text(text)
        error = await reply(ws)
        assert (error["code"], error["id"]) == ("rate_limited", client_id)


# -- the cheap id scan against the full decoding ------------------------------------------------

_keys = st.sampled_from(["type", "version", "tile", "at", "x", "id\u00e9", "i"]) | st.text(
    max_size=4
)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_values = st.recursive(
    _scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=3)
)
_ids = st.text(max_size=70) | st.integers() | st.none() | st.characters(categories=["Cs"])


@hypothesis.settings(max_examples=300, deadline=None, derandomize=True)
@hypothesis.given(
    members=st.dictionaries(_keys, _values, max_size=5),
    client_id=_ids,
    place=st.integers(0, 5),
    indent=st.none() | st.integers(0, 2),
    ascii_only=st.booleans(),
)
def test_the_id_scan_never_disagrees_with_decoding(
    members: dict[str, Any], client_id: object, place: int, indent: int | None, ascii_only: bool
) -> None:
    """:func:`client_id_in` gives the id the full decoding gives, or None when unsure — and is
    sure whenever every member before the id is a scalar (as in every real client message)."""
    items = [(k, v) for k, v in members.items() if k != "id"]
    items.insert(min(place, len(items)), ("id", client_id))
    text = json.dumps(dict(items), indent=indent, ensure_ascii=ascii_only)
    try:
        decoded = client_id_of(decode_client_text(text))
    except FrameRefusal as refusal:
        decoded = refusal.client_id
    scanned = client_id_in(text)
    assert scanned is None or scanned == decoded, (text, scanned, decoded)
    before = items[: min(place, len(items))]
    if decoded is not None and all(not isinstance(v, list | dict) for _, v in before):
        assert scanned == decoded, text


@pytest.mark.parametrize(
    ("text", "client_id"),
    [
        (r'{"type":"ping","x":"\",\"id\":\"fake"}', None),  # an id inside a string
        (r'{"x\\":1,"id":"real"}', "real"),  # a key ending in a backslash
        (r'{"x":"\\\\","id":"real"}', "real"),
        (r'{"\u0069d":"escaped-key"}', None),  # an id, but spelt so the scan is unsure
        ('{"id"  :  "spaced"  }', "spaced"),
        (r'{"id":"a\u0000b"}', "a\x00b"),
        ('{"id":"raw\x01"}', None),  # a raw control character: not JSON
        (r'{"id":"\ud83d\ude00"}', "\U0001f600"),
        (r'{"id":"\ud800"}', None),
        ('{"id":"unfinished', None),
    ],
)
def test_the_id_scan_on_escapes(text: str, client_id: str | None) -> None:
    assert client_id_in(text) == client_id
