"""The service's own events, recorded and sent beside the engine's (D3, D4, R7.5)."""

from __future__ import annotations

from dataclasses import dataclass

from spectacular_bid.rules.actions import Event
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.tiles import Tile


@dataclass(frozen=True, slots=True)
class SeatTaken:
    seat: Seat
    name: str


@dataclass(frozen=True, slots=True)
class Ready:
    """``seat`` pressed Start/Continue; the round deals when both have, or at the grace (D3)."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class Revealed:
    """Shared device: ``seat`` revealed its tiles and its clock started (R7.5)."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class DeckCommitted:
    """The round's ``sha256(salt ":" deck)``, public from the deal on (provably fair deals)."""

    round: int
    commitment: str


@dataclass(frozen=True, slots=True)
class DeckRevealed:
    """The finished round's salt and deck, so anyone can check its commitment (D4)."""

    round: int
    commitment: str | None
    salt: str
    deck: tuple[Tile, ...]


ServiceEvent = SeatTaken | Ready | Revealed | DeckCommitted | DeckRevealed
MatchEvent = Event | ServiceEvent
"""Everything a version can record: the engine's events and the service's."""
