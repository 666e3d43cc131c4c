"""The auction for the next opening (§6).

After a domino the non-jockey decides first: decline (the jockey opens for free) or bid at least
15. The other accepts or raises by at least 5, and so on. The accepted bidder pays the bid to the
opponent and opens with any tile; only the jockey's own accepted bid is discounted by 15 (R6.4).
"""

from __future__ import annotations

from typing import Final

from spectacular_bid.rules.seats import Seat

MIN_BID: Final = 15
"""R6.1."""
BID_STEP: Final = 5
"""R6.2: every raise is at least 5 and every bid a multiple of 5."""
JOCKEY_DISCOUNT: Final = 15
"""R6.4."""


def bid_cost(amount: int, *, by_jockey: bool) -> int:
    """What a bid costs its bidder if accepted: the jockey's discount never goes below 0 (R6.4)."""
    if by_jockey:
        return amount - JOCKEY_DISCOUNT if amount > JOCKEY_DISCOUNT else 0
    return amount


def max_affordable_bid(balance: int, *, by_jockey: bool) -> int:
    """The largest multiple of 5 whose cost does not exceed ``balance`` (R6.5)."""
    top = balance + JOCKEY_DISCOUNT if by_jockey else balance
    return top - top % BID_STEP


class Auction:
    """The bids of one auction. The match keeps whose decision it is and the balances."""

    __slots__ = ("bids", "jockey")

    def __init__(self, jockey: Seat) -> None:
        self.jockey = jockey
        self.bids: list[tuple[Seat, int]] = []

    def copy(self) -> Auction:
        other = Auction(self.jockey)
        other.bids = self.bids.copy()
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Auction):
            return NotImplemented
        return self.jockey == other.jockey and self.bids == other.bids

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Auction(jockey={self.jockey!r}, bids={self.bids!r})"

    def min_amount(self) -> int:
        """The lowest legal bid now: 15 to open the bidding, else the standing bid plus 5."""
        return self.bids[-1][1] + BID_STEP if self.bids else MIN_BID

    def cost(self, seat: Seat, amount: int) -> int:
        return bid_cost(amount, by_jockey=seat == self.jockey)

    def legal_amounts(self, seat: Seat, balance: int) -> range:
        """Every bid ``seat`` may make with ``balance`` (R6.2, R6.5); empty when it cannot afford
        the minimum (R6.6)."""
        top = max_affordable_bid(balance, by_jockey=seat == self.jockey)
        return range(self.min_amount(), top + 1, BID_STEP)

    def can_decline(self, seat: Seat) -> bool:
        """Only the non-jockey's first decision can be a decline (R6.3)."""
        return not self.bids and seat != self.jockey

    def can_accept(self, seat: Seat) -> bool:
        return bool(self.bids) and self.bids[-1][0] != seat
