"""D7: nobody loses on time before making a decision of their own. Until a seat has bid,
raised, accepted, declined or laid a tile it sent, its running decision does not end in a loss
on time but in an abort for no first decision, unrated, once its delay plus the grace has run
(or at the R7.7 deadline, if that is sooner). Forced moves (D2), draws (D1) and presses (D3,
R7.5) are no decision of one's own. Only ``step`` is driven; time is a number the test moves."""

from __future__ import annotations

from dataclasses import replace

from rules.decks import NEXT_DECK
from spectacular_bid.clock import ClockSettings
from spectacular_bid.rules.actions import (
    Abort,
    AbortReason,
    Declined,
    Flag,
    MatchEnd,
    MatchEnded,
    Play,
    Played,
)
from spectacular_bid.rules.notation import parse_tile
from spectacular_bid.rules.seats import BySeat
from spectacular_bid.service.commands import (
    DrawTile,
    FlagDue,
    Join,
    PlayTile,
    ResignMatch,
)
from spectacular_bid.service.ports import MatchMode, MatchStatus
from spectacular_bid.service.rated import is_rated
from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.service.state import MatchState, Timers, new_match, timers

from .machine_table import (
    ANN,
    BANK_MS,
    BO,
    DELAY_MS,
    FIRST,
    SECOND,
    SETTINGS,
    T0,
    Table,
    settled,
)
from .test_machine_timers import with_balances

GRACE_MS = 20_000
"""D7's grace: a first decision runs out 10 s + 20 s after it began (R7.2's delay first)."""
SIX_SIX = PlayTile(parse_tile("6-6"))
FIRST_D7_MS = T0 + DELAY_MS + GRACE_MS
"""The first seat's first decision, dealt at ``T0``, runs out here (D7)."""


def dealt(settings: ServiceSettings = SETTINGS) -> Table:
    """An invite match dealt from ``DRAW_DECK`` at ``T0`` after both pressed Start: the first
    seat must open [6|6], its clock running from ``T0``."""
    table = Table(new_match(MatchMode.INVITE, ANN, settings, T0))
    table.feed(Join(BO))
    table.start_round()
    assert table.state.clock.running is FIRST
    assert table.state.clock.decision_started_ms == T0
    return table


def aborted_for(state: MatchState, seat: object) -> None:
    """The match ended aborted for ``seat``'s missing first decision: no winner, unrated."""
    assert state.status is MatchStatus.ABORTED
    assert state.match.result == MatchEnded(None, MatchEnd.NO_FIRST_DECISION, seat)  # type: ignore[arg-type]
    assert not is_rated(state.mode, state.seats, state.settings.clock, state.match.result)
    assert timers(state) == Timers(None, None, None)


def test_d7_the_rule_is_on_with_a_20_s_grace_by_default() -> None:
    assert ServiceSettings().first_decision_grace_ms == GRACE_MS


def test_d7_an_undecided_seat_is_aborted_at_its_delay_plus_the_grace_never_earlier() -> None:
    table = dealt()
    state = table.state
    assert state.decided == frozenset()  # two Start presses are no decision (D3)
    assert state.first_decision_deadline_ms() == FIRST_D7_MS
    assert state.deadline_ms() == FIRST_D7_MS
    assert state.clock.deadline_ms() == T0 + DELAY_MS + BANK_MS  # R7.7's, unchanged
    assert timers(state).flag_ms == FIRST_D7_MS
    assert table.refused(FlagDue(), FIRST_D7_MS - 1).code is ErrorCode.WRONG_PHASE

    result = table.feed(FlagDue(), FIRST_D7_MS + 250)  # the timer ran a little late
    entry = result.entry
    assert entry is not None
    assert entry.command == Abort(AbortReason.NO_FIRST_DECISION, FIRST)
    assert entry.seat is None  # a timer's version, as a flag's is
    assert (entry.received_ms, entry.now_ms) == (FIRST_D7_MS, FIRST_D7_MS + 250)
    assert MatchEnded(None, MatchEnd.NO_FIRST_DECISION, FIRST) in entry.events
    assert result.header_changed
    aborted_for(table.state, FIRST)
    # Charged up to the deadline only: the grace beyond the delay, not the time after it.
    assert table.state.clock.bank_ms == BySeat(BANK_MS - GRACE_MS, BANK_MS)


