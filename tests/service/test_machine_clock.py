"""The match clock as the machine runs it (§7, D6): a delay then a bank, charged at the server's
receive time, standing between rounds and through a shared device's hand-over, flagged at the
deadline and never before. Only ``step`` is driven; time is a number the test moves."""

from __future__ import annotations

from rules.decks import NEXT_DECK, after_domino_round, domino_deck, domino_moves
from spectacular_bid.rules.actions import (
    Flag,
    MatchEnd,
    MatchEnded,
    Played,
    RoundEnd,
    RoundEnded,
)
from spectacular_bid.rules.match import Phase
from spectacular_bid.rules.notation import parse_tile
from spectacular_bid.rules.seats import BySeat
from spectacular_bid.service.commands import (
    AcceptBid,
    DeclineBid,
    DrawTile,
    FlagDue,
    PlaceBid,
    PlayTile,
    Start,
)
from spectacular_bid.service.ports import MatchStatus
from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.service.state import timers

from .machine_table import (
    BANK_MS,
    DELAY_MS,
    FIRST,
    R7_ALONE,
    SECOND,
    T0,
    Table,
    settled,
)

SIX_SIX = PlayTile(parse_tile("6-6"))
FULL = BySeat(BANK_MS, BANK_MS)
FIRST_DEADLINE_MS = T0 + DELAY_MS + BANK_MS
"""The first decision of a match dealt at ``T0`` runs out here (R7.7)."""


def dealt() -> Table:
    """An invite match dealt from ``DRAW_DECK`` at ``T0``: the first seat must open [6|6], its
    clock running from ``T0`` with a full delay and bank. D7 is off: these scenarios time the
    first decision up to R7.7's deadline (``test_machine_first_decision.py`` has D7's)."""
    table = Table.invite(settings=R7_ALONE)
    table.start_round()
    clock = table.state.clock
    assert table.state.match.to_act is FIRST
    assert clock.running is FIRST
    assert clock.decision_started_ms == T0
    assert clock.deadline_ms() == FIRST_DEADLINE_MS
    return table


def auction() -> Table:
    """Round 2 after the domino round (jockey: the second seat), dealt at ``T0``: the first seat
    (non-jockey) decides first, 115–185 (R6.1)."""
    table = Table.at(settled(after_domino_round()), NEXT_DECK)
    table.start_round()
    assert table.state.match.phase is Phase.AUCTION
    assert table.state.clock.running is FIRST
    return table


# -- R7.2: a fresh delay per decision; only the time beyond it costs bank ------------------------


def test_r7_2_a_decision_taken_in_8_s_costs_no_bank() -> None:
    table = dealt()
    table.advance(8_000)
    entry = table.send(FIRST, SIX_SIX).entry
    clock = table.state.clock
    assert clock.bank_ms == FULL
    assert clock.running is SECOND
    assert clock.decision_started_ms == T0 + 8_000
    assert clock.delay_ms == DELAY_MS
    assert entry is not None
    assert entry.clock.bank_left_ms == FULL
    assert entry.clock.delay_left_ms == DELAY_MS
    assert entry.clock.deadline_ms == T0 + 8_000 + DELAY_MS + BANK_MS


def test_r7_2_a_decision_taken_in_13_s_costs_3_s_of_bank() -> None:
    table = dealt()
    table.advance(13_000)
    table.send(FIRST, SIX_SIX)
    assert table.state.clock.bank_ms == BySeat(BANK_MS - 3_000, BANK_MS)
    assert table.state.clock.running is SECOND


def test_r7_2_every_new_decision_gets_the_whole_delay_again() -> None:
    """The second seat's turn after a 13 s opening starts with 10 s of delay, not what was left."""
    table = dealt()
    table.advance(13_000)
    table.send(FIRST, SIX_SIX)
    reading = table.state.reading(table.advance(4_000))
    assert reading.delay_left_ms == DELAY_MS - 4_000
    assert reading.bank_left_ms == BySeat(BANK_MS - 3_000, BANK_MS)


# -- R7.7: the charge is at the server's receive time -------------------------------------------


