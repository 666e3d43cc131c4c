"""Auction decisions from the opening's worth (bots/bidding.py, §6): bid when opening is worth
more than the bid costs plus what accepting would bring in (R6.3, R6.4), never a bid that costs
the whole balance (R6.5), and accept at once a bid that costs the bidder theirs (R1.5)."""

from __future__ import annotations

import pytest

from spectacular_bid.bots.bidding import OPENER_EDGE, auction_action, estimated_worth
from spectacular_bid.bots.knowledge import Knowledge
from spectacular_bid.rules.actions import Accept, Bid, Decline, SeatAction
from spectacular_bid.rules.auction import Auction
from spectacular_bid.rules.board import Board
from spectacular_bid.rules.notation import parse_tile
from spectacular_bid.rules.phase import Phase
from spectacular_bid.rules.position import match_at, round_at
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.tiles import TILES

FIRST, SECOND = Seat.FIRST, Seat.SECOND


def auction(
    seat: Seat, bids: list[tuple[Seat, int]], balances: tuple[int, int] = (150, 150)
) -> tuple[Knowledge, list[SeatAction]]:
    """The second seat is the jockey (R6.1); ``seat`` decides after ``bids``."""
    rnd = round_at(2, [TILES[:7], TILES[7:14]], TILES[14:], Board())
    state = Auction(SECOND)
    state.bids = list(bids)
    match = match_at(
        rnd, balances=balances, phase=Phase.AUCTION, to_act=seat, jockey=SECOND, auction=state
    )
    k = Knowledge(seat, 2, balances=balances, jockey=SECOND, phase=Phase.AUCTION)
    k.auction_bids = list(bids)
    return k, match.legal_actions(seat)


@pytest.mark.parametrize(("worth", "expected"), [(16.0, Bid(FIRST, 15)), (15.0, Decline(FIRST))])
def test_the_non_jockey_bids_15_only_when_opening_is_worth_more(
    worth: float, expected: SeatAction
) -> None:
    # R6.1: declining lets the jockey open for free; a bid of 15 costs 15 if accepted.
    k, legal = auction(FIRST, [])
    assert auction_action(k, legal, worth) == expected


@pytest.mark.parametrize(("worth", "expected"), [(21.0, Bid(SECOND, 20)), (20.0, Accept(SECOND))])
def test_the_jockey_raises_when_worth_beats_its_discounted_cost_plus_the_bid(
    worth: float, expected: SeatAction
) -> None:
    # R6.4: the jockey's 20 costs it 5; accepting brings in 15; so raise above 5 + 15 = 20.
    k, legal = auction(SECOND, [(FIRST, 15)])
    assert auction_action(k, legal, worth) == expected


def test_never_a_bid_that_costs_the_whole_balance() -> None:
    # R6.5: a payment of the whole balance loses the match at once.
    k, legal = auction(FIRST, [], balances=(15, 285))
    assert Bid(FIRST, 15) in legal
    assert auction_action(k, legal, 1000.0) == Decline(FIRST)


def test_accept_a_bid_that_costs_the_bidder_everything() -> None:
    # R6.5, R1.5: the jockey's 40 costs it 25, its whole balance: accepting wins the match.
    k, legal = auction(FIRST, [(FIRST, 15), (SECOND, 40)], balances=(275, 25))
    assert auction_action(k, legal, 1000.0) == Accept(FIRST)


def test_level_two_estimate_adds_the_best_opening_award() -> None:
    # R2.5: [5|5] opens for 10, [0|5] for 5; the estimate is the edge plus the best of them.
    k = Knowledge(FIRST)
    k.hand = (1 << parse_tile("5-5")) | (1 << parse_tile("0-5")) | (1 << parse_tile("1-2"))
    assert estimated_worth(k) == OPENER_EDGE + 10