def test_d7_a_first_decision_one_ms_before_its_deadline_is_played() -> None:
    table = dealt()
    table.set(FIRST_D7_MS - 1)
    entry = table.send(FIRST, SIX_SIX).entry
    assert entry is not None
    assert entry.command == Play(FIRST, parse_tile("6-6"))
    state = table.state
    assert state.status is MatchStatus.ACTIVE
    assert state.decided == frozenset({FIRST})
    # Now the second seat's first decision runs, under D7 too.
    assert state.clock.running is SECOND
    assert state.deadline_ms() == FIRST_D7_MS - 1 + DELAY_MS + GRACE_MS


def test_d7_a_first_decision_at_its_deadline_is_too_late_and_aborts_the_match() -> None:
    """D6: a command arriving at the deadline or later is late, whichever rule set it."""
    table = dealt()
    table.set(FIRST_D7_MS + 500)
    result = table.send(FIRST, SIX_SIX, received_ms=FIRST_D7_MS)
    assert result.reply is not None
    assert result.reply.code is ErrorCode.TIME_EXPIRED
    assert "first decision" in result.reply.message
    assert result.entry is not None
    assert result.entry.command == Abort(AbortReason.NO_FIRST_DECISION, FIRST)
    assert result.entry.received_ms == FIRST_D7_MS
    assert not any(isinstance(e, Played) for e in result.entry.events)
    aborted_for(table.state, FIRST)


def test_d7_a_seat_that_decided_once_loses_on_time_under_r7_7() -> None:
    table = dealt()
    table.advance(1_000)
    table.send(FIRST, SIX_SIX)
    table.play("draw draw draw draw 0-6@6-6:lineA", step_ms=500)  # the second seat decides
    assert table.state.decided == frozenset({FIRST, SECOND})
    started = table.now_ms
    state = table.state
    assert state.clock.running is FIRST
    assert state.first_decision_deadline_ms() is None
    deadline = started + DELAY_MS + BANK_MS
    assert state.deadline_ms() == deadline == timers(state).flag_ms
    assert table.refused(FlagDue(), started + DELAY_MS + GRACE_MS).code is ErrorCode.WRONG_PHASE
    entry = table.feed(FlagDue(), deadline).entry
    assert entry is not None
    assert entry.command == Flag(FIRST)
    assert table.state.match.result == MatchEnded(SECOND, MatchEnd.TIME)
    assert table.state.status is MatchStatus.FINISHED


def test_d7_draws_are_no_first_decision() -> None:
    """D1: a client may draw for its player, so a draw says nothing about who is there."""
    table = dealt()
    table.advance(1_000)
    table.send(FIRST, SIX_SIX)
    started = table.now_ms
    for _ in range(4):
        table.advance(2_000)
        table.send(SECOND, DrawTile())
    state = table.state
    assert state.decided == frozenset({FIRST})
    assert state.clock.decision_started_ms == started  # R7.3: one decision
    deadline = started + DELAY_MS + GRACE_MS
    assert timers(state).flag_ms == deadline
    entry = table.feed(FlagDue(), deadline).entry
    assert entry is not None
    assert entry.command == Abort(AbortReason.NO_FIRST_DECISION, SECOND)
    aborted_for(table.state, SECOND)


