"""Who may act over a real server: a seat belongs to the token that took it, a spectator acts
for no one, and a foreign page cannot open a socket at all (PROTOCOL.md "Identity")."""

from __future__ import annotations

from typing import Any

import pytest
from websockets.exceptions import InvalidStatus

from .server import LiveServer
from .wire import Api, open_peer

FORBIDDEN = 403
CLOSE_POLICY = 1008


def without_clock(body: dict[str, Any]) -> dict[str, Any]:
    """A ``GET /api/matches/{id}`` body but for the clock reading, which moves with time."""
    return {**body, "match": {k: v for k, v in body["match"].items() if k != "clock"}}


async def test_no_token_acts_for_a_seat_it_does_not_hold(server: LiveServer) -> None:
    """R8.3: ``not_your_seat``, ``not_your_turn`` and ``not_a_player`` change
    nothing; R2.2: a player watching as a spectator sees no hand and acts for no one."""
    api = Api(server)
    match_id, ann, bob = await api.duel()
    tokens = {"first": ann, "second": bob}
    peers = {seat: await open_peer(server, match_id, seat, tokens[seat]) for seat in tokens}
    anonymous = await open_peer(server, match_id, "anonymous")
    watching = await open_peer(server, match_id, "watching", ann, **{"as": "spectator"})
    await peers["first"].act("start")
    await peers["second"].update_at(peers["first"].version)
    dealt = await peers["second"].act("start")
    for peer in (peers["first"], anonymous, watching):
        await peer.update_at(dealt)
    seat = peers["first"].view["to_act"]
    other = "second" if seat == "first" else "first"
    mover, waiter = peers[seat], peers[other]
    opening = mover.view["legal"]["plays"][0]["tile"]
    before = {name: await api.read(match_id, token) for name, token in tokens.items()}

    async def refused(peer_name: str, code: str, kind: str, **fields: object) -> None:
        peer = {**peers, "anonymous": anonymous, "watching": watching}[peer_name]
        reply = await peer.command(kind, version=dealt, **fields)
        assert (reply["type"], reply["code"], reply["version"]) == ("error", code, dealt), reply

    # The seat to act cannot name the other seat; the other seat cannot act for it, neither by
    # naming it nor out of turn (R8.3).
    await refused(seat, "not_your_seat", "play", tile=opening, at=None, seat=other)
    await refused(seat, "not_your_seat", "resign", seat=other)
    await refused(other, "not_your_seat", "play", tile=opening, at=None, seat=seat)
    await refused(other, "not_your_seat", "resign", seat=seat)
    await refused(other, "not_your_turn", "play", tile=waiter.view["hand"][0], at=None)
    await refused(other, "not_your_turn", "play", tile=waiter.view["hand"][0], seat=other)
    # A spectator acts for no one: anonymous, or a player watching as a spectator (R2.2).
    for name in ("anonymous", "watching"):
        await refused(name, "not_a_player", "play", tile=opening, at=None)
        await refused(name, "not_a_player", "resign")
    assert watching.view["hand"] is None
    for name, token in tokens.items():
        assert without_clock(await api.read(match_id, token)) == without_clock(before[name])

    # Watching as another seat is refused: one error, then the socket closes (1008).
    spy = await open_peer(server, match_id, "spy", bob, **{"as": "first"})
    refusal = await spy.receive()
    assert (refusal["type"], refusal["code"]) == ("error", "not_your_seat")
    assert await spy.wait_closed() == CLOSE_POLICY

    # The seat's own socket still plays, and each error reached only the socket that caused it.
    assert await mover.act("play", tile=opening, at=None) == dealt + 1
    await waiter.update_at(dealt + 1)
    assert [e["code"] for e in mover.errors()] == ["not_your_seat"] * 2
    assert [e["code"] for e in waiter.errors()] == ["not_your_seat"] * 2 + ["not_your_turn"] * 2
    for spectator in (anonymous, watching):
        assert [e["code"] for e in spectator.errors()] == ["not_a_player"] * 2
    for peer in (*peers.values(), anonymous, watching, spy):
        await peer.close()
    await api.close()


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "http://127.0.0.1:1", "https://127.0.0.1", "null"]
)
async def test_a_foreign_origin_is_refused_at_the_handshake(
    server: LiveServer, origin: str
) -> None:
    """A page elsewhere (PROTOCOL.md "Requests from other sites") cannot use the player's cookie to
    open the match socket."""
    api = Api(server)
    ann = await api.guest("Ann")
    match_id = await api.new_match(ann)
    with pytest.raises(InvalidStatus) as refused:
        await open_peer(server, match_id, "foreign", ann, origin=origin)
    assert refused.value.response.status_code == FORBIDDEN
    own = await open_peer(server, match_id, "own", ann, origin=server.origin)
    assert (await own.receive())["match"]["audience"] == "first"
    await own.close()
    await api.close()
