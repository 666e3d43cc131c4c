"""The state of a match: balances, phase, the seat to act, the round, the auction (§1–§6).

Every phase of a match changes this state: the auction (:mod:`.auction_phase`), the turns
(:mod:`.turns`) and the settlement (:mod:`.settlement`) are functions of it, and
:class:`~spectacular_bid.rules.match.Match` adds what may be done next and the one entry point
that calls them. The state sits below all of them, so each names its type without importing the
match that imports it: the rules import one way. The balances' constants live here with the
balances (R1.1, R1.2).
"""

from __future__ import annotations

from typing import Final, Self

from spectacular_bid.rules.actions import MatchEnded, RoundEnd
from spectacular_bid.rules.auction import Auction
from spectacular_bid.rules.phase import Phase
from spectacular_bid.rules.round import Round
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import Tile

STARTING_BALANCE: Final = 150
"""R1.1."""
TOTAL_POINTS: Final = 2 * STARTING_BALANCE
"""R1.2: the two balances always add up to this."""


class BaseMatch:
    """A whole match's state between two seats. Mutable, with a cheap :meth:`copy`."""

    __slots__ = (
        "auction",
        "balances",
        "decision",
        "jockey",
        "opening_tile",
        "phase",
        "result",
        "round",
        "round_end",
        "to_act",
    )

    def __init__(self) -> None:
        self.balances: list[int] = [STARTING_BALANCE, STARTING_BALANCE]
        self.phase = Phase.AWAITING_DEAL
        self.to_act: Seat | None = None
        """The seat whose decision it is; None while nobody's clock may run (R7.5)."""
        self.decision = 0
        """Counts genuinely new decisions (R7.2): a turn, an opening, an auction decision. Draws
        inside a turn leave it as it is (R7.3), so a clock restarts its delay exactly when this
        changes."""
        self.round: Round | None = None
        """The current round, or the last one while awaiting the next deal (its hands are then
        public, D4)."""
        self.jockey: Seat | None = None
        """Who laid the last tile of the previous round (R4.5); None after a block (R4.7)."""
        self.auction: Auction | None = None
        self.opening_tile: Tile | None = None
        """The tile the opener must lay under R2.3, or None for any tile (R6.3)."""
        self.result: MatchEnded | None = None
        self.round_end: RoundEnd | None = None
        """Why the last round ended, while awaiting the next deal or after the match."""

    # -- value semantics ------------------------------------------------------------------

    def copy(self) -> Self:
        cls = type(self)
        other = cls.__new__(cls)
        other.balances = self.balances.copy()
        other.phase = self.phase
        other.to_act = self.to_act
        other.decision = self.decision
        other.round = self.round.copy() if self.round is not None else None
        other.jockey = self.jockey
        other.auction = self.auction.copy() if self.auction is not None else None
        other.opening_tile = self.opening_tile
        other.result = self.result
        other.round_end = self.round_end
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BaseMatch):
            return NotImplemented
        return (
            self.balances == other.balances
            and self.phase == other.phase
            and self.to_act == other.to_act
            and self.decision == other.decision
            and self.round == other.round
            and self.jockey == other.jockey
            and self.auction == other.auction
            and self.opening_tile == other.opening_tile
            and self.result == other.result
            and self.round_end == other.round_end
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Match {self.phase.value} round={self.round_number} to_act={self.to_act} "
            f"balances={self.balances}>"
        )

    # -- reading --------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def round_number(self) -> int:
        return self.round.number if self.round is not None else 0

    @property
    def balance(self) -> BySeat[int]:
        return BySeat(self.balances[0], self.balances[1])

    @property
    def is_round_over(self) -> bool:
        """True between a round's end and the next deal: the settlement (R7.5, D4)."""
        return self.phase is Phase.AWAITING_DEAL and self.round is not None