def test_r7_7_a_command_is_charged_at_its_receive_time_not_when_it_is_processed() -> None:
    """Received 13 s into the decision, processed at 20 s: the bank pays 3 s, not 10 s; the next
    decision starts when the command took effect."""
    table = dealt()
    table.set(T0 + 20_000)
    entry = table.send(FIRST, SIX_SIX, received_ms=T0 + 13_000).entry
    assert entry is not None
    assert (entry.received_ms, entry.now_ms) == (T0 + 13_000, T0 + 20_000)
    clock = table.state.clock
    assert clock.bank_ms == BySeat(BANK_MS - 3_000, BANK_MS)
    assert clock.decision_started_ms == T0 + 20_000
    assert clock.deadline_ms() == T0 + 20_000 + DELAY_MS + BANK_MS


# -- R7.3: draws inside one turn keep its decision -----------------------------------------------


def test_r7_3_draws_inside_a_turn_do_not_restart_the_delay() -> None:
    """The second seat draws [2|4], [2|5], [3|3] (none fits) and [0|6] (must be played) 3, 6, 9
    and 11 s into its turn, then plays at 14 s: one decision, 4 s of bank."""
    table = dealt()
    table.advance(1_000)
    table.send(FIRST, SIX_SIX)
    turn_clock = table.state.clock
    assert turn_clock.running is SECOND
    entry = None
    for at_ms in (3_000, 6_000, 9_000, 11_000):
        table.set(T0 + 1_000 + at_ms)
        entry = table.send(SECOND, DrawTile()).entry
        assert table.state.clock == turn_clock, f"a draw at {at_ms} ms touched the clock"
        assert entry is not None
        assert entry.clock.delay_left_ms == max(0, DELAY_MS - at_ms)
    assert entry is not None
    assert entry.clock.bank_left_ms == BySeat(BANK_MS, BANK_MS - 1_000)
    table.set(T0 + 1_000 + 14_000)
    table.play("0-6@6-6:lineA")
    assert table.state.clock.bank_ms == BySeat(BANK_MS, BANK_MS - 4_000)
    assert table.state.clock.running is FIRST
    assert table.state.clock.decision_started_ms == T0 + 15_000


# -- R7.4: who runs after an auction decision -----------------------------------------------------


def test_r7_4_a_bid_and_a_raise_switch_the_clock_to_the_other_player() -> None:
    table = auction()
    table.advance(12_000)
    table.send(FIRST, PlaceBid(15))
    assert table.state.clock.running is SECOND
    assert table.state.clock.decision_started_ms == T0 + 12_000
    assert table.state.clock.bank_ms == BySeat(BANK_MS - 2_000, BANK_MS)
    table.advance(4_000)
    table.send(SECOND, PlaceBid(20))
    assert table.state.clock.running is FIRST
    assert table.state.clock.decision_started_ms == T0 + 16_000
    assert table.state.clock.delay_ms == DELAY_MS
    assert table.state.clock.bank_ms == BySeat(BANK_MS - 2_000, BANK_MS)


def test_r7_4_an_accept_starts_the_clock_of_the_bidder_who_opens() -> None:
    table = auction()
    table.advance(1_000)
    table.send(FIRST, PlaceBid(15))
    table.advance(11_000)
    table.send(SECOND, AcceptBid())
    match, clock = table.state.match, table.state.clock
    assert (match.phase, match.to_act) == (Phase.OPENING, FIRST)
    assert clock.running is FIRST
    assert clock.decision_started_ms == T0 + 12_000
    assert clock.delay_ms == DELAY_MS
    assert clock.bank_ms == BySeat(BANK_MS, BANK_MS - 1_000)


def test_r7_4_a_decline_starts_the_clock_of_the_jockey_who_opens() -> None:
    table = auction()
    table.advance(3_000)
    table.send(FIRST, DeclineBid())
    match, clock = table.state.match, table.state.clock
    assert (match.phase, match.to_act) == (Phase.OPENING, SECOND)
    assert clock.running is SECOND
    assert clock.decision_started_ms == T0 + 3_000
    assert clock.delay_ms == DELAY_MS
    assert clock.bank_ms == FULL


# -- R7.1: one bank for the whole match -----------------------------------------------------------


