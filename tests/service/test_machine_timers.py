"""The machine's timers and the decisions no one takes: D3's grace and join timeout, D2's forced
moves, D5's aborts and R5.2's resignation at any time. Only ``step`` is driven."""

from __future__ import annotations

from rules.decks import NEXT_DECK, after_domino_round, deck, domino_deck, domino_moves
from spectacular_bid.rules.actions import (
    Abort,
    AbortReason,
    BidAccepted,
    Declined,
    MatchEnd,
    MatchEnded,
    OpenerChosen,
    Passed,
    Resign,
)
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.seats import BySeat
from spectacular_bid.service.commands import (
    GraceDue,
    Join,
    JoinDue,
    LoopStalled,
    NeedsDeck,
    PlaceBid,
    ResignMatch,
    Restarted,
    SaltedDeal,
    Start,
    TookSeat,
)
from spectacular_bid.service.events import SeatTaken
from spectacular_bid.service.ports import MatchStatus
from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.service.state import Timers, timers

from .machine_table import (
    ANN,
    BANK_MS,
    BO,
    CY,
    DELAY_MS,
    FIRST,
    GRACE_MS,
    JOIN_TIMEOUT_MS,
    SECOND,
    T0,
    Table,
    settled,
)

FULL = BySeat(BANK_MS, BANK_MS)


def dealt() -> Table:
    """An invite match dealt from ``DRAW_DECK`` at ``T0``: the first seat's clock runs."""
    table = Table.invite()
    table.start_round()
    assert table.state.clock.running is FIRST
    return table


def after_round_one() -> Table:
    """An invite match in the settlement after the domino round, ended at ``T0 + 7_000``."""
    table = Table.invite(domino_deck(), NEXT_DECK)
    table.start_round()
    table.advance(7_000)
    table.play(domino_moves())
    assert table.state.match.is_round_over
    return table


# -- D3: the grace period ------------------------------------------------------------------------


def test_d3_grace_due_before_the_grace_is_refused() -> None:
    table = Table.invite()
    table.send(FIRST, Start())
    assert table.state.start_deadline_ms == T0 + GRACE_MS
    rejection = table.refused(GraceDue(), T0 + GRACE_MS - 1)
    assert rejection.code is ErrorCode.WRONG_PHASE


def test_d3_one_press_and_the_grace_running_out_deal_the_round() -> None:
    table = Table.invite()
    table.send(FIRST, Start())
    assert table.outcome(GraceDue(), T0 + GRACE_MS) == NeedsDeck()
    result = table.feed(GraceDue(), T0 + GRACE_MS)
    assert result.entry is not None
    assert isinstance(result.entry.command, SaltedDeal)
    assert result.entry.seat is None
    assert table.state.ready == frozenset()
    assert table.state.clock.running is FIRST
    assert table.state.clock.decision_started_ms == T0 + GRACE_MS


def test_d3_the_grace_deals_even_when_nobody_pressed() -> None:
    table = Table.invite()
    entry = table.feed(GraceDue(), T0 + GRACE_MS + 300).entry
    assert entry is not None
    assert isinstance(entry.command, SaltedDeal)
    assert table.refused(GraceDue(), T0 + 10**7).code is ErrorCode.WRONG_PHASE


def test_d3_the_grace_is_armed_again_from_the_settlement() -> None:
    table = after_round_one()
    ended_ms = table.now_ms
    assert table.state.start_deadline_ms == ended_ms + GRACE_MS
    assert timers(table.state).grace_ms == ended_ms + GRACE_MS
    assert table.refused(GraceDue(), ended_ms + GRACE_MS - 1).code is ErrorCode.WRONG_PHASE
    entry = table.feed(GraceDue(), ended_ms + GRACE_MS).entry
    assert entry is not None
    assert isinstance(entry.command, SaltedDeal)
    assert table.state.match.phase is Phase.AUCTION


def test_d3_a_shared_match_deals_at_its_grace_too() -> None:
    table = Table.shared()
    assert table.refused(GraceDue(), T0 + GRACE_MS - 1).code is ErrorCode.WRONG_PHASE
    assert table.feed(GraceDue(), T0 + GRACE_MS).entry is not None
    assert table.state.handover is FIRST


# -- D3: the join timeout ------------------------------------------------------------------------


