"""A match handed from one server to another (PROTOCOL.md "Several servers on one database") as the
machine runs it: the clocks stand from the hand-over to the resumption, whatever the new server's
clock reads, nothing can be done in between, and a server that never resumes it ends it charged at
the hand-over (D5)."""

from __future__ import annotations

from spectacular_bid.rules.actions import AbortReason
from spectacular_bid.rules.notation import parse_tile
from spectacular_bid.service.commands import (
    FlagDue,
    HandingOver,
    PlayTile,
    Restarted,
    Resumed,
    Submit,
)
from spectacular_bid.service.ports import MatchStatus
from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.service.state import timers

from .machine_table import BANK_MS, DELAY_MS, FIRST, T0, Table

SIX_SIX = PlayTile(parse_tile("6-6"))
OTHER_BASE_MS = 5_000
"""The peer's monotonic clock: far behind the first server's (another machine's boot time)."""


def handed_at(think_ms: int) -> Table:
    """An invite match dealt at ``T0``, the first seat thinking ``think_ms``, then handed over."""
    table = Table.invite()
    table.start_round()
    table.advance(think_ms)
    entry = table.feed(HandingOver()).entry
    assert entry is not None
    assert entry.command == HandingOver()
    assert entry.events == ()
    return table


def test_the_clocks_stand_from_the_hand_over_to_the_resumption_on_another_clock() -> None:
    table = handed_at(DELAY_MS + 4_000)  # 4 s of bank used
    stood = table.state.reading(table.now_ms)
    assert timers(table.state).flag_ms is None  # no server times it while it moves
    resumed = table.feed(Resumed(paused_ms=300), OTHER_BASE_MS).entry
    assert resumed is not None
    assert resumed.command == Resumed(300)
    assert resumed.clock.running is FIRST
    assert resumed.clock.bank_left_ms == stood.bank_left_ms
    assert resumed.clock.bank_left_ms[FIRST] == BANK_MS - 4_000
    assert resumed.clock.delay_left_ms == 0
    # The deadlines moved with the clock: the same time left, on the peer's clock. The first
    # seat has decided nothing yet, so D7's comes first: the grace less the 4 s used of it.
    assert table.state.clock.deadline_ms() == OTHER_BASE_MS + BANK_MS - 4_000
    grace_ms = table.state.settings.first_decision_grace_ms
    assert grace_ms is not None
    assert timers(table.state).flag_ms == OTHER_BASE_MS + grace_ms - 4_000


def test_a_resumed_decision_keeps_its_delay_and_is_charged_from_the_peer_clock() -> None:
    table = handed_at(6_000)  # 4 s of the delay left
    table.feed(Resumed(paused_ms=120), OTHER_BASE_MS)
    clock = table.state.clock
    assert clock.delay_left_ms(OTHER_BASE_MS) == DELAY_MS - 6_000
    received_ms = OTHER_BASE_MS + DELAY_MS - 6_000 + 1_500  # 1.5 s into the bank
    play = Submit(table.player(FIRST).id, SIX_SIX, table.state.version, received_ms, FIRST)
    table.feed(play, received_ms)
    assert table.state.clock.bank_ms[FIRST] == BANK_MS - 1_500


def test_nothing_is_done_while_a_match_is_handed_over() -> None:
    table = handed_at(1_000)
    play = Submit(table.player(FIRST).id, SIX_SIX, table.state.version, table.now_ms, FIRST)
    assert table.refused(play).code is ErrorCode.SERVER_BUSY
    assert table.refused(FlagDue(), T0 + DELAY_MS + BANK_MS + 1).code is ErrorCode.SERVER_BUSY
    assert table.refused(HandingOver()).code is ErrorCode.SERVER_BUSY


def test_only_a_handed_over_match_resumes() -> None:
    table = Table.invite()
    table.start_round()
    assert table.refused(Resumed(paused_ms=10)).code is ErrorCode.WRONG_PHASE


def test_a_handed_over_match_never_resumed_ends_charged_at_the_hand_over() -> None:
    table = handed_at(DELAY_MS + 2_000)
    stopped_ms = table.now_ms
    entry = table.feed(Restarted(stopped_ms), OTHER_BASE_MS).entry
    assert entry is not None
    assert table.state.status is MatchStatus.ABORTED
    assert table.state.match.result is not None
    assert table.state.match.result.reason.value == AbortReason.TIMING_FAILURE.value
    assert table.state.clock.bank_ms[FIRST] == BANK_MS - 2_000
    assert table.state.suspended_ms is None
