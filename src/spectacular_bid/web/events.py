"""The events inside an ``update`` message, one model per ``type``.

Engine events are encoded by ``codec.event_json`` after ``views.event_for`` has removed what the
receiver may not see (a hidden hand or draw is null, R2.2); the service adds ``seat_taken``,
``ready`` (D3) and ``revealed`` (R7.5). Every event carries the ``version`` it belongs to; one
command can make several events with the same version.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from spectacular_bid.rules.actions import MatchEnd, RoundEnd, TransferReason
from spectacular_bid.web.notation import (
    HiddenTilesPair,
    IntPair,
    PlaceText,
    SeatName,
    TilesPair,
    TileText,
    WireModel,
)

HexDigest = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class DeckCommitment(WireModel):
    """The round's deck commitment, shown to everyone from the deal on: ``sha256(salt ":"
    deck)`` over the 28 dealt tiles in move notation separated by spaces (provably fair deals)."""

    type: Literal["deck_committed"]
    round: int
    commitment: HexDigest


class DeckReveal(WireModel):
    """The finished round's salt and deck, so anyone can recompute its commitment (D4)."""

    type: Literal["deck_revealed"]
    round: int
    commitment: HexDigest | None
    salt: str
    deck: list[TileText]
    """All 28 tiles in dealt order: the first seat's 7, the second's 7, then the boneyard."""


class _Event(WireModel):
    version: int
    """The match version this event belongs to."""


class RoundDealtEvent(_Event):
    type: Literal["round_dealt"]
    number: int
    hands: HiddenTilesPair
    """Only the receiver's own hand is present; a spectator sees neither (R2.2)."""
    boneyard: list[TileText] | None
    """Always null on the wire while the round is played: the undrawn boneyard is shown with the
    round's ``deck_revealed`` at its end and the whole order in the record (D4)."""
    boneyard_count: int


class AuctionOpenedEvent(_Event):
    type: Literal["auction_opened"]
    jockey: SeatName
    """The winner of the last round by domino (R4.5, R6.1)."""


class OpenerChosenEvent(_Event):
    type: Literal["opener_chosen"]
    seat: SeatName
    tile: TileText | None
    """The tile the opener must lead (R2.3), shown to the opener only; null for any tile."""


class DeclinedEvent(_Event):
    type: Literal["declined"]
    seat: SeatName
    forced: bool
    """D2, R6.6: the non-jockey could not afford the minimum bid."""


class BidMadeEvent(_Event):
    type: Literal["bid_made"]
    seat: SeatName
    amount: int
    cost: int
    """What the bidder pays if accepted (R6.4)."""


class BidAcceptedEvent(_Event):
    type: Literal["bid_accepted"]
    seat: SeatName
    """Who accepted."""
    bidder: SeatName
    amount: int
    payment: int
    forced: bool
    """D2, R6.6: the acceptor could not afford the minimum raise."""


class TransferredEvent(_Event):
    type: Literal["transferred"]
    payer: SeatName
    payee: SeatName
    amount: int
    reason: TransferReason
    balances: IntPair
    """Both balances after the transfer (R1.2, R1.4)."""


class PlayedEvent(_Event):
    type: Literal["played"]
    seat: SeatName
    tile: TileText
    at: PlaceText | None
    """Null for the opening tile."""
    ends_sum: int
    award: int
    """Before the payer cap (R3.5); the points move in the following ``transferred``."""


class DrewEvent(_Event):
    type: Literal["drew"]
    seat: SeatName
    tile: TileText | None
    """The drawn tile for the drawer; null for everyone else (R2.2, D1)."""
    boneyard_count: int


class PassedEvent(_Event):
    type: Literal["passed"]
    seat: SeatName
    """A forced pass applied by the server (R4.4, D2)."""


class RoundEndedEvent(_Event):
    type: Literal["round_ended"]
    number: int
    reason: RoundEnd
    hands: TilesPair
    """Both hands, public once the round ends (D4)."""
    pip_totals: IntPair
    jockey: SeatName | None


class MatchEndedEvent(_Event):
    type: Literal["match_ended"]
    winner: SeatName | None
    """Null when the match was aborted with no result (D3, D5, D7)."""
    reason: MatchEnd
    undecided: SeatName | None = None
    """D7: the seat that made no first decision; present only with ``no_first_decision``."""


class SeatTakenEvent(_Event):
    type: Literal["seat_taken"]
    seat: SeatName
    name: str
    """The display name of the player who joined."""


class ReadyEvent(_Event):
    type: Literal["ready"]
    seat: SeatName
    """This seat pressed Start/Continue; the round deals when both have, or at the grace (D3)."""


class RevealedEvent(_Event):
    type: Literal["revealed"]
    seat: SeatName
    """Shared device: this seat revealed its tiles; its clock starts now (R7.5)."""


class DeckCommittedEvent(DeckCommitment):
    version: int


class DeckRevealedEvent(DeckReveal):
    version: int


MatchEvent = Annotated[
    RoundDealtEvent
    | AuctionOpenedEvent
    | OpenerChosenEvent
    | DeclinedEvent
    | BidMadeEvent
    | BidAcceptedEvent
    | TransferredEvent
    | PlayedEvent
    | DrewEvent
    | PassedEvent
    | RoundEndedEvent
    | MatchEndedEvent
    | SeatTakenEvent
    | ReadyEvent
    | RevealedEvent
    | DeckCommittedEvent
    | DeckRevealedEvent,
    Field(discriminator="type"),
]
