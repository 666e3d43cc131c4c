"""The ``match`` object of ``state`` and ``update`` messages and of ``GET /api/matches/{id}``.

``web/frames.py`` builds it as JSON text from one audience's view, so these
models are never on the hot path: they document the shape, give the JSON Schema, and let tests
validate real frames (legal actions, both clocks, balances, counts).
"""

from __future__ import annotations

from pydantic import Field

from spectacular_bid.rules.actions import MatchEnd, RoundEnd
from spectacular_bid.rules.match import Phase
from spectacular_bid.service.audience import Audience
from spectacular_bid.service.ports import MatchMode, MatchStatus
from spectacular_bid.web.events import DeckCommitment, DeckReveal
from spectacular_bid.web.notation import (
    BoolPair,
    IntPair,
    PlaceText,
    SeatName,
    TilesPair,
    TileText,
    WireModel,
)


class SeatRating(WireModel):
    value: float
    """The player's Glicko-2 rating on the Glicko scale (a newcomer's is 1500)."""
    provisional: bool
    """True while its deviation is above 110: shown as ``1500?``."""


class PlayerSlot(WireModel):
    name: str
    online: bool
    """True while a socket of that seat's player is connected (R7.6: the clock runs regardless)."""
    rating: SeatRating | None
    """The player's rating when the match read it (as its seats were taken); null for a guest,
    the computer, and in a shared-device or computer match, which show no ratings."""
    rating_change: float | None
    """Once a rated match has ended: the player's rating change, as stored with its end (after
    less before); null before then and in an unrated match."""


class Players(WireModel):
    first: PlayerSlot | None
    second: PlayerSlot | None
    """Null while the seat is empty."""


class JointSnapshot(WireModel):
    old: PlaceText
    """The place on the tile that was already laid."""
    new: PlaceText
    """The side of the new tile that joins it."""


class BoardSnapshot(WireModel):
    tiles: list[TileText] = Field(description="In placement order; the last is the last laid.")
    spinner: TileText | None
    joints: list[JointSnapshot]
    open_places: list[PlaceText]
    scoring_ends: list[tuple[TileText, int]] = Field(
        description="[tile, value] per scoring end; a double counts 2 × its value (R3.4)."
    )
    ends_sum: int
    award: int = Field(description="The last placement's award before the payer cap (R3.5).")


class BidOption(WireModel):
    amount: int
    cost: int = Field(description="What the bid costs if accepted, jockey discount applied (R6.4).")
    loses_match: bool = Field(
        False,
        description=(
            "R6.5: accepted, its payment is the bidder's whole balance and loses the match at "
            "once; set on the viewer's own legal bids only."
        ),
    )


class PlayOption(WireModel):
    tile: TileText
    places: list[PlaceText] = Field(description="Empty when the tile is an opening tile.")


class LegalSnapshot(WireModel):
    """Everything the viewer may do now; the client offers exactly this (R8.1)."""

    plays: list[PlayOption]
    opening: bool = Field(description="True when the plays are opening tiles (send at: null).")
    can_draw: bool
    can_decline: bool
    can_accept: bool
    bids: list[BidOption]


class AuctionSnapshot(WireModel):
    jockey: SeatName
    bids: list[BidOption]
    bidders: list[SeatName] = Field(description="Who made each bid in ``bids``, in order.")


class RoundResult(WireModel):
    """The round that just ended, both hands public (D4)."""

    number: int
    reason: RoundEnd | None
    hands: TilesPair
    pip_totals: IntPair


class MatchResult(WireModel):
    winner: SeatName | None = Field(description="Null when the match was aborted (D3, D5, D7).")
    reason: MatchEnd
    undecided: SeatName | None = Field(
        None,
        description=(
            "D7: the seat that made no first decision; present only with the reason "
            "``no_first_decision``."
        ),
    )


class ClockSnapshot(WireModel):
    """The clocks at ``now_ms``, the server's monotonic millisecond: the client only displays
    them, counting down from this reading (R7.6, R7.7)."""

    now_ms: int
    running: SeatName | None = Field(description="Null while the clocks stand (R7.5).")
    bank_left_ms: IntPair
    delay_left_ms: int
    deadline_ms: int | None = Field(
        description="When the running seat loses on time (R7.7), in the same server ms."
    )


class MatchSnapshot(WireModel):
    """One audience's view of a match: a seat's own hand, never another's (R2.2, D4)."""

    id: str
    mode: MatchMode
    status: MatchStatus
    bot_level: int | None = Field(
        description="The level (1-5) of the computer in the second seat; null against a person."
    )
    audience: Audience
    rated: bool = Field(
        description=(
            "While the match is played: whether it is rated if it ends by score, time or "
            "resignation (two accounts online on the rules' time control); once it has "
            "ended: whether its ratings moved."
        )
    )
    players: Players
    spectators: int
    viewer: SeatName | None = Field(description="The seat whose view this is; null otherwise.")
    phase: Phase
    round_number: int
    to_act: SeatName | None
    decision: int = Field(description="Counts decisions; a new one restarts the delay (R7.2).")
    balances: IntPair
    jockey: SeatName | None
    hand: list[TileText] | None = Field(description="The viewer's own hand; null for others.")
    must_play: TileText | None = Field(description="A drawn tile to play at once (R4.2).")
    hand_counts: IntPair
    boneyard_count: int
    board: BoardSnapshot | None
    auction: AuctionSnapshot | None
    opening_tile: TileText | None = Field(description="The tile the opener must lead (R2.3).")
    legal: LegalSnapshot | None = Field(description="Null unless it is the viewer's decision.")
    last_round: RoundResult | None
    result: MatchResult | None
    clock: ClockSnapshot
    handover: SeatName | None = Field(
        description="Shared device: the seat that must send reveal before its clock starts (R7.5)."
    )
    ready: BoolPair = Field(description="Who has pressed Start/Continue (D3).")
    start_deadline_ms: int | None = Field(description="When the round deals anyway (D3 grace).")
    join_deadline_ms: int | None = Field(description="When a match still waiting aborts (D3).")
    join_timeout_ms: int | None = Field(
        description=(
            "D3: while the match waits for its second player, how long it stays open after "
            "its creator's last socket on it closed (it waits while they have it open); null "
            "otherwise."
        )
    )
    first_decision_deadline_ms: int | None = Field(
        description=(
            "D7: while the seat to act has made no decision of its own, when the match ends "
            "aborted without a result if that decision has not come (its delay plus the grace, "
            "or the R7.7 deadline if sooner), in the same server ms as the clock; null otherwise."
        )
    )
    deck_commitment: DeckCommitment | None
    """The current round's commitment; null before the first deal."""
    deck_reveal: DeckReveal | None
    """The last finished round's salt and deck; null until a round has ended."""
