"""§6 The auction for the next opening (R6.1–R6.7) and D2's forced declines and accepts.

Every position is reached by real rounds: the domino round of ``decks`` makes the second seat the
jockey at 115–185; the blocked round followed by a domino brings the first seat down to 5.
"""

from __future__ import annotations

import pytest

from spectacular_bid.rules.actions import (
    Accept,
    AuctionOpened,
    Bid,
    BidAccepted,
    BidMade,
    Deal,
    Decline,
    Declined,
    MatchEnd,
    MatchEnded,
    OpenerChosen,
    Play,
    Played,
    RoundDealt,
    RoundEnd,
    RoundEnded,
    TransferReason,
    Transferred,
)
from spectacular_bid.rules.auction import bid_cost, max_affordable_bid
from spectacular_bid.rules.errors import IllegalActionError
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import Tile
from spectacular_bid.rules.views import legal_view

from .decks import (
    NEXT_DECK,
    after_block_round,
    dealt,
    domino_deck,
    domino_moves,
    in_auction,
    play,
    tiles,
)

FIRST, SECOND = Seat.FIRST, Seat.SECOND

FIRST_HAND = tiles("0-0 0-1 0-2 0-3 0-4 0-5 0-6")
SECOND_HAND = tiles("1-1 1-2 1-3 1-4 1-5 1-6 2-2")
"""NEXT_DECK's hands (Appendix A order)."""


def openings(seat: Seat, hand: tuple[Tile, ...]) -> list[Play]:
    return [Play(seat, tile) for tile in hand]


def test_r6_1_after_a_domino_the_non_jockey_acts_first() -> None:
    match = in_auction()
    assert match.balances == [115, 185]
    assert match.jockey is SECOND
    assert match.phase is Phase.AUCTION
    assert match.to_act is FIRST
    assert match.legal_actions() == [
        Decline(FIRST),
        *(Bid(FIRST, amount) for amount in range(15, 120, 5)),
    ]
    assert match.legal_actions(SECOND) == []


def test_r6_1_the_deal_after_a_domino_emits_the_auction() -> None:
    match = Match()
    dealt(domino_deck(), match)
    play(match, domino_moves())
    decision = match.decision
    events = match.apply(Deal(NEXT_DECK))
    assert events == [
        RoundDealt(2, BySeat(FIRST_HAND, SECOND_HAND), NEXT_DECK[14:], 14),
        AuctionOpened(SECOND),
    ]
    assert match.decision == decision + 1  # the non-jockey's decision starts


def test_r6_3_on_a_decline_the_jockey_opens_with_any_tile_for_free() -> None:
    match = in_auction()
    events = match.apply(Decline(FIRST))
    assert events == [Declined(FIRST, forced=False), OpenerChosen(SECOND, None)]
    assert match.balances == [115, 185]
    assert match.phase is Phase.OPENING
    assert match.legal_actions() == openings(SECOND, SECOND_HAND)
    # not the highest double: any tile
    events = match.apply(Play(SECOND, Tile.of(1, 4)))
    assert events[-1] == Transferred(FIRST, SECOND, 5, TransferReason.AWARD, BySeat(110, 190))


def test_r6_3_the_non_jockey_s_accepted_bid_is_paid_in_full_and_it_opens() -> None:
    match = in_auction()
    assert match.apply(Bid(FIRST, 15)) == [BidMade(FIRST, 15, 15)]
    assert match.to_act is SECOND
    events = match.apply(Accept(SECOND))
    assert events == [
        BidAccepted(SECOND, FIRST, 15, 15, forced=False),
        Transferred(FIRST, SECOND, 15, TransferReason.AUCTION, BySeat(100, 200)),
        OpenerChosen(FIRST, None),
    ]
    assert match.legal_actions() == openings(FIRST, FIRST_HAND)


def test_r6_2_bids_alternate_by_steps_of_5_until_one_is_accepted() -> None:
    match = in_auction()
    events = [
        *match.apply(Bid(FIRST, 15)),
        *match.apply(Bid(SECOND, 20)),
        *match.apply(Bid(FIRST, 30)),
        *match.apply(Bid(SECOND, 35)),
    ]
    assert events == [
        BidMade(FIRST, 15, 15),
        BidMade(SECOND, 20, 5),
        BidMade(FIRST, 30, 30),
        BidMade(SECOND, 35, 20),
    ]
    assert match.to_act is FIRST
    # the first seat may accept or raise by at least 5, never decline now
    assert match.legal_actions() == [
        Accept(FIRST),
        *(Bid(FIRST, amount) for amount in range(40, 120, 5)),
    ]
    for amount in (35, 36, 37):
        with pytest.raises(IllegalActionError, match="illegal bid"):
            match.apply(Bid(FIRST, amount))
    events = match.apply(Accept(FIRST))
    assert events == [
        BidAccepted(FIRST, SECOND, 35, 20, forced=False),
        Transferred(SECOND, FIRST, 20, TransferReason.AUCTION, BySeat(135, 165)),
        OpenerChosen(SECOND, None),
    ]


