"""Bad input over a real server changes nothing and gets its error to the sender only (R8.3):
illegal, stale, duplicated, malformed, unknown, oversized and flooding messages."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from .server import LiveServer, assert_clean_log
from .wire import Api, Peer, open_peer

FRAME_LIMIT_BYTES = 4096
FLOOD = 60
"""Far beyond the default burst of 20 messages."""
CLOSE_TOO_BIG = 1009
OVERSIZED_BATCHES = 6
OVERSIZED_SOCKETS = 30
CLOSE_POLICY = 1008


class Table:
    """A dealt match, what each seat held when it was dealt, and a way to prove nothing moved."""

    def __init__(self, api: Api, match_id: str, tokens: dict[str, str]) -> None:
        self.api = api
        self.match_id = match_id
        self.tokens = tokens
        self.version = -1
        self.views: dict[str, dict[str, Any]] = {}

    async def remember(self) -> None:
        for seat, token in self.tokens.items():
            body = await self.api.read(self.match_id, token)
            self.version = body["version"]
            self.views[seat] = body["match"]

    async def assert_unchanged(self) -> None:
        for seat, token in self.tokens.items():
            body = await self.api.read(self.match_id, token)
            assert body["version"] == self.version
            now, then = body["match"], self.views[seat]
            assert now["hand"] == then["hand"]
            assert now["legal"] == then["legal"]
            assert now["board"] == then["board"]
            assert now["clock"]["running"] == then["clock"]["running"]


async def refused(
    peer: Peer, text: str | bytes, code: str, version: int, client_id: str | None
) -> None:
    await peer.send_text(text)
    reply = await peer.until(lambda m: m["type"] in ("ack", "error"))
    assert (reply["type"], reply["code"], reply["version"], reply["id"]) == (
        "error",
        code,
        version,
        client_id,
    ), reply


async def dealt_table(api: Api, server: LiveServer) -> tuple[Table, dict[str, Peer], Peer]:
    """A dealt match with both seats and a spectator connected, and its state remembered."""
    match_id, ann, bob = await api.duel()
    tokens = {"first": ann, "second": bob}
    peers = {seat: await open_peer(server, match_id, seat, tokens[seat]) for seat in tokens}
    spectator = await open_peer(server, match_id, "spectator")
    await peers["first"].act("start")
    await peers["second"].update_at(peers["first"].version)
    dealt = await peers["second"].act("start")
    await peers["first"].update_at(dealt)
    table = Table(api, match_id, tokens)
    await table.remember()
    return table, peers, spectator


async def test_bad_input_changes_nothing_and_errs_to_the_sender_only(server: LiveServer) -> None:
    """R8.3 and the version rule: each refusal has its exact code, the match's version and the
    message's id; the match, both hands and the other sockets are untouched."""
    api = Api(server)
    table, peers, spectator = await dealt_table(api, server)
    match_id, tokens = table.match_id, table.tokens
    seat = table.views["first"]["to_act"]
    other = "second" if seat == "first" else "first"
    mover, bystander = peers[seat], peers[other]
    view = table.views[seat]
    legal = view["legal"]
    assert legal["opening"], "the first decision of a match is its opening tile (R2.3)"
    opening = legal["plays"][0]["tile"]
    good = {"type": "play", "tile": opening, "at": None}
    v = table.version

    def text(**fields: Any) -> str:
        return json.dumps({"version": v, **good, **fields})

    # Against the rules (R2.3, R3.1): another tile of the hand, a place for the opening tile,
    # a tile not in the hand.
    not_opening = next(t for t in view["hand"] if t != opening)
    not_held = next(
        f"{a}-{b}" for a in range(7) for b in range(a, 7) if f"{a}-{b}" not in view["hand"]
    )
    await refused(mover, text(tile=not_opening, id="i1"), "illegal", v, "i1")
    await refused(mover, text(at=f"{opening}:lineA", id="i2"), "illegal", v, "i2")
    await refused(mover, text(tile=not_held, id="i3"), "illegal", v, "i3")
    await table.assert_unchanged()
    # Made against another version: an older one, or one the match never reached.
    await refused(mover, text(version=v - 1, id="s1"), "stale_version", v, "s1")
    await refused(mover, text(version=v + 1, id="s2"), "stale_version", v, "s2")
    await table.assert_unchanged()
    # Malformed: not JSON, not an object, a binary frame, a wrong or unknown field, a bad tile.
    await refused(mover, "{not json", "bad_message", v, None)
    await refused(mover, "[1, 2]", "bad_message", v, None)
    await refused(mover, text().encode(), "bad_message", v, None)
    await refused(mover, text(version="3", id="m1"), "bad_message", v, "m1")
    await refused(mover, text(colour="red", id="m2"), "bad_message", v, "m2")
    await refused(mover, text(tile="7-7", id="m3"), "bad_message", v, "m3")
    await refused(mover, json.dumps({"version": v, "tile": opening}), "bad_message", v, None)
    await table.assert_unchanged()
    # A type the protocol does not have.
    await refused(mover, text(type="teleport", id="u1"), "unknown_type", v, "u1")
    await table.assert_unchanged()

    # A frame over 4 KiB closes the connection (1009) before the command is read: the legal
    # opening inside it is not played.
    big = await open_peer(server, match_id, "big", tokens[seat])
    await big.until_type("presence")
    padded = text(id="x" * FRAME_LIMIT_BYTES)
    assert len(padded.encode()) > FRAME_LIMIT_BYTES
    await big.send_text(padded)
    assert await big.wait_closed() == CLOSE_TOO_BIG
    await table.assert_unchanged()

    # A flood from one socket: the first messages are answered, then rate_limited, then the
    # socket is closed (1008). The flooded commands are all stale, so none could act anyway.
    flood = await open_peer(server, match_id, "flood", tokens[seat])
    await flood.until_type("presence")
    await asyncio.gather(*(flood.send_text(text(version=v - 1)) for _ in range(FLOOD)))
    assert await flood.wait_closed() == CLOSE_POLICY
    codes = [f["code"] for f in flood.errors()]
    assert "rate_limited" in codes
    assert set(codes) == {"stale_version", "rate_limited"}
    assert len(codes) < FLOOD
    await table.assert_unchanged()

    # The same legal command twice: the first plays, the second is stale (never acts twice).
    await mover.send_text(text(id="d1"))
    await mover.send_text(text(id="d2"))
    first = await mover.until(lambda m: m["type"] in ("ack", "error"))
    second = await mover.until(lambda m: m["type"] in ("ack", "error"))
    assert (first["type"], first["version"], first["id"]) == ("ack", v + 1, "d1")
    assert (second["type"], second["code"], second["version"], second["id"]) == (
        "error",
        "stale_version",
        v + 1,
        "d2",
    )
    after = await api.read(match_id, tokens[seat])
    assert after["version"] == v + 1
    assert after["match"]["board"]["tiles"] == [opening]
    assert after["match"]["hand"] == [t for t in view["hand"] if t != opening]
    unmoved = await api.read(match_id, tokens[other])
    assert unmoved["match"]["hand"] == table.views[other]["hand"]

    # Every error went to the socket that caused it: the others only saw the one real move.
    await bystander.update_at(v + 1)
    await spectator.update_at(v + 1)
    for peer in (bystander, spectator):
        assert not peer.errors()
        updates = [f["version"] for f in peer.frames if f["type"] == "update"]
        assert updates[-1] == v + 1
        assert updates.count(v + 1) == 1
    assert [e["id"] for e in mover.errors()] == [
        *("i1", "i2", "i3", "s1", "s2", None, None, None, "m1", "m2", "m3", None, "u1", "d2")
    ]
    for peer in (*peers.values(), spectator, big, flood):
        await peer.close()
    await api.close()


