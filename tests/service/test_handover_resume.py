"""A match resumed from the store by the server it was handed to (PROTOCOL.md "Several servers on
one database"): its running decision goes on where it stood, and D5 judges this server's loop only
over the time it timed the match, not over a stall it had before the match came."""

from __future__ import annotations

import pytest

from spectacular_bid.rules.seats import Seat
from spectacular_bid.service.commands import DrawTile
from spectacular_bid.service.handover import Handover
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.ports import MatchStatus
from spectacular_bid.service.refusals import ErrorCode, Rejection

from .helpers import FakeTime, Tables, fake_time_settings

THRESHOLD_MS = 2_000
PEER_BASE_MS = 7_000
"""The peer's monotonic clock, on another base than the first server's."""


async def handed_to_a_peer(tables: Tables) -> tuple[MatchService, FakeTime, str, str]:
    """A match whose first decision ran 3 s, handed over and resumed by a second service on the
    same store; the peer's service, its time, the match and the seat not to act."""
    settings = fake_time_settings(lag_threshold_ms=THRESHOLD_MS)
    time = FakeTime()
    table = await tables.open(settings, time_source=time)
    await table.start_round()
    running = table.state.clock.running
    assert running is not None
    waiting = table.player(running.other).id
    time.advance(3_000)
    stood = table.state.reading(time())
    table.service.lag.last_tick_ms = time()  # its loop ran freely (the monitor is not started)
    await table.actor.hand_over()
    await table.service.let_go([table.actor.id])
    peer_time = FakeTime(PEER_BASE_MS)
    peer = MatchService(table.store, settings, now_ms=peer_time)
    peer.lag.last_tick_ms = peer_time()
    peer.lag.last_stall_end_ms = peer_time() - 1  # a stall here, just before the match came
    assert await Handover(peer).resume_match(table.actor.id)
    resumed = peer.get(table.actor.id).state
    assert resumed.version == table.state.version + 1  # the hand-over's, then the resume
    assert resumed.reading(peer_time()).bank_left_ms == stood.bank_left_ms
    assert resumed.reading(peer_time()).delay_left_ms == stood.delay_left_ms
    return peer, peer_time, table.actor.id, waiting


async def test_a_stall_of_the_peer_before_the_match_came_is_no_timing_failure(
    tables: Tables,
) -> None:
    peer, peer_time, match_id, waiting = await handed_to_a_peer(tables)
    actor = peer.get(match_id)
    with pytest.raises(Rejection) as refused:  # a refused command, and nothing more
        await actor.submit(waiting, DrawTile(), actor.version, peer_time())
    assert refused.value.code is ErrorCode.WRONG_PHASE  # the opening, not anyone's draw
    assert actor.state.status is MatchStatus.ACTIVE
    await peer.stop()


async def test_a_stall_of_the_peer_after_it_resumed_the_match_is_a_timing_failure(
    tables: Tables,
) -> None:
    peer, peer_time, match_id, waiting = await handed_to_a_peer(tables)
    actor = peer.get(match_id)
    peer_time.advance(10)
    peer.lag.last_stall_end_ms = peer_time()
    peer_time.advance(10)
    peer.lag.last_tick_ms = peer_time()
    with pytest.raises(Rejection):
        await actor.submit(waiting, DrawTile(), actor.version, peer_time())
    assert actor.state.status is MatchStatus.ABORTED
    assert actor.state.match.result is not None
    assert actor.state.match.result.reason.value == "timing_failure"
    await peer.stop()


async def test_the_chat_goes_on_from_its_stored_lines(tables: Tables) -> None:
    """The peer counts the lines said before the hand-over (PROTOCOL.md "chat"): the next line
    is numbered after them, not refused as a duplicate, and a new socket reads the history."""
    settings = fake_time_settings()
    table = await tables.open(settings)
    first = table.player(Seat.FIRST)
    for text in ("good luck", "you too"):
        await table.service.say(table.actor.id, first, text, None)
    await table.actor.hand_over()
    await table.service.let_go([table.actor.id])
    peer = MatchService(table.store, settings)
    assert await Handover(peer).resume_match(table.actor.id)
    assert peer.chat.said(table.actor.id) == 2
    line = await peer.say(table.actor.id, first, "moved?", None)
    assert line.number == 3
    stored = await table.store.chat_lines(table.actor.id)
    assert [(r.number, r.text) for r in stored] == [(1, "good luck"), (2, "you too"), (3, "moved?")]
    await peer.stop()
