"""What a client asks of a match, before the service knows which seat it acts for.

The web layer turns wire messages into :class:`Intent` values; the match actor checks who sent
it, against which version, and at what server time, then turns it into an engine command.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from spectacular_bid.rules.board import Place
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.tiles import Tile


class IntentKind(Enum):
    PLAY = "play"
    DRAW = "draw"
    BID = "bid"
    ACCEPT = "accept"
    DECLINE = "decline"
    RESIGN = "resign"
    START = "start"
    """Start (first round) or Continue (after a settlement), D3."""
    REVEAL = "reveal"
    """Shared device: the next player shows their tiles, ending the hand-over (R7.5)."""


@dataclass(frozen=True, slots=True)
class Intent:
    kind: IntentKind
    version: int
    """The match version the client saw when it decided; any other is refused as stale."""
    tile: Tile | None = None
    at: Place | None = None
    amount: int | None = None
    seat: Seat | None = None
    """Which seat acts, for a device that holds both; others may leave it out."""


class ErrorCode(Enum):
    NOT_FOUND = "not_found"
    NOT_A_PLAYER = "not_a_player"
    NOT_YOUR_SEAT = "not_your_seat"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    ILLEGAL = "illegal"
    STALE_VERSION = "stale_version"
    TIME_EXPIRED = "time_expired"
    MATCH_OVER = "match_over"
    HANDOVER_PENDING = "handover_pending"
    STORAGE_FAILED = "storage_failed"
    SEAT_TAKEN = "seat_taken"
    BAD_MESSAGE = "bad_message"
    UNKNOWN_TYPE = "unknown_type"
    TOO_LARGE = "too_large"
    RATE_LIMITED = "rate_limited"
    UNAUTHORIZED = "unauthorized"


class Rejection(Exception):  # noqa: N818 - a value returned to the sender, also raisable
    """Why a request changed nothing (R8.3): a machine-readable code and a human message."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code.value}: {self.message}"
