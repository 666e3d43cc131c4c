"""Reconnecting over a real server: the missed events arrive, and the clock ran on meanwhile
(R7.6, the reconnect rule of docs/PROTOCOL.md)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from .server import LiveServer
from .wire import Api, choose, open_peer

BANK_MS = 60_000
DELAY_MS = 300
OFFLINE_S = 0.4
"""Longer than the delay, so the bank of the offline seat must have run (R7.2, R7.6)."""


def time_left(view: dict[str, Any], seat: str) -> int:
    clock = view["clock"]
    assert clock["running"] == seat, clock
    left: int = clock["delay_left_ms"] + clock["bank_left_ms"][seat]
    return left


async def test_reconnect_gets_the_missed_events_and_a_clock_that_ran(server: LiveServer) -> None:
    """R7.6: disconnecting stops no clock; R7.2: past the delay the bank pays; the reconnect
    rule: one ``update`` with exactly the missed events (none if nothing was missed)."""
    api = Api(server)
    match_id, ann, bob = await api.duel(bank_ms=BANK_MS, delay_ms=DELAY_MS)
    tokens = {"first": ann, "second": bob}
    peers = {seat: await open_peer(server, match_id, seat, tokens[seat]) for seat in tokens}
    # A second socket of the first player, connected throughout: what it receives is exactly
    # what the first player's dropped socket misses.
    witness = await open_peer(server, match_id, "witness", ann)
    await witness.until_type("presence")

    # The first player presses Start and drops; the second deals by pressing Start too and, if
    # it opens, plays: either way it is the offline first player's turn, its clock running.
    ready = await peers["first"].act("start")
    gone = peers["first"]
    await gone.close()
    await peers["second"].update_at(ready)
    assert (await peers["second"].act("start")) == ready + 1
    missed = [await witness.update_at(ready + 1)]
    if peers["second"].view["to_act"] == "second":
        command = choose(peers["second"].view["legal"], random.Random(1))
        moved = await peers["second"].act(command.pop("type"), **command)
        missed.append(await witness.update_at(moved))
    moved = missed[-1]["version"]
    assert missed[-1]["match"]["to_act"] == "first"
    await asyncio.sleep(OFFLINE_S)  # the time under test: away, while the clock runs

    back = await open_peer(server, match_id, "back", ann, since=str(ready))
    first = await back.receive()
    assert first["type"] == "update", first
    assert first["version"] == moved
    assert first["events"] == [event for update in missed for event in update["events"]]
    assert first["events"][0]["type"] == "round_dealt"
    assert first["events"][0]["hands"]["first"] == first["match"]["hand"] is not None
    assert first["events"][0]["hands"]["second"] is None
    assert (await back.receive())["type"] == "presence"
    before, after = missed[-1]["match"]["clock"], first["match"]["clock"]
    elapsed = after["now_ms"] - before["now_ms"]
    assert elapsed >= OFFLINE_S * 1000
    assert after["deadline_ms"] == before["deadline_ms"]
    assert time_left(missed[-1]["match"], "first") - time_left(first["match"], "first") == elapsed
    assert after["delay_left_ms"] == 0
    assert after["bank_left_ms"]["first"] < BANK_MS
    assert after["bank_left_ms"]["second"] == before["bank_left_ms"]["second"]

    # Now truly offline (no socket of the first player left) in the middle of its turn, and
    # back with nothing missed: no events, and the clock ran on (R7.6).
    await witness.close()
    await back.close()
    offline = await peers["second"].until(
        lambda m: m["type"] == "presence" and not m["online"]["first"]
    )
    assert offline["online"] == {"first": False, "second": True}
    await asyncio.sleep(OFFLINE_S)  # the time under test: away, while the clock runs
    again = await open_peer(server, match_id, "again", ann, since=str(moved))
    resumed = await again.receive()
    assert (resumed["type"], resumed["version"], resumed["events"]) == ("update", moved, [])
    later = resumed["match"]["clock"]
    assert later["now_ms"] - after["now_ms"] >= OFFLINE_S * 1000
    assert time_left(first["match"], "first") - time_left(resumed["match"], "first") == (
        later["now_ms"] - after["now_ms"]
    )

    # The reconnected socket acts, and is charged for all the time it was away (R7.2, R7.6).
    await again.until_type("presence")
    command = choose(again.view["legal"], random.Random(2))
    acted = await again.act(command.pop("type"), **command)
    charged = (await peers["second"].update_at(acted))["match"]["clock"]
    assert charged["bank_left_ms"]["first"] <= later["bank_left_ms"]["first"]

    # A version the match never reached, or none at all, gets the full state.
    for query in ({"since": str(acted + 1000)}, {}):
        fresh = await open_peer(server, match_id, "fresh", ann, **query)
        state = await fresh.receive()
        assert (state["type"], state["version"]) == ("state", acted)
        await fresh.close()

    for peer in (again, witness, back, *peers.values()):
        assert not peer.errors()
        await peer.close()
    await api.close()
