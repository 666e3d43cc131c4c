"""§5 Match end (R5.1, R5.2), and the aborts without a result (D3, D5, D7)."""

from __future__ import annotations

import pytest

from spectacular_bid.rules.actions import (
    Abort,
    AbortReason,
    Accept,
    Action,
    Bid,
    Deal,
    Draw,
    Flag,
    MatchEnd,
    MatchEnded,
    Play,
    Resign,
    RoundEnd,
    RoundEnded,
)
from spectacular_bid.rules.errors import IllegalActionError, NotYourTurnError, WrongPhaseError
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import Tile

from .decks import NEXT_DECK, after_block_round, dealt, deck, in_auction, play, tiles

FIRST, SECOND = Seat.FIRST, Seat.SECOND


def assert_over(match: Match, result: MatchEnded) -> None:
    assert match.phase is Phase.OVER
    assert match.is_over
    assert match.result == result
    assert match.to_act is None
    assert match.legal_actions(FIRST) == []
    assert match.legal_actions(SECOND) == []


def test_r5_1_a_player_wins_when_the_opponent_s_balance_reaches_0() -> None:
    """Here by the auction (R6.5): the first seat's accepted bid costs its whole 115. (An award
    that empties a balance mid-round is in test_points.)"""
    match = in_auction()
    match.apply(Bid(FIRST, 115))
    events = match.apply(Accept(SECOND))
    assert events[-1] == MatchEnded(SECOND, MatchEnd.ZERO_BALANCE)
    assert_over(match, MatchEnded(SECOND, MatchEnd.ZERO_BALANCE))
    assert match.balances == [0, 300]
    assert match.result is not None
    assert match.result.is_rated


def test_r5_1_a_player_wins_when_the_opponent_s_time_runs_out() -> None:
    match = dealt(deck(first="6-6 0-1", second="5-5 0-2"))
    assert match.to_act is FIRST
    events = match.apply(Flag(FIRST))
    assert events[-1] == MatchEnded(SECOND, MatchEnd.TIME)
    assert isinstance(events[0], RoundEnded)
    assert events[0].reason is RoundEnd.MATCH_OVER
    assert_over(match, MatchEnded(SECOND, MatchEnd.TIME))


def test_r5_1_only_the_seat_to_act_can_run_out_of_time() -> None:
    match = dealt(deck(first="6-6 0-1", second="5-5 0-2"))
    before = match.copy()
    with pytest.raises(NotYourTurnError):
        match.apply(Flag(SECOND))
    assert match == before


def test_d7_an_abort_for_no_first_decision_names_the_seat_to_act_and_has_no_winner() -> None:
    match = dealt(deck(first="6-6 0-1", second="5-5 0-2"))
    events = match.apply(Abort(AbortReason.NO_FIRST_DECISION, FIRST))
    assert isinstance(events[0], RoundEnded)
    assert events[0].reason is RoundEnd.MATCH_OVER
    assert events[-1] == MatchEnded(None, MatchEnd.NO_FIRST_DECISION, FIRST)
    assert_over(match, MatchEnded(None, MatchEnd.NO_FIRST_DECISION, FIRST))
    assert match.result is not None
    assert not match.result.is_rated
    assert match.balances == [150, 150]


@pytest.mark.parametrize(
    ("abort", "error"),
    [
        (Abort(AbortReason.NO_FIRST_DECISION, SECOND), NotYourTurnError),
        (Abort(AbortReason.NO_FIRST_DECISION), NotYourTurnError),
        (Abort(AbortReason.JOIN_TIMEOUT, FIRST), IllegalActionError),
        (Abort(AbortReason.TIMING_FAILURE, SECOND), IllegalActionError),
    ],
    ids=["not-to-act", "no-seat", "join-timeout-with-seat", "timing-failure-with-seat"],
)
def test_d7_only_the_seat_to_act_misses_its_first_decision(
    abort: Abort, error: type[Exception]
) -> None:
    match = dealt(deck(first="6-6 0-1", second="5-5 0-2"))
    before = match.copy()
    with pytest.raises(error):
        match.apply(abort)
    assert match == before


def test_d7_no_first_decision_runs_while_the_clocks_stand() -> None:
    for match in (Match(), after_block_round()):
        before = match.copy()
        with pytest.raises(WrongPhaseError):
            match.apply(Abort(AbortReason.NO_FIRST_DECISION, FIRST))
        assert match == before


def test_r5_2_resign_before_the_first_deal() -> None:
    match = Match()
    assert match.apply(Resign(SECOND)) == [MatchEnded(FIRST, MatchEnd.RESIGNATION)]
    assert_over(match, MatchEnded(FIRST, MatchEnd.RESIGNATION))


def test_r5_2_resign_mid_round_while_the_opponent_is_to_act() -> None:
    match = dealt(deck(first="6-6 0-1 0-2 0-3 0-4 0-5 0-6", second="1-1 1-2 1-3 1-4 1-5 1-6 2-2"))
    play(match, "6-6")
    assert match.to_act is SECOND
    events = match.apply(Resign(FIRST))
    assert events == [
        RoundEnded(
            1,
            RoundEnd.MATCH_OVER,
            BySeat(tiles("0-1 0-2 0-3 0-4 0-5 0-6"), tiles("1-1 1-2 1-3 1-4 1-5 1-6 2-2")),
            BySeat(21, 31),
            None,
        ),
        MatchEnded(SECOND, MatchEnd.RESIGNATION),
    ]
    assert_over(match, MatchEnded(SECOND, MatchEnd.RESIGNATION))
    assert match.balances == [150, 150]  # resigning moves no points


def test_r5_2_resign_between_rounds() -> None:
    match = after_block_round()
    assert match.phase is Phase.AWAITING_DEAL
    events = match.apply(Resign(SECOND))
    assert events == [MatchEnded(FIRST, MatchEnd.RESIGNATION)]  # the round already ended
    assert_over(match, MatchEnded(FIRST, MatchEnd.RESIGNATION))
    assert match.balances == [25, 275]


def test_r5_2_resign_during_the_auction() -> None:
    match = in_auction()
    events = match.apply(Resign(SECOND))  # the jockey, not to act
    assert events[-1] == MatchEnded(FIRST, MatchEnd.RESIGNATION)
    assert_over(match, MatchEnded(FIRST, MatchEnd.RESIGNATION))


@pytest.mark.parametrize(
    "command",
    [
        Resign(FIRST),
        Resign(SECOND),
        Deal(NEXT_DECK),
        Play(FIRST, Tile.of(0, 1)),
        Draw(FIRST),
        Flag(FIRST),
    ],
    ids=["resign-first", "resign-second", "deal", "play", "draw", "flag"],
)
def test_r5_2_nothing_is_accepted_once_the_match_is_over(command: Action) -> None:
    match = Match()
    match.apply(Resign(FIRST))
    before = match.copy()
    with pytest.raises(WrongPhaseError):
        match.apply(command)
    assert match == before