def test_r7_1_the_bank_is_never_refilled_between_rounds() -> None:
    """The second seat opens round 1 in 13 s (3 s of bank); in round 2 it still has 117 s, and
    the first seat's 15 s auction decision leaves it 115 s."""
    table = Table.invite(domino_deck(), NEXT_DECK)
    table.start_round()
    opening, *rest = domino_moves().split()
    table.advance(13_000)
    table.play(opening)
    table.play(" ".join(rest))
    assert table.state.match.round_end is RoundEnd.DOMINO
    assert table.state.clock.bank_ms == BySeat(BANK_MS, BANK_MS - 3_000)
    table.advance(5_000)
    table.start_round()
    assert table.state.match.phase is Phase.AUCTION
    assert table.state.clock.bank_ms == BySeat(BANK_MS, BANK_MS - 3_000)
    table.advance(15_000)
    table.send(FIRST, DeclineBid())
    assert table.state.clock.bank_ms == BySeat(BANK_MS - 5_000, BANK_MS - 3_000)


# -- R7.5: clocks stand between rounds and through a hand-over ----------------------------------


def test_r7_5_clocks_stand_before_the_first_round_until_both_start() -> None:
    table = Table.invite()
    assert table.state.clock.running is None
    assert timers(table.state).flag_ms is None
    table.advance(7_000)
    table.send(FIRST, Start())
    assert table.state.clock.running is None
    assert table.refused(FlagDue(), T0 + 10**7).code is ErrorCode.WRONG_PHASE
    table.advance(9_000)
    table.send(SECOND, Start())
    clock = table.state.clock
    assert clock.running is FIRST
    assert clock.decision_started_ms == T0 + 16_000
    assert clock.bank_ms == FULL


def test_r7_5_clocks_stand_during_the_settlement_until_continue() -> None:
    table = Table.invite(domino_deck(), NEXT_DECK)
    table.start_round()
    table.advance(12_000)
    table.play(domino_moves())
    ended_at_ms = table.now_ms
    assert table.state.match.phase is Phase.AWAITING_DEAL
    assert table.state.clock.running is None
    assert table.state.clock.bank_ms == BySeat(BANK_MS, BANK_MS - 2_000)
    assert timers(table.state).flag_ms is None
    later = table.advance(300_000)
    assert table.state.reading(later).bank_left_ms == BySeat(BANK_MS, BANK_MS - 2_000)
    assert table.refused(FlagDue()).code is ErrorCode.WRONG_PHASE
    table.send(SECOND, Start())
    assert table.state.clock.running is None
    table.advance(1_000)
    table.send(FIRST, Start())
    assert table.state.clock.running is FIRST
    assert table.state.clock.decision_started_ms == ended_at_ms + 301_000
    assert table.state.clock.bank_ms == BySeat(BANK_MS, BANK_MS - 2_000)


def test_r7_5_a_shared_device_hand_over_stands_the_clocks_until_reveal() -> None:
    table = Table.shared()
    table.start_round()
    assert table.state.handover is FIRST
    assert table.state.clock.running is None
    assert timers(table.state).flag_ms is None
    table.advance(30_000)
    assert table.refused(FlagDue()).code is ErrorCode.WRONG_PHASE
    table.reveal()
    assert table.state.clock.running is FIRST
    assert table.state.clock.decision_started_ms == T0 + 30_000
    table.advance(2_000)
    table.play("6-6")
    assert table.state.handover is SECOND
    assert table.state.clock.running is None
    table.advance(50_000)
    table.reveal()
    clock = table.state.clock
    assert clock.running is SECOND
    assert clock.decision_started_ms == T0 + 82_000
    assert clock.delay_ms == DELAY_MS
    assert clock.bank_ms == FULL


# -- R7.7, D6: the deadline ---------------------------------------------------------------------


def test_d6_a_command_received_exactly_at_the_deadline_is_a_loss_on_time() -> None:
    table = dealt()
    table.set(FIRST_DEADLINE_MS + 500)
    result = table.send(FIRST, SIX_SIX, received_ms=FIRST_DEADLINE_MS)
    assert result.reply is not None
    assert result.reply.code is ErrorCode.TIME_EXPIRED
    assert result.entry is not None
    assert result.entry.command == Flag(FIRST)
    assert result.entry.received_ms == FIRST_DEADLINE_MS
    assert MatchEnded(SECOND, MatchEnd.TIME) in result.entry.events
    assert not any(isinstance(e, Played) for e in result.entry.events)
    assert result.header_changed
    assert table.state.status is MatchStatus.FINISHED
    assert table.state.clock.bank_ms == BySeat(0, BANK_MS)
    assert result.entry.clock.bank_left_ms == BySeat(0, BANK_MS)