async def test_oversized_frames_while_messages_fly_close_1009_cleanly(server: LiveServer) -> None:
    """Many sockets of the seat to act, each sending an oversized frame carrying the legal
    opening, while every connect and close broadcasts presence to all the others: each closes
    with 1009, nothing changes, and the server treats it as the client's doing, not as an
    internal failure. (The race is that of a frame arriving while the server has a message for
    the socket, so it is run in batches.)"""
    api = Api(server)
    table, peers, spectator = await dealt_table(api, server)
    seat = table.views["first"]["to_act"]
    opening = table.views[seat]["legal"]["plays"][0]["tile"]
    play = {"type": "play", "version": table.version, "tile": opening, "at": None}
    padded = json.dumps({**play, "id": "x" * FRAME_LIMIT_BYTES})

    async def oversized(name: str) -> int | None:
        peer = await open_peer(server, table.match_id, name, table.tokens[seat])
        await peer.until_type("presence")
        await peer.send_text(padded)
        code = await peer.wait_closed()
        await peer.close()
        return code

    server.new_log()
    for batch in range(OVERSIZED_BATCHES):
        names = [f"big{batch}-{i}" for i in range(OVERSIZED_SOCKETS)]
        codes = await asyncio.gather(*(oversized(name) for name in names))
        assert set(codes) == {CLOSE_TOO_BIG}
        await asyncio.sleep(0.05)  # a window for a wrong log line: none may come in it
        assert_clean_log(server.new_log())
    await table.assert_unchanged()
    for peer in (*peers.values(), spectator):
        assert not peer.errors()
        await peer.close()
    await api.close()
