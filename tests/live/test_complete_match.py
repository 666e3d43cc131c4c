"""A complete match over a real server: two players and a spectator, every frame scanned (D4).

The deck is the server's fixed one (``--fixed-deck-seed``) and the players choose among the
legal commands the server offers with a seeded random source, one command at a time, so the
match is the same on every run.
"""

from __future__ import annotations

import random

from .server import DECK_SEED, LiveServer
from .sight import SightCheck, revealed_decks
from .wire import Api, Peer, choose, open_peer

MOVE_SEED = 2024
TOTAL_POINTS = 300


async def play_to_the_end(seats: dict[str, Peer], watchers: list[Peer], rng: random.Random) -> int:
    """Lockstep: one command, then every socket has its update, then the next (R8: the client
    offers only what ``legal`` lists). Start/Continue is pressed between rounds (D3). Returns
    the number of commands."""
    commands = 0
    everyone = [*seats.values(), *watchers]
    while (view := seats["first"].view)["status"] == "active":
        if view["phase"] == "awaiting_deal":
            seat = next(s for s in ("first", "second") if not view["ready"][s])
            command = {"type": "start"}
        else:
            seat = view["to_act"]
            command = choose(seats[seat].view["legal"], rng)
        peer = seats[seat]
        version = await peer.act(command.pop("type"), **command)
        commands += 1
        for other in everyone:
            if other is not peer:
                await other.update_at(version)
    return commands


async def test_a_complete_match_leaks_no_tile(fast_server: LiveServer) -> None:
    """R2.2, D4: each frame holds only what its receiver may see; R1.2: 300 points throughout;
    R5.1: the match ends when a balance reaches zero."""
    api = Api(fast_server)
    match_id, ann, bob = await api.duel()
    first = await open_peer(fast_server, match_id, "first", ann)
    second = await open_peer(fast_server, match_id, "second", bob)
    spectator = await open_peer(fast_server, match_id, "spectator")
    try:
        for peer in (first, second, spectator):
            await peer.until_type("presence")
        commands = await play_to_the_end(
            {"first": first, "second": second}, [spectator], random.Random(MOVE_SEED)
        )
    finally:
        for peer in (first, second, spectator):
            await peer.close()

    end = first.view
    assert end["status"] == "finished"
    assert end["result"]["reason"] == "zero_balance"
    winner = end["result"]["winner"]
    loser = "second" if winner == "first" else "first"
    assert end["balances"] == {winner: TOTAL_POINTS, loser: 0}
    for peer in (second, spectator):
        assert peer.view["result"] == end["result"]
        assert peer.view["balances"] == end["balances"]
    fetched = await api.read(match_id)
    assert fetched["version"] == first.version
    assert fetched["match"]["result"] == end["result"]
    await api.close()

    decks = revealed_decks(spectator.frames, DECK_SEED)
    rounds = end["round_number"]
    assert rounds >= 2, "a one-round match would not test the deck reveal between rounds"
    assert sorted(decks) == list(range(1, rounds + 1))
    for receiver, peer in (("first", first), ("second", second), (None, spectator)):
        checked = SightCheck(receiver, decks).check_all(peer.frames)
        assert checked == len(peer.frames) > commands
    balances_seen = [
        sum(frame["match"]["balances"].values())
        for peer in (first, second, spectator)
        for frame in peer.frames
        if "match" in frame
    ]
    assert set(balances_seen) == {TOTAL_POINTS}
    for peer in (first, second, spectator):
        assert not peer.errors()
