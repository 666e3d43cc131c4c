"""D3 over a real server with short settings: the join timeout of a match its creator is not at,
and the Start grace period."""

from __future__ import annotations

import asyncio

from .server import GRACE_MS, JOIN_TIMEOUT_MS, LiveServer
from .wire import Api, open_peer

DEFAULT_BANK_MS = 120_000
DEFAULT_DELAY_MS = 10_000
LATE_LIMIT_MS = 1_000
"""A loose bound on how late a timer may fire on a loaded machine; it never fires early."""


async def test_a_match_nobody_joins_is_aborted_at_the_join_timeout(
    timers_server: LiveServer,
) -> None:
    """D3: a match whose second seat stays empty, its creator not there (she made it and never
    opened its page), is aborted with no result at the join timeout (never before), and its
    seat can no longer be taken. (While she has it open it waits: ``test_presence.py``.)"""
    api = Api(timers_server)
    ann = await api.guest("Ann")
    match_id = await api.new_match(ann, "open")
    spectator = await open_peer(timers_server, match_id, "spectator")
    state = (await spectator.receive())["match"]
    assert (state["status"], state["players"]["second"]) == ("waiting", None)
    deadline = state["join_deadline_ms"]
    assert 0 < deadline - state["clock"]["now_ms"] <= JOIN_TIMEOUT_MS
    lobby = (await api.http.get("/api/lobby")).json()
    assert match_id in [m["id"] for m in lobby["open_challenges"]]

    for peer in (spectator,):
        end = await peer.update_at(1, timeout=JOIN_TIMEOUT_MS / 1000 + 5)
        assert end["events"] == [
            {"version": 1, "type": "match_ended", "winner": None, "reason": "join_timeout"}
        ]
        match = end["match"]
        assert match["status"] == "aborted"
        assert match["result"] == {"winner": None, "reason": "join_timeout"}
        assert match["join_deadline_ms"] is None or match["join_deadline_ms"] == deadline
        assert deadline <= match["clock"]["now_ms"] < deadline + LATE_LIMIT_MS
    bob = await api.guest("Bob")
    late = await api.join(match_id, bob)
    assert (late.status_code, late.json()["error"]["code"]) == (409, "seat_taken")
    lobby = (await api.http.get("/api/lobby")).json()
    assert match_id not in [m["id"] for m in lobby["open_challenges"]]
    assert match_id in [m["id"] for m in lobby["finished"]]
    assert not spectator.errors()
    await spectator.close()
    await api.close()


async def test_the_grace_period_deals_without_the_second_start(timers_server: LiveServer) -> None:
    """D3: the round is dealt at the end of the grace period (never before) even though one
    player never pressed Start, and the join timeout no longer applies once joined."""
    api = Api(timers_server)
    ann, bob = await api.guest("Ann"), await api.guest("Bob")
    match_id = await api.new_match(ann)
    first = await open_peer(timers_server, match_id, "first", ann)
    spectator = await open_peer(timers_server, match_id, "spectator")
    await first.until_type("presence")
    assert (await api.join(match_id, bob)).status_code == 200
    joined = (await first.update_at(1))["match"]
    grace_ends = joined["start_deadline_ms"]
    assert joined["join_deadline_ms"] is None
    assert 0 < grace_ends - joined["clock"]["now_ms"] <= GRACE_MS

    # Only the first player presses Start; the round is dealt when the grace period ends.
    assert await first.act("start") == 2
    ready = first.view
    assert ready["ready"] == {"first": True, "second": False}
    assert ready["start_deadline_ms"] == grace_ends
    for peer in (first, spectator):
        deal = await peer.update_at(3, timeout=GRACE_MS / 1000 + 5)
        assert deal["events"][0]["type"] == "round_dealt"
        match = deal["match"]
        assert (match["phase"], match["round_number"]) == ("opening", 1)
        assert match["start_deadline_ms"] is None
        clock = match["clock"]
        dealt_at = clock["deadline_ms"] - DEFAULT_DELAY_MS - DEFAULT_BANK_MS
        assert grace_ends <= dealt_at < grace_ends + LATE_LIMIT_MS
        assert clock["running"] == match["to_act"]
    assert first.view["hand"] is not None

    # The join timeout has passed by now: a joined match is not aborted by it.
    await asyncio.sleep(max(0, JOIN_TIMEOUT_MS - GRACE_MS) / 1000 + 0.1)  # the time under test
    assert (await api.read(match_id))["match"]["status"] == "active"
    for peer in (first, spectator):
        assert not peer.errors()
        await peer.close()
    await api.close()