def test_r6_4_the_jockey_s_accepted_bid_of_20_costs_5() -> None:
    match = in_auction()
    match.apply(Bid(FIRST, 15))
    assert match.apply(Bid(SECOND, 20)) == [BidMade(SECOND, 20, 5)]
    events = match.apply(Accept(FIRST))
    assert events == [
        BidAccepted(FIRST, SECOND, 20, 5, forced=False),
        Transferred(SECOND, FIRST, 5, TransferReason.AUCTION, BySeat(120, 180)),
        OpenerChosen(SECOND, None),
    ]
    assert match.legal_actions() == openings(SECOND, SECOND_HAND)


def test_r6_4_the_discount_never_makes_a_payment_negative_and_is_never_paid_out() -> None:
    assert bid_cost(15, by_jockey=True) == 0
    assert bid_cost(20, by_jockey=True) == 5
    assert bid_cost(20, by_jockey=False) == 20
    # a decline pays the jockey nothing: the discount is not a prize
    match = in_auction()
    events = match.apply(Decline(FIRST))
    assert not any(isinstance(e, Transferred) for e in events)
    assert match.balances == [115, 185]


def test_r6_4_the_discount_belongs_to_one_auction_and_is_not_carried_over() -> None:
    """The non-jockey's winning bid in the same auction is not discounted."""
    match = in_auction()
    match.apply(Bid(FIRST, 15))
    match.apply(Bid(SECOND, 20))
    assert match.apply(Bid(FIRST, 25)) == [BidMade(FIRST, 25, 25)]
    events = match.apply(Accept(SECOND))
    assert events[:2] == [
        BidAccepted(SECOND, FIRST, 25, 25, forced=False),
        Transferred(FIRST, SECOND, 25, TransferReason.AUCTION, BySeat(90, 210)),
    ]


def test_r6_5_a_bid_may_not_cost_more_than_the_bidder_s_balance() -> None:
    match = in_auction()
    before = match.copy()
    with pytest.raises(IllegalActionError, match=r"cost 120 exceeds your balance 115"):
        match.apply(Bid(FIRST, 120))
    assert match == before
    match.apply(Bid(FIRST, 15))
    # the jockey holds 185: its top bid is 200 (cost 185), 205 would cost 190
    assert max_affordable_bid(185, by_jockey=True) == 200
    assert Bid(SECOND, 200) in match.legal_actions()
    assert Bid(SECOND, 205) not in match.legal_actions()
    before = match.copy()
    with pytest.raises(IllegalActionError, match=r"cost 190 exceeds your balance 185"):
        match.apply(Bid(SECOND, 205))
    assert match == before


def test_r6_5_non_jockey_paying_its_whole_balance_loses_before_the_opening_tile() -> None:
    match = in_auction()
    assert match.apply(Bid(FIRST, 115)) == [BidMade(FIRST, 115, 115)]
    assert match.to_act is SECOND  # the jockey could raise: 120 costs 105

    events = match.apply(Accept(SECOND))

    assert events == [
        BidAccepted(SECOND, FIRST, 115, 115, forced=False),
        Transferred(FIRST, SECOND, 115, TransferReason.AUCTION, BySeat(0, 300)),
        RoundEnded(2, RoundEnd.MATCH_OVER, BySeat(FIRST_HAND, SECOND_HAND), BySeat(21, 31), None),
        MatchEnded(SECOND, MatchEnd.ZERO_BALANCE),
    ]
    assert match.phase is Phase.OVER
    rnd = match.round
    assert rnd is not None
    assert rnd.board.is_empty
    assert not any(isinstance(e, OpenerChosen | Played) for e in events)


def test_r6_5_the_legal_bids_mark_the_one_that_would_cost_the_whole_balance() -> None:
    """The view marks it (``loses_match``) so that a client asks before sending it (README
    "Play")."""
    match = in_auction()
    legal = legal_view(match, FIRST)
    assert legal is not None
    marked = [bid.amount for bid in legal.bids if bid.loses_match]
    assert marked == [115]  # the first seat holds 115 and is not the jockey
    assert next(b for b in legal.bids if b.amount == 115).cost == 115
    match.apply(Bid(FIRST, 15))
    jockey = legal_view(match, SECOND)
    assert jockey is not None
    assert [(b.amount, b.cost) for b in jockey.bids if b.loses_match] == [(200, 185)]  # R6.4
    assert legal_view(match, FIRST) is None  # not its decision


