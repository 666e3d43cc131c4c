"""Auction decisions from an estimate of what opening the round is worth (§6).

With ``worth`` the seat's expected value of the round when it opens minus when the other seat
opens (no payment counted), each option's value follows from the payments of R6.3 and R6.4:

- declining (the non-jockey's first decision) leaves the other seat to open for free;
- accepting the standing bid lets the other seat open and brings in that bid's cost to it;
- bidding the least legal amount, if accepted, opens for this seat at that bid's cost to it.

So the seat bids (or raises) exactly when ``worth`` exceeds its own cost plus what accepting would
have brought in. It never makes a bid whose cost is its whole balance (R6.5: that loses at once),
and accepts at once a bid that costs the other seat its whole balance (R1.5). Level 1 chooses at
random among the same decline or accept and the bids whose cost stays within that worth.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from spectacular_bid.bots.knowledge import Knowledge
from spectacular_bid.rules.actions import Accept, Bid, Decline, SeatAction
from spectacular_bid.rules.auction import bid_cost
from spectacular_bid.rules.board import Board
from spectacular_bid.rules.tiles import tiles_in

OPENER_EDGE = 10
"""Level 2's guess at what laying the first tile is worth before its own award (R2.5, R3.6)."""


def estimated_worth(k: Knowledge) -> float:
    """Level 2's estimate without search: the edge of opening plus the best opening award in
    hand (R2.5: the opening tile scores like any placement)."""
    empty = Board()
    return OPENER_EDGE + max((empty.award_after(tile, -1) for tile in tiles_in(k.hand)), default=0)


def auction_action(k: Knowledge, legal: Sequence[SeatAction], worth: float) -> SeatAction:
    """The decision among ``legal`` (a decline or an accept, and bids) given ``worth``."""
    fallback = _fallback(legal)
    if _must_accept(k, fallback):
        return fallback
    affordable = bids_within(k, legal, worth)
    if affordable and worth > _cost(k, affordable[0]) + _incoming(k, fallback):
        return affordable[0]
    return fallback


def random_auction_action(
    k: Knowledge, legal: Sequence[SeatAction], worth: float, rng: random.Random
) -> SeatAction:
    """Level 1's auction: the decline or accept, or any bid :func:`bids_within` ``worth``, each
    equally likely. A random bid up to the whole balance (110 of 145) shows a learner nothing
    of what an opening is worth; one within the estimate still varies, as level 1 does."""
    fallback = _fallback(legal)
    if _must_accept(k, fallback):
        return fallback
    options: list[SeatAction] = [fallback, *bids_within(k, legal, worth)]
    return options[int(rng.random() * len(options))]


def bids_within(k: Knowledge, legal: Sequence[SeatAction], worth: float) -> list[Bid]:
    """The bids among ``legal`` whose cost if accepted (R6.3, R6.4), plus what accepting the
    standing bid would have brought in, is at most ``worth``, lowest first; never one whose cost
    is the bidder's whole balance (R6.5: it would lose the match at once)."""
    incoming = _incoming(k, _fallback(legal))
    balance = k.balances[k.seat]
    return [
        a
        for a in legal
        if isinstance(a, Bid) and (cost := _cost(k, a)) < balance and cost + incoming <= worth
    ]


def _fallback(legal: Sequence[SeatAction]) -> Accept | Decline:
    return next(a for a in legal if isinstance(a, Accept | Decline))


def _cost(k: Knowledge, bid: Bid) -> int:
    return bid_cost(bid.amount, by_jockey=k.seat == k.jockey)


def _incoming(k: Knowledge, fallback: Accept | Decline) -> int:
    """What accepting the standing bid brings in (R6.3, R6.4); nothing for a decline."""
    if not isinstance(fallback, Accept):
        return 0
    bidder, amount = k.auction_bids[-1]
    return bid_cost(amount, by_jockey=bidder == k.jockey)


def _must_accept(k: Knowledge, fallback: Accept | Decline) -> bool:
    """A standing bid that costs its bidder's whole balance: accepted, it wins the match (R1.5)."""
    if not isinstance(fallback, Accept):
        return False
    bidder = k.auction_bids[-1][0]
    return _incoming(k, fallback) >= k.balances[bidder]


__all__ = [
    "OPENER_EDGE",
    "auction_action",
    "bids_within",
    "estimated_worth",
    "random_auction_action",
]