def test_d6_a_command_received_one_ms_before_the_deadline_is_played() -> None:
    """Processed 5 s after the deadline, it still counts: it reached the server in time (R7.7)."""
    table = dealt()
    table.set(FIRST_DEADLINE_MS + 5_000)
    result = table.send(FIRST, SIX_SIX, received_ms=FIRST_DEADLINE_MS - 1)
    assert result.reply is None
    assert result.entry is not None
    assert isinstance(result.entry.events[0], Played)
    assert table.state.status is MatchStatus.ACTIVE
    assert table.state.clock.bank_ms == BySeat(1, BANK_MS)
    assert table.state.clock.running is SECOND


def test_d6_a_late_command_of_the_seat_not_on_move_flags_the_seat_on_move() -> None:
    """The deadline passed: the seat on move has lost on time, whoever's message revealed it."""
    table = dealt()
    table.set(FIRST_DEADLINE_MS)
    result = table.send(SECOND, DrawTile())
    assert result.reply is not None
    assert result.reply.code is ErrorCode.TIME_EXPIRED
    assert result.entry is not None
    assert result.entry.command == Flag(FIRST)
    assert table.state.match.result == MatchEnded(SECOND, MatchEnd.TIME)


def test_r7_7_flag_due_before_the_deadline_is_refused_never_early() -> None:
    table = dealt()
    assert table.refused(FlagDue(), FIRST_DEADLINE_MS - 1).code is ErrorCode.WRONG_PHASE
    assert table.state.clock.running is FIRST


def test_r7_7_flag_due_at_the_deadline_flags_the_seat_on_move() -> None:
    table = dealt()
    assert timers(table.state).flag_ms == FIRST_DEADLINE_MS
    result = table.feed(FlagDue(), FIRST_DEADLINE_MS)
    assert result.entry is not None
    assert result.entry.command == Flag(FIRST)
    assert result.entry.seat is None
    assert result.entry.now_ms == FIRST_DEADLINE_MS
    assert result.reply is None
    assert result.header_changed
    ended = [e for e in result.entry.events if isinstance(e, RoundEnded)]
    assert [e.reason for e in ended] == [RoundEnd.MATCH_OVER]
    assert table.state.match.result == MatchEnded(SECOND, MatchEnd.TIME)
    assert table.state.status is MatchStatus.FINISHED
    assert timers(table.state).flag_ms is None


def test_r7_7_a_late_flag_timer_charges_up_to_the_deadline_only() -> None:
    """The timer ran 1.234 s late: the flag is recorded at the deadline, the bank at 0."""
    table = dealt()
    result = table.feed(FlagDue(), FIRST_DEADLINE_MS + 1_234)
    assert result.entry is not None
    assert result.entry.received_ms == FIRST_DEADLINE_MS
    assert result.entry.now_ms == FIRST_DEADLINE_MS + 1_234
    assert result.entry.clock.bank_left_ms == BySeat(0, BANK_MS)
    assert table.state.clock.bank_ms == BySeat(0, BANK_MS)


def test_r7_7_the_deadline_follows_the_bank_left() -> None:
    """After a 13 s opening the first seat has 117 s; its next decision's deadline is 3 s
    earlier than a full bank's, and FlagDue flags exactly there."""
    table = dealt()
    table.advance(13_000)
    table.send(FIRST, SIX_SIX)
    table.advance(1_000)
    table.send(SECOND, DrawTile())
    table.send(SECOND, DrawTile())
    table.send(SECOND, DrawTile())
    table.send(SECOND, DrawTile())
    table.play("0-6@6-6:lineA")
    started_ms = table.state.clock.decision_started_ms
    deadline_ms = started_ms + DELAY_MS + BANK_MS - 3_000
    assert table.state.clock.deadline_ms() == deadline_ms
    assert table.refused(FlagDue(), deadline_ms - 1).code is ErrorCode.WRONG_PHASE
    entry = table.feed(FlagDue(), deadline_ms).entry
    assert entry is not None
    assert entry.command == Flag(FIRST)
