"""Points changing hands and the ends of rounds and of the match (§1, R4.5–R4.7, §5, R7.7).

Every transfer, whether a placement's award, an auction payment or a block's settlement, goes
through :func:`transfer`, so the cap at the payer's balance (R1.4) and the loss at zero (R1.5)
hold in one place. The functions change a match's state
(:class:`~spectacular_bid.rules.base_match.BaseMatch`) in place and append the events they
cause. The ``apply_*`` ones are the commands that end a match (resign, flag, abort) and check
it completely first (R8.3); the others are steps inside a command that has already been checked.
The balances' constants live with the balances, in :mod:`.base_match` (R1.1, R1.2).
"""

from __future__ import annotations

from typing import Final

from spectacular_bid.rules.actions import (
    Abort,
    AbortReason,
    Event,
    Flag,
    MatchEnd,
    MatchEnded,
    Resign,
    RoundEnd,
    RoundEnded,
    TransferReason,
    Transferred,
)
from spectacular_bid.rules.base_match import BaseMatch
from spectacular_bid.rules.errors import IllegalActionError, NotYourTurnError, WrongPhaseError
from spectacular_bid.rules.phase import ACTIVE, Phase
from spectacular_bid.rules.round import round_to_five
from spectacular_bid.rules.seats import SEATS, BySeat, Seat

_ABORT_ENDS: Final = {
    AbortReason.JOIN_TIMEOUT: MatchEnd.JOIN_TIMEOUT,
    AbortReason.TIMING_FAILURE: MatchEnd.TIMING_FAILURE,
    AbortReason.NO_FIRST_DECISION: MatchEnd.NO_FIRST_DECISION,
    AbortReason.ABANDONED: MatchEnd.ABANDONED,
}


def transfer(
    match: BaseMatch, payer: Seat, payee: Seat, amount: int, reason: TransferReason, ev: list[Event]
) -> bool:
    """Move points, capped at the payer's balance (R1.4); True when that ends the match (R1.5)."""
    balances = match.balances
    if amount > balances[payer]:
        amount = balances[payer]
    if amount <= 0:
        return False
    balances[payer] -= amount
    balances[payee] += amount
    ev.append(Transferred(payer, payee, amount, reason, BySeat(balances[0], balances[1])))
    if balances[payer] == 0:
        end_match(match, payee, MatchEnd.ZERO_BALANCE, ev)
        return True
    return False


def end_round(match: BaseMatch, reason: RoundEnd, domino_by: Seat | None, ev: list[Event]) -> None:
    """Reveal the hands (D4), name the next jockey (R4.5, R4.7) and settle a block (R4.6)."""
    rnd = match.round
    assert rnd is not None
    match.phase = Phase.AWAITING_DEAL
    match.to_act = None
    match.auction = None
    match.opening_tile = None
    match.jockey = domino_by
    match.round_end = reason
    totals = BySeat(rnd.pip_total(Seat.FIRST), rnd.pip_total(Seat.SECOND))
    ev.append(
        RoundEnded(
            rnd.number,
            reason,
            BySeat(tuple(rnd.hand(Seat.FIRST)), tuple(rnd.hand(Seat.SECOND))),
            totals,
            domino_by,
        )
    )
    if reason is RoundEnd.BLOCK and totals.first != totals.second:
        # R4.6: the lighter hand receives the other's whole total rounded to five.
        payee = Seat.FIRST if totals.first < totals.second else Seat.SECOND
        amount = round_to_five(totals[payee.other])
        transfer(match, payee.other, payee, amount, TransferReason.BLOCK, ev)


def end_match(
    match: BaseMatch,
    winner: Seat | None,
    reason: MatchEnd,
    ev: list[Event],
    undecided: Seat | None = None,
) -> None:
    """End the match; a round still running ends with it and its hands are revealed (D4)."""
    if match.phase in ACTIVE:
        rnd = match.round
        assert rnd is not None
        ev.append(
            RoundEnded(
                rnd.number,
                RoundEnd.MATCH_OVER,
                BySeat(tuple(rnd.hand(Seat.FIRST)), tuple(rnd.hand(Seat.SECOND))),
                BySeat(rnd.pip_total(Seat.FIRST), rnd.pip_total(Seat.SECOND)),
                None,
            )
        )
        match.round_end = RoundEnd.MATCH_OVER
    match.phase = Phase.OVER
    match.to_act = None
    match.auction = None
    match.opening_tile = None
    match.result = MatchEnded(winner, reason, undecided)
    ev.append(match.result)


def apply_resign(match: BaseMatch, action: Resign) -> list[Event]:
    """R5.2: either seat may resign at any time while the match runs."""
    if match.phase is Phase.OVER:
        raise WrongPhaseError("the match is over")
    seat = action.seat
    if seat not in SEATS or isinstance(seat, bool):
        raise IllegalActionError(f"not a seat: {seat!r}")
    ev: list[Event] = []
    end_match(match, SEATS[1 - seat], MatchEnd.RESIGNATION, ev)
    return ev


def apply_flag(match: BaseMatch, action: Flag) -> list[Event]:
    """R7.7, D6: only the seat whose clock runs can lose on time."""
    if match.phase not in ACTIVE:
        raise WrongPhaseError(f"no clock runs in the {match.phase.value} phase (R7.5)")
    if action.seat != match.to_act:
        raise NotYourTurnError(f"only the seat to act can lose on time, not {action.seat!r}")
    ev: list[Event] = []
    end_match(match, SEATS[1 - action.seat], MatchEnd.TIME, ev)
    return ev


def apply_abort(match: BaseMatch, action: Abort) -> list[Event]:
    """End with no result: the players did not both join (D3), the service's time
    measurement failed (R7.9, D5), the seat to act ran out of time before its first decision
    (D7: like a flag, only the seat to act, and it is named), or nobody was left at a shared
    device (D8)."""
    if match.phase is Phase.OVER:
        raise WrongPhaseError("the match is over")
    reason = _ABORT_ENDS.get(action.reason)
    if reason is None:
        raise IllegalActionError(f"not an abort reason: {action.reason!r}")
    seat = action.seat
    if reason is MatchEnd.NO_FIRST_DECISION:
        if match.phase not in ACTIVE:
            raise WrongPhaseError(f"no decision runs in the {match.phase.value} phase (R7.5)")
        if seat is None or seat != match.to_act:
            raise NotYourTurnError(
                f"only the seat to act can miss its first decision, not {seat!r}"
            )
    elif seat is not None:
        raise IllegalActionError(f"a {action.reason.value} abort names no seat, not {seat!r}")
    ev: list[Event] = []
    end_match(match, None, reason, ev, seat)
    return ev
