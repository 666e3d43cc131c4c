"""Commands a seat (or the service) gives the engine, and the events ``Match.apply`` returns.

Commands and events are frozen values. A seat's commands: :class:`Decline`, :class:`Bid`,
:class:`Accept`, :class:`Play`, :class:`Draw`, :class:`Resign`. The service's commands:
:class:`Deal` (it owns the shuffle, R2.1), :class:`Flag` (it owns the clock, R7.7) and
:class:`Abort` (D3, D5, D7, D8). Forced passes, declines and accepts are never commands: the
engine applies them itself (D2) and reports them as events with ``forced=True``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from spectacular_bid.rules.board import Place
from spectacular_bid.rules.notation import placement_text
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import Tile

# -- commands -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Deal:
    """Start the next round from ``deck``, a shuffled order of all 28 tiles (R2.1): positions
    0–6 are the first seat's hand, 7–13 the second's, 14–27 the boneyard in draw order."""

    deck: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class Decline:
    """The non-jockey's first auction decision: the jockey opens for free (R6.1, R6.3)."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class Bid:
    """A bid or a raise, in points, a multiple of 5 (R6.1, R6.2)."""

    seat: Seat
    amount: int


@dataclass(frozen=True, slots=True)
class Accept:
    """Accept the opponent's standing bid: they pay it and open (R6.2, R6.3)."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class Play:
    """Lay ``tile`` at the open place ``at``; ``at`` is None for the opening tile (R2.5, R3.1)."""

    seat: Seat
    tile: Tile
    at: Place | None = None

    def __str__(self) -> str:
        return placement_text(self.tile, self.at)


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one tile from the boneyard; legal only with no playable tile (R4.1, D1)."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class Resign:
    """Give up the match at any time; the opponent wins (R5.2)."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class Flag:
    """The service's verdict that ``seat``'s deadline passed: a loss on time (R7.7, D6)."""

    seat: Seat


class AbortReason(Enum):
    JOIN_TIMEOUT = "join_timeout"
    """D3: the players did not both join in time."""
    TIMING_FAILURE = "timing_failure"
    """R7.9, D5: a proven failure of the service's time measurement."""
    NO_FIRST_DECISION = "no_first_decision"
    """D7: the seat to act ran out of time before it had made any decision of its own."""
    ABANDONED = "abandoned"
    """D8: nobody had the shared-device match open for the abandon timeout."""


@dataclass(frozen=True, slots=True)
class Abort:
    """End the match with no result (D3, D5, D7, D8)."""

    reason: AbortReason
    seat: Seat | None = None
    """D7: the seat to act, which made no first decision; None for every other reason."""


SeatAction = Decline | Bid | Accept | Play | Draw | Resign
Action = SeatAction | Deal | Flag | Abort

# -- events ---------------------------------------------------------------------------------


class TransferReason(Enum):
    AWARD = "award"
    """R3.5: a placement whose ends sum is a positive multiple of 5."""
    BLOCK = "block"
    """R4.6: the block settlement."""
    AUCTION = "auction"
    """R6.3: the accepted bid's payment."""


class RoundEnd(Enum):
    DOMINO = "domino"
    """R4.5: a player laid their last tile."""
    BLOCK = "block"
    """R4.6: both players passed in succession."""
    MATCH_OVER = "match_over"
    """The match ended mid-round (R1.5, R5.2, R7.7, D5)."""


class MatchEnd(Enum):
    ZERO_BALANCE = "zero_balance"
    """R1.5, R6.5: the loser's balance reached 0."""
    TIME = "time"
    """R7.7: the loser's deadline passed."""
    RESIGNATION = "resignation"
    """R5.2."""
    JOIN_TIMEOUT = "join_timeout"
    """D3: aborted, no result."""
    TIMING_FAILURE = "timing_failure"
    """R7.9, D5: aborted, no rated result."""
    NO_FIRST_DECISION = "no_first_decision"
    """D7: aborted, no result: a player's first decision never came."""
    ABANDONED = "abandoned"
    """D8: aborted, no result: a shared-device match nobody had open."""


@dataclass(frozen=True, slots=True)
class RoundDealt:
    """A round was dealt. ``hands`` and ``boneyard`` are hidden information: views replace what a
    viewer may not see with None (R2.2, D4)."""

    number: int
    hands: BySeat[tuple[Tile, ...] | None]
    boneyard: tuple[Tile, ...] | None
    boneyard_count: int


@dataclass(frozen=True, slots=True)
class AuctionOpened:
    """The round follows a domino: the auction decides the opening (R2.4, R6.1)."""

    jockey: Seat


@dataclass(frozen=True, slots=True)
class OpenerChosen:
    """Who opens. ``tile`` is the tile they must open with under R2.3, or None for any tile."""

    seat: Seat
    tile: Tile | None


@dataclass(frozen=True, slots=True)
class Declined:
    seat: Seat
    forced: bool
    """D2, R6.6: the non-jockey could not afford the minimum bid."""


@dataclass(frozen=True, slots=True)
class BidMade:
    seat: Seat
    amount: int
    cost: int
    """What the bidder pays if this bid is accepted (R6.4: the jockey's discount applied)."""


@dataclass(frozen=True, slots=True)
class BidAccepted:
    seat: Seat
    """Who accepted."""
    bidder: Seat
    amount: int
    payment: int
    forced: bool
    """D2, R6.6: the acceptor could not afford the minimum raise."""


@dataclass(frozen=True, slots=True)
class Transferred:
    """Points moved from ``payer`` to ``payee`` (R1.2), already capped (R1.4)."""

    payer: Seat
    payee: Seat
    amount: int
    reason: TransferReason
    balances: BySeat[int]


@dataclass(frozen=True, slots=True)
class Played:
    seat: Seat
    tile: Tile
    at: Place | None
    ends_sum: int
    award: int
    """The award before the payer cap (R3.5); the transfer follows as :class:`Transferred`."""


@dataclass(frozen=True, slots=True)
class Drew:
    """A draw (D1). ``tile`` is None in the views of everyone but the drawer (R2.2)."""

    seat: Seat
    tile: Tile | None
    boneyard_count: int


@dataclass(frozen=True, slots=True)
class Passed:
    """A forced pass, applied by the engine (R4.4, D2)."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """The round is over; both hands are revealed to everyone (D4)."""

    number: int
    reason: RoundEnd
    hands: BySeat[tuple[Tile, ...]]
    pip_totals: BySeat[int]
    jockey: Seat | None


@dataclass(frozen=True, slots=True)
class MatchEnded:
    winner: Seat | None
    """None when the match was aborted with no result (D3, D5, D7)."""
    reason: MatchEnd
    undecided: Seat | None = None
    """D7: the seat whose first decision never came (only for ``NO_FIRST_DECISION``)."""

    @property
    def is_rated(self) -> bool:
        return self.winner is not None


Event = (
    RoundDealt
    | AuctionOpened
    | OpenerChosen
    | Declined
    | BidMade
    | BidAccepted
    | Transferred
    | Played
    | Drew
    | Passed
    | RoundEnded
    | MatchEnded
)
