"""Frames a real server must survive quietly (PROTOCOL.md "Limits and close codes"): invalid UTF-8
in a text message closes that socket with 1007, and a lone surrogate spelt in JSON gets a
``bad_message``; neither is logged as the server's error, nor touches the other sockets of the
match.

The server here logs at INFO, so the test sees the one line each refusal is worth.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from .server import LiveServer, assert_clean_log, serve
from .wire import Api, Peer, open_peer

CLOSE_INVALID_DATA = 1007
LOG_WAIT_S = 2.0


@pytest.fixture(scope="module")
def info_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from serve(tmp_path_factory.mktemp("frame-errors"), "--log-level", "info")


async def logged(server: LiveServer, fragment: str) -> str:
    """What the server logged from now until ``fragment`` appears (or a while has passed)."""
    text = ""
    deadline = asyncio.get_running_loop().time() + LOG_WAIT_S
    while fragment not in text and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)
        text += server.new_log()
    return text


async def two_peers(server: LiveServer) -> tuple[Api, Peer, Peer]:
    """The first seat's socket and a spectator's, both past their first messages."""
    api = Api(server)
    match_id, ann, _ = await api.duel()
    player = await open_peer(server, match_id, "ann", ann)
    spectator = await open_peer(server, match_id, "spectator")
    for peer in (player, spectator):
        await peer.until_type("presence")
    return api, player, spectator


async def assert_answers(peer: Peer) -> None:
    await peer.send({"type": "ping", "id": "still-here"})
    pong = await peer.until(lambda m: m["type"] == "pong")
    assert pong["id"] == "still-here"


@pytest.mark.parametrize(
    "fragments",
    [
        [b'{"type":"ping","id":"\xff"}'],  # never UTF-8
        [b'{"type":"ping","id":"\xed\xa0\x80"}'],  # a surrogate, UTF-8-encoded: not UTF-8
        [b'{"type":"ping","id":"\xc3'],  # cut inside a character
        [b'{"type":"ping",', b'"id":"\xe2\x82', b'"}'],  # over fragments, never completed
    ],
)
async def test_invalid_utf8_closes_with_1007_and_logs_no_error(
    info_server: LiveServer, fragments: list[bytes]
) -> None:
    api, player, spectator = await two_peers(info_server)
    info_server.new_log()
    if len(fragments) == 1:
        await player.ws.send(fragments[0], text=True)
    else:
        await player.ws.send(fragments, text=True)
    assert await player.wait_closed() == CLOSE_INVALID_DATA
    log = await logged(info_server, "not UTF-8")
    lines = [line for line in log.splitlines() if "a text message is not UTF-8" in line]
    assert len(lines) == 1, log
    assert lines[0].startswith("INFO:"), log
    assert "WebSocket closed with 1007" in lines[0]
    assert_clean_log(log)
    await assert_answers(spectator)
    for peer in (player, spectator):
        await peer.close()
    await api.close()


async def test_utf8_split_over_fragments_is_one_message(info_server: LiveServer) -> None:
    """A character cut between two fragments is whole in the message: answered, not closed."""
    api, player, spectator = await two_peers(info_server)
    euro = "€".encode()
    await player.ws.send([b'{"type":"ping","id":"' + euro[:2], euro[2:] + b'"}'], text=True)
    pong = await player.until(lambda m: m["type"] == "pong")
    assert pong["id"] == "€"
    for peer in (player, spectator):
        await peer.close()
    await api.close()


@pytest.mark.parametrize(
    "text",
    [
        '{"type":"ping","id":"\\ud800"}',
        '{"type":"ping","id":"ok","\\udfff":1}',
        '{"type":"\\ud800","version":1}',
    ],
)
async def test_a_lone_surrogate_is_a_bad_message_and_the_socket_stays(
    info_server: LiveServer, text: str
) -> None:
    api, player, spectator = await two_peers(info_server)
    info_server.new_log()
    await player.send_text(text)
    error = await player.until(lambda m: m["type"] == "error")
    assert error["code"] == "bad_message"
    assert error["id"] == json.loads(text).get("id") if "ok" in text else error["id"] is None
    await assert_answers(player)
    await asyncio.sleep(0.1)  # a window for a wrong log line: none may come in it
    assert_clean_log(info_server.new_log())
    assert not spectator.errors()
    for peer in (player, spectator):
        await peer.close()
    await api.close()