def test_d3_join_due_before_the_join_timeout_is_refused() -> None:
    table = Table.invite(joined=False)
    assert timers(table.state).join_ms == T0 + JOIN_TIMEOUT_MS
    rejection = table.refused(JoinDue(), T0 + JOIN_TIMEOUT_MS - 1)
    assert rejection.code is ErrorCode.WRONG_PHASE


def test_d3_join_due_at_the_join_timeout_aborts_with_no_result() -> None:
    table = Table.invite(joined=False)
    result = table.feed(JoinDue(), T0 + JOIN_TIMEOUT_MS)
    assert result.entry is not None
    assert result.entry.command == Abort(AbortReason.JOIN_TIMEOUT)
    assert MatchEnded(None, MatchEnd.JOIN_TIMEOUT) in result.entry.events
    assert result.header_changed
    assert table.state.status is MatchStatus.ABORTED
    assert timers(table.state) == Timers(None, None, None)
    assert table.refused(Join(BO)).code is ErrorCode.SEAT_TAKEN


def test_d3_a_join_fills_the_seat_and_arms_the_grace() -> None:
    table = Table.invite(joined=False)
    table.advance(5_000)
    result = table.feed(Join(BO))
    assert result.entry is not None
    assert result.entry.command == TookSeat(SECOND)
    assert result.entry.events == (SeatTaken(SECOND, "Bo"),)
    assert result.header_changed
    state = table.state
    assert state.status is MatchStatus.ACTIVE
    assert state.seats == (ANN, BO)
    assert state.join_deadline_ms is None
    assert state.start_deadline_ms == T0 + 5_000 + GRACE_MS
    assert timers(state).join_ms is None
    assert table.refused(JoinDue(), T0 + 10**7).code is ErrorCode.WRONG_PHASE


def test_d3_a_join_at_the_join_timeout_is_too_late_and_ends_the_match() -> None:
    """D3 "within a join timeout", read as D6 reads a deadline: at the timeout is too late, even
    when the join is taken before the timer's own work. The timeout is the one the service armed
    from who is there (here the creator left at once), never before the machine's lower bound."""
    armed_ms = T0 + JOIN_TIMEOUT_MS + 5_000
    early = Table.invite(joined=False)
    joined = early.feed(Join(BO, armed_ms), armed_ms - 1)
    assert joined.entry is not None
    assert joined.entry.command == TookSeat(SECOND)
    held = Table.invite(joined=False)  # the creator is there: nothing is too late
    assert held.feed(Join(BO, None), T0 + 100 * JOIN_TIMEOUT_MS).entry is not None
    assert held.state.status is MatchStatus.ACTIVE
    bounded = Table.invite(joined=False)  # a timer armed too early is held to the lower bound
    assert bounded.feed(Join(BO, T0), T0 + JOIN_TIMEOUT_MS - 1).entry is not None
    assert bounded.state.status is MatchStatus.ACTIVE
    table = Table.invite(joined=False)
    result = table.feed(Join(BO, armed_ms), armed_ms)
    assert result.entry is not None
    assert result.entry.command == Abort(AbortReason.JOIN_TIMEOUT)
    assert result.reply is not None
    assert result.reply.code is ErrorCode.MATCH_OVER
    assert table.state.status is MatchStatus.ABORTED
    assert table.state.seats[1] is None


def test_d3_a_seated_player_joining_again_is_acknowledged_and_a_third_is_refused() -> None:
    waiting = Table.invite(joined=False)
    assert waiting.feed(Join(ANN)).entry is None
    table = Table.invite()
    assert table.feed(Join(BO)).entry is None
    assert table.feed(Join(ANN)).entry is None
    assert table.refused(Join(CY)).code is ErrorCode.SEAT_TAKEN
    shared = Table.shared()
    assert shared.refused(Join(BO)).code is ErrorCode.SEAT_TAKEN


# -- D2: forced moves take no time ---------------------------------------------------------------

PASS_DECK = deck(
    first="1-2 2-5 0-6 1-4 5-6 3-4 0-1",
    second="6-6 0-5 0-0 1-5 1-1 4-6 1-6",
    boneyard="3-3 0-4 2-3 3-5 1-3 2-2 2-4 0-3 5-5 0-2 4-4 4-5 2-6 3-6",
)
PASS_MOVES = (
    "6-6 0-6@6-6:lineB 0-5@0-6:smaller 5-6@0-5:larger 1-6@5-6:larger 1-4@1-6:smaller "
    "4-6@1-4:larger " + "draw " * 13 + "2-6@4-6:larger draw 3-6@6-6:lineA"
)
"""The second seat opens [6|6]; after seven placements the first seat draws thirteen tiles and
lays the last, [2|6]; the second seat draws the boneyard's last tile, [3|6], and lays it. The
first seat's [2|4] then leaves the second seat nothing to lay and nothing to draw."""


