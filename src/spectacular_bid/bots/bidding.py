"""Auction decisions from an estimate of what opening the round is worth (§6).

With ``worth`` the seat's expected value of the round when it opens minus when the other seat
opens (no payment counted), each option's value follows from the payments of R6.3 and R6.4:

- declining (the non-jockey's first decision) leaves the other seat to open for free;
- accepting the standing bid lets the other seat open and brings in that bid's cost to it;
- bidding the least legal amount, if accepted, opens for this seat at that bid's cost to it.

So the seat bids (or raises) exactly when ``worth`` exceeds its own cost plus what accepting would
have brought in. It never makes a bid whose cost is its whole balance (R6.5: that loses at once),
and accepts at once a bid that costs the other seat its whole balance (R1.5).
"""

from __future__ import annotations

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
    best = 0
    for tile in tiles_in(k.hand):
        total = empty.sum_after(tile, -1)
        if total > 0 and total % 5 == 0:
            best = max(best, total)
    return OPENER_EDGE + best


def auction_action(k: Knowledge, legal: Sequence[SeatAction], worth: float) -> SeatAction:
    """The decision among ``legal`` (a decline or an accept, and bids) given ``worth``."""
    seat = k.seat
    jockey = k.jockey
    bids = [a for a in legal if isinstance(a, Bid)]
    fallback = next(a for a in legal if isinstance(a, Accept | Decline))
    incoming = 0
    if isinstance(fallback, Accept):
        bidder, amount = k.auction_bids[-1]
        incoming = bid_cost(amount, by_jockey=bidder == jockey)
        if incoming >= k.balances[bidder]:
            return fallback
    if bids:
        cost = bid_cost(bids[0].amount, by_jockey=seat == jockey)
        if cost < k.balances[seat] and worth > cost + incoming:
            return bids[0]
    return fallback


__all__ = ["OPENER_EDGE", "auction_action", "estimated_worth"]
