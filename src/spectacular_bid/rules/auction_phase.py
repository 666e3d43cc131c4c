"""The auction as a phase of the match: whose decision it is, bids, accepts, declines (§6).

:class:`~spectacular_bid.rules.auction.Auction` is the value (legal amounts, the jockey's
discount, the payment); this module moves a match's state
(:class:`~spectacular_bid.rules.base_match.BaseMatch`) through it. Each ``apply_*`` function
checks its command completely before it changes anything (R8.3); a seat with only one possible
decision has it made for it at once (R6.6, D2).
"""

from __future__ import annotations

from spectacular_bid.rules.actions import (
    Bid,
    BidAccepted,
    BidMade,
    Declined,
    Event,
    TransferReason,
)
from spectacular_bid.rules.base_match import BaseMatch
from spectacular_bid.rules.errors import IllegalActionError
from spectacular_bid.rules.phase import Phase, require_turn
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.settlement import transfer
from spectacular_bid.rules.turns import start_opening


def auction_turn(match: BaseMatch, seat: Seat, ev: list[Event]) -> None:
    """``seat`` decides next in the auction, unless it cannot afford any bid (R6.6)."""
    match.phase = Phase.AUCTION
    match.to_act = seat
    match.decision += 1
    auction = match.auction
    assert auction is not None
    if auction.legal_amounts(seat, match.balances[seat]):
        return
    # R6.6, D2: a seat that cannot afford the minimum bid or raise has one choice.
    if auction.can_decline(seat):
        decline_now(match, seat, ev, forced=True)
    else:
        accept_now(match, seat, ev, forced=True)


def apply_bid(match: BaseMatch, action: Bid) -> list[Event]:
    """A bid or raise: a multiple of 5, at least the minimum (R6.1, R6.2), affordable (R6.5)."""
    seat = require_turn(match, action.seat, Phase.AUCTION)
    auction = match.auction
    assert auction is not None
    amount = action.amount
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise IllegalActionError(f"a bid is a whole number of points, not {amount!r}")
    legal = auction.legal_amounts(seat, match.balances[seat])
    if amount not in legal:
        if amount % 5:
            reason = "every bid is a multiple of 5 (R6.2)"
        elif amount < auction.min_amount():
            reason = f"the lowest bid now is {auction.min_amount()} (R6.1, R6.2)"
        else:
            reason = (
                f"its cost {auction.cost(seat, amount)} exceeds your balance "
                f"{match.balances[seat]} (R6.5)"
            )
        raise IllegalActionError(f"illegal bid {amount!r}: {reason}")
    auction.bids.append((seat, amount))
    ev: list[Event] = [BidMade(seat, amount, auction.cost(seat, amount))]
    auction_turn(match, seat.other, ev)
    return ev


def apply_accept(match: BaseMatch, seat: object) -> list[Event]:
    """Accept the standing bid: its maker pays it and opens (R6.2, R6.3)."""
    to_act = require_turn(match, seat, Phase.AUCTION)
    assert match.auction is not None
    if not match.auction.can_accept(to_act):
        raise IllegalActionError("there is no bid to accept: bid at least 15 or decline")
    ev: list[Event] = []
    accept_now(match, to_act, ev, forced=False)
    return ev


def accept_now(match: BaseMatch, seat: Seat, ev: list[Event], *, forced: bool) -> None:
    """``seat`` accepts: the bidder pays (capped, R1.4) and, if still solvent, opens (R6.3)."""
    auction = match.auction
    assert auction is not None
    bidder = seat.other
    amount = auction.bids[-1][1]
    payment = auction.cost(bidder, amount)
    ev.append(BidAccepted(seat, bidder, amount, payment, forced))
    match.auction = None
    if transfer(match, bidder, seat, payment, TransferReason.AUCTION, ev):
        return
    start_opening(match, bidder, None, ev)


def apply_decline(match: BaseMatch, seat: object) -> list[Event]:
    """Decline: only the non-jockey's first decision; the jockey opens for free (R6.1, R6.3)."""
    to_act = require_turn(match, seat, Phase.AUCTION)
    assert match.auction is not None
    if not match.auction.can_decline(to_act):
        raise IllegalActionError(
            "only the non-jockey's first decision can be a decline (R6.3): accept or raise"
        )
    ev: list[Event] = []
    decline_now(match, to_act, ev, forced=False)
    return ev


def decline_now(match: BaseMatch, seat: Seat, ev: list[Event], *, forced: bool) -> None:
    """``seat`` declines: the other seat, the jockey, opens with any tile (R6.3)."""
    ev.append(Declined(seat, forced))
    match.auction = None
    start_opening(match, seat.other, None, ev)