def test_d2_a_forced_pass_takes_no_time_and_the_turn_comes_straight_back() -> None:
    table = Table.invite(PASS_DECK)
    table.start_round()
    table.play(PASS_MOVES)
    assert table.state.match.to_act is FIRST
    banks = table.state.clock.bank_ms
    assert banks == FULL
    table.advance(12_000)
    entry = table.play("2-4@2-6:smaller").entry
    assert entry is not None
    assert Passed(SECOND) in entry.events
    clock = table.state.clock
    assert table.state.match.to_act is FIRST
    assert clock.running is FIRST
    assert clock.decision_started_ms == table.now_ms
    assert clock.delay_ms == DELAY_MS
    assert clock.bank_ms == BySeat(BANK_MS - 2_000, BANK_MS)


def with_balances(first: int) -> Match:
    """After the domino round (jockey: the second seat), with the first seat holding ``first``
    points and the second the rest of the 300 (R1.2)."""
    match = after_domino_round()
    match.balances = [first, 300 - first]
    return match


def test_d2_r6_6_a_forced_decline_takes_no_time() -> None:
    """With 10 points the non-jockey cannot bid 15: the deal declines for it and the jockey's
    opening decision starts at the deal with its whole delay."""
    table = Table.at(settled(with_balances(10)), NEXT_DECK)
    table.advance(4_000)
    entry = table.start_round().entry
    assert entry is not None
    assert Declined(FIRST, True) in entry.events
    assert OpenerChosen(SECOND, None) in entry.events
    clock = table.state.clock
    assert clock.running is SECOND
    assert clock.decision_started_ms == T0 + 4_000
    assert clock.delay_ms == DELAY_MS
    assert clock.bank_ms == FULL


def test_d2_r6_6_a_forced_accept_takes_no_time() -> None:
    """The non-jockey (20 points) bids 15; the jockey raises to 20 after 12 s; the non-jockey
    cannot afford 25 and accepts at once: the jockey opens with a fresh delay (R7.4)."""
    table = Table.at(settled(with_balances(20)), NEXT_DECK)
    table.start_round()
    table.advance(5_000)
    table.send(FIRST, PlaceBid(15))
    table.advance(12_000)
    entry = table.send(SECOND, PlaceBid(20)).entry
    assert entry is not None
    assert BidAccepted(FIRST, SECOND, 20, 5, True) in entry.events
    clock = table.state.clock
    assert table.state.match.phase is Phase.OPENING
    assert clock.running is SECOND
    assert clock.decision_started_ms == T0 + 17_000
    assert clock.delay_ms == DELAY_MS
    assert clock.bank_ms == BySeat(BANK_MS, BANK_MS - 2_000)
    assert table.state.match.balance == BySeat(25, 275)


# -- D5: timing failures -------------------------------------------------------------------------


def test_d5_a_loop_stall_aborts_only_while_a_clock_runs() -> None:
    waiting = Table.invite(joined=False)
    assert waiting.refused(LoopStalled()).code is ErrorCode.WRONG_PHASE
    before_deal = Table.invite()
    assert before_deal.refused(LoopStalled()).code is ErrorCode.WRONG_PHASE
    settlement = after_round_one()
    assert settlement.refused(LoopStalled()).code is ErrorCode.WRONG_PHASE
    hand_over = Table.shared()
    hand_over.start_round()
    assert hand_over.refused(LoopStalled()).code is ErrorCode.WRONG_PHASE
    table = dealt()
    result = table.feed(LoopStalled(), T0 + 3_000)
    assert result.entry is not None
    assert result.entry.command == Abort(AbortReason.TIMING_FAILURE)
    assert MatchEnded(None, MatchEnd.TIMING_FAILURE) in result.entry.events
    assert result.header_changed
    assert table.state.status is MatchStatus.ABORTED
    assert table.state.clock.running is None