def test_d7_a_forced_decline_is_no_first_decision() -> None:
    """D2, R6.6: the first seat (10 points) cannot bid, the deal declines for it; the jockey
    opens; when the first seat's own turn comes, it has still decided nothing."""
    table = Table.at(settled(with_balances(10)), NEXT_DECK)
    entry = table.start_round().entry
    assert entry is not None
    assert Declined(FIRST, True) in entry.events
    assert table.state.decided == frozenset()
    table.advance(3_000)
    table.play("1-1")  # the jockey opens: its own decision
    assert table.state.decided == frozenset({SECOND})
    started = table.now_ms
    assert table.state.clock.running is FIRST
    assert table.state.deadline_ms() == started + DELAY_MS + GRACE_MS
    table.feed(FlagDue(), started + DELAY_MS + GRACE_MS)
    aborted_for(table.state, FIRST)


def test_d7_resigning_before_a_first_decision_still_loses() -> None:
    """R5.2 is unchanged: a resignation is a result, whenever it comes."""
    table = dealt()
    table.advance(5_000)
    table.send(FIRST, ResignMatch())
    assert table.state.match.result == MatchEnded(SECOND, MatchEnd.RESIGNATION)
    assert table.state.status is MatchStatus.FINISHED


def test_d7_on_a_shared_device_each_seat_needs_a_first_decision_of_its_own() -> None:
    """R7.5: the clocks stand through each hand-over, so a decision starts at its Reveal."""
    table = Table.shared()
    table.start_round()
    assert table.state.handover is FIRST
    assert timers(table.state).flag_ms is None
    table.set(T0 + 60_000)
    table.reveal()
    assert table.state.deadline_ms() == T0 + 60_000 + DELAY_MS + GRACE_MS
    table.advance(1_000)
    table.send(FIRST, SIX_SIX)
    assert table.state.handover is SECOND
    assert timers(table.state).flag_ms is None
    revealed = table.set(T0 + 300_000)
    table.reveal()
    assert table.state.decided == frozenset({FIRST})
    deadline = revealed + DELAY_MS + GRACE_MS
    assert timers(table.state).flag_ms == deadline
    assert table.refused(FlagDue(), deadline - 1).code is ErrorCode.WRONG_PHASE
    entry = table.feed(FlagDue(), deadline).entry
    assert entry is not None
    assert entry.command == Abort(AbortReason.NO_FIRST_DECISION, SECOND)
    aborted_for(table.state, SECOND)


def test_d7_an_earlier_r7_7_deadline_aborts_the_undecided_seat_there() -> None:
    """A 2 s bank and 1 s delay run out before the grace: the seat still did not decide, so
    the match is aborted at R7.7's deadline, not lost on time."""
    table = dealt(replace(SETTINGS, clock=ClockSettings(bank_ms=2_000, delay_ms=1_000)))
    deadline = T0 + 1_000 + 2_000
    assert table.state.first_decision_deadline_ms() == deadline == table.state.deadline_ms()
    entry = table.feed(FlagDue(), deadline).entry
    assert entry is not None
    assert entry.command == Abort(AbortReason.NO_FIRST_DECISION, FIRST)
    aborted_for(table.state, FIRST)
    assert table.state.clock.bank_ms == BySeat(0, 2_000)


def test_d7_the_grace_is_a_setting_and_off_without_one() -> None:
    shorter = dealt(replace(SETTINGS, first_decision_grace_ms=5_000))
    assert shorter.state.deadline_ms() == T0 + DELAY_MS + 5_000
    off = dealt(replace(SETTINGS, first_decision_grace_ms=None))
    assert off.state.first_decision_deadline_ms() is None
    deadline = T0 + DELAY_MS + BANK_MS
    assert off.state.deadline_ms() == deadline == timers(off.state).flag_ms
    assert off.refused(FlagDue(), FIRST_D7_MS).code is ErrorCode.WRONG_PHASE
    entry = off.feed(FlagDue(), deadline).entry
    assert entry is not None
    assert entry.command == Flag(FIRST)
    assert off.state.match.result == MatchEnded(SECOND, MatchEnd.TIME)