def test_r6_5_r6_6_jockey_bidding_its_whole_net_balance_is_force_accepted_and_loses() -> None:
    """200 costs the jockey 185, all it holds; the first seat (115) cannot raise to 205 and must
    accept at once (D2), so the jockey pays everything and loses before opening."""
    match = in_auction()
    match.apply(Bid(FIRST, 15))
    events = match.apply(Bid(SECOND, 200))
    assert events == [
        BidMade(SECOND, 200, 185),
        BidAccepted(FIRST, SECOND, 200, 185, forced=True),
        Transferred(SECOND, FIRST, 185, TransferReason.AUCTION, BySeat(300, 0)),
        RoundEnded(2, RoundEnd.MATCH_OVER, BySeat(FIRST_HAND, SECOND_HAND), BySeat(21, 31), None),
        MatchEnded(FIRST, MatchEnd.ZERO_BALANCE),
    ]
    assert match.result == MatchEnded(FIRST, MatchEnd.ZERO_BALANCE)


def test_r6_6_d2_a_player_who_cannot_afford_the_minimum_raise_must_accept() -> None:
    match = in_auction()
    match.apply(Bid(FIRST, 15))
    decision = match.decision
    events = match.apply(Bid(SECOND, 115))
    # the first seat holds 115: the minimum raise, 120, is out of reach
    assert events == [
        BidMade(SECOND, 115, 100),
        BidAccepted(FIRST, SECOND, 115, 100, forced=True),
        Transferred(SECOND, FIRST, 100, TransferReason.AUCTION, BySeat(215, 85)),
        OpenerChosen(SECOND, None),
    ]
    assert match.phase is Phase.OPENING
    assert match.to_act is SECOND
    assert match.decision == decision + 2  # the forced accept, then the opening
    assert match.legal_actions() == openings(SECOND, SECOND_HAND)


def test_r6_6_a_player_who_can_afford_the_minimum_raise_is_not_forced() -> None:
    match = in_auction()
    match.apply(Bid(FIRST, 15))
    events = match.apply(Bid(SECOND, 110))
    assert events == [BidMade(SECOND, 110, 95)]
    assert match.to_act is FIRST
    assert match.legal_actions() == [Accept(FIRST), Bid(FIRST, 115)]


def test_r6_6_d2_a_non_jockey_below_15_points_is_forced_to_decline() -> None:
    """Real rounds: the blocked round leaves the first seat 25; in round 2 the second seat opens
    [6|6], scores 20 with [4|4] (first seat: 5) and dominoes with [1|5] for 13. Round 3's deal
    opens the auction and the first seat, holding 5, declines at once; the jockey opens."""
    match = after_block_round()
    match.apply(Deal(domino_deck("1-5")))
    play(match, domino_moves("1-5"))
    assert match.balances == [5, 295]
    assert match.jockey is SECOND

    events = match.apply(Deal(NEXT_DECK))

    assert events == [
        RoundDealt(3, BySeat(FIRST_HAND, SECOND_HAND), NEXT_DECK[14:], 14),
        AuctionOpened(SECOND),
        Declined(FIRST, forced=True),
        OpenerChosen(SECOND, None),
    ]
    assert match.auction is None
    assert match.phase is Phase.OPENING
    assert match.to_act is SECOND
    assert match.legal_actions() == openings(SECOND, SECOND_HAND)
    assert match.balances == [5, 295]


def test_r6_7_winning_the_opening_creates_no_points() -> None:
    """The payment is a transfer: the total stays 300 and the opener's tile is then scored like
    any opening (no award for [1|2]: 3)."""
    match = in_auction()
    match.apply(Bid(FIRST, 15))
    match.apply(Bid(SECOND, 40))
    events = match.apply(Accept(FIRST))
    assert [e for e in events if isinstance(e, Transferred)] == [
        Transferred(SECOND, FIRST, 25, TransferReason.AUCTION, BySeat(140, 160))
    ]
    assert sum(match.balances) == 300
    assert match.apply(Play(SECOND, Tile.of(1, 2))) == [Played(SECOND, Tile.of(1, 2), None, 3, 0)]
    assert match.balances == [140, 160]
