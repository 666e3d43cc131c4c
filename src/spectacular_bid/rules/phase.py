"""The phases of a match and who may act in them (§2, §3, §6, R7.5, R8.3).

Its own module because every part of a match's life (the auction, the turns, the settlement)
moves the match between phases and checks that a command comes from the seat to act, in the
phase it belongs to, before it changes anything (R8.3).
"""

from __future__ import annotations

from enum import Enum
from typing import Final, Protocol

from spectacular_bid.rules.errors import NotYourTurnError, WrongPhaseError
from spectacular_bid.rules.seats import SEATS, Seat


class Phase(Enum):
    AWAITING_DEAL = "awaiting_deal"
    """Before the first round and between rounds (the settlement, R7.5)."""
    AUCTION = "auction"
    OPENING = "opening"
    PLAYING = "playing"
    OVER = "over"


ACTIVE: Final = (Phase.AUCTION, Phase.OPENING, Phase.PLAYING)
"""The phases in which a seat's clock runs (R7.5)."""


def seat_text(seat: object) -> str:
    """A seat as an error message names it; anything else as its repr (R8.3 quotes bad input)."""
    return str(SEATS[seat]) if isinstance(seat, int) and seat in (0, 1) else repr(seat)


class Turn(Protocol):
    """What :func:`require_turn` reads of a match: its phase and the seat to act. A protocol, so
    this module stays below the match state that names its :class:`Phase`."""

    @property
    def phase(self) -> Phase: ...

    @property
    def to_act(self) -> Seat | None: ...


def require_turn(match: Turn, seat: object, phase: Phase) -> Seat:
    """The seat to act, when ``seat`` is it and the match is in ``phase``; else a refusal."""
    if match.phase is not phase:
        raise WrongPhaseError(f"the match is in its {match.phase.value} phase, not {phase.value}")
    to_act = match.to_act
    if seat != to_act or not isinstance(seat, int) or isinstance(seat, bool):
        who = str(to_act) if to_act is not None else "nobody"
        raise NotYourTurnError(f"it is not {seat_text(seat)}'s turn: {who} is to act")
    assert to_act is not None
    return to_act