def test_d5_a_restart_aborts_in_any_live_state() -> None:
    for table in (Table.invite(joined=False), Table.invite(), after_round_one(), Table.shared()):
        entry = table.feed(Restarted(table.now_ms), table.now_ms + 60_000).entry
        assert entry is not None
        assert entry.command == Abort(AbortReason.TIMING_FAILURE)
        assert table.state.status is MatchStatus.ABORTED
        assert table.state.match.result == MatchEnded(None, MatchEnd.TIMING_FAILURE)
        assert table.refused(Restarted(table.now_ms)).code is ErrorCode.MATCH_OVER


def test_d5_a_restart_charges_nobody_beyond_the_last_measured_time() -> None:
    """Last measured 25 s into the first seat's decision, restarted ten minutes later: the bank
    pays 15 s, not the time the server was down."""
    table = dealt()
    result = table.feed(Restarted(T0 + 25_000), T0 + 600_000)
    assert result.entry is not None
    assert result.entry.received_ms == T0 + 25_000
    assert result.entry.now_ms == T0 + 600_000
    assert result.entry.clock.bank_left_ms == BySeat(BANK_MS - 15_000, BANK_MS)
    assert result.entry.clock.running is None
    assert table.state.clock.bank_ms == BySeat(BANK_MS - 15_000, BANK_MS)


def test_d5_a_restart_measured_before_the_decision_began_charges_nothing() -> None:
    table = dealt()
    table.feed(Restarted(T0 - 5_000), T0 + 600_000)
    assert table.state.clock.bank_ms == FULL


# -- R5.2: resignation at any time ---------------------------------------------------------------


def test_r5_2_the_seat_on_move_resigns_and_is_charged_at_receipt() -> None:
    table = dealt()
    table.set(T0 + 20_000)
    result = table.send(FIRST, ResignMatch(), received_ms=T0 + 13_000)
    assert result.entry is not None
    assert result.entry.command == Resign(FIRST)
    assert result.header_changed
    assert table.state.match.result == MatchEnded(SECOND, MatchEnd.RESIGNATION)
    assert table.state.status is MatchStatus.FINISHED
    assert table.state.clock.bank_ms == BySeat(BANK_MS - 3_000, BANK_MS)


def test_r5_2_the_seat_not_on_move_may_resign() -> None:
    table = dealt()
    table.advance(2_000)
    result = table.send(SECOND, ResignMatch())
    assert result.entry is not None
    assert result.entry.seat is SECOND
    assert table.state.match.result == MatchEnded(FIRST, MatchEnd.RESIGNATION)
    assert table.state.clock.running is None


def test_r5_2_a_player_may_resign_before_the_deal_and_in_the_settlement() -> None:
    before = Table.invite()
    before.send(SECOND, ResignMatch())
    assert before.state.match.result == MatchEnded(FIRST, MatchEnd.RESIGNATION)
    settlement = after_round_one()
    settlement.send(FIRST, ResignMatch())
    assert settlement.state.match.result == MatchEnded(SECOND, MatchEnd.RESIGNATION)


def test_r5_2_on_a_shared_device_either_seat_may_resign_during_the_hand_over() -> None:
    other = Table.shared()
    other.start_round()
    assert other.state.handover is FIRST
    other.send(ANN, ResignMatch(), seat=SECOND)
    assert other.state.match.result == MatchEnded(FIRST, MatchEnd.RESIGNATION)
    own = Table.shared()
    own.start_round()
    own.send(ANN, ResignMatch())
    assert own.state.match.result == MatchEnded(SECOND, MatchEnd.RESIGNATION)


def test_r5_2_between_rounds_a_shared_device_must_say_which_seat_resigns() -> None:
    table = Table.shared()
    assert table.refused(table.submit(ANN, ResignMatch())).code is ErrorCode.BAD_MESSAGE
    table.send(ANN, ResignMatch(), seat=FIRST)
    assert table.state.match.result == MatchEnded(SECOND, MatchEnd.RESIGNATION)


def test_r5_2_a_resignation_after_the_end_is_refused() -> None:
    table = dealt()
    table.send(SECOND, ResignMatch())
    assert table.refused(table.submit(FIRST, ResignMatch())).code is ErrorCode.MATCH_OVER


def test_r5_2_nobody_can_resign_a_match_still_waiting_for_its_second_player() -> None:
    """There is no opponent to win yet: the join timeout ends such a match (D3)."""
    table = Table.invite(joined=False)
    rejection = table.refused(table.submit(ANN, ResignMatch(), version=0))
    assert rejection.code is ErrorCode.WRONG_PHASE
