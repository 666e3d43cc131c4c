"""One round: the deal, the opening rule, hands, the boneyard, draws and passes (§2, §4).

Hands are bit masks over tile ids so that "can this seat play?" is one ``&`` per open place; the
boneyard is the dealt order, drawn from the front (R2.1: all 14 tiles are drawable).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from spectacular_bid.rules.board import CODE_MATCHES, PLACE_VALUE, Board
from spectacular_bid.rules.errors import IllegalActionError
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.rules.tiles import (
    ALL_MASK,
    DOUBLES,
    HIGH,
    PIPS,
    TILE_COUNT,
    TILES,
    VALUE_MASK,
    Tile,
    tiles_in,
)

HAND_SIZE: Final = 7
"""R2.1."""


def check_deck(deck: Sequence[Tile]) -> tuple[Tile, ...]:
    """Raise unless ``deck`` is an order of all 28 tiles, each once (R2.1)."""
    if len(deck) != TILE_COUNT:
        raise IllegalActionError(f"a deck holds {TILE_COUNT} tiles, not {len(deck)}")
    mask = 0
    for tile in deck:
        if not isinstance(tile, Tile):
            raise IllegalActionError(f"not a tile in the deck: {tile!r}")
        mask |= 1 << tile
    if mask != ALL_MASK:
        missing = ", ".join(str(t) for t in tiles_in(ALL_MASK & ~mask))
        raise IllegalActionError(f"the deck repeats tiles and lacks {missing}")
    return tuple(deck)


def highest_opening(hands: Sequence[int]) -> tuple[Seat, Tile]:
    """R2.3: the holder of the highest double opens with it; with no double in either hand, the
    tile with the largest pip sum, ties broken by the larger half ([2|6] beats [3|5])."""
    held = hands[0] | hands[1]
    for double in reversed(DOUBLES):
        if held >> double & 1:
            return (SEATS[0] if hands[0] >> double & 1 else SEATS[1]), double
    best = max(tiles_in(held), key=lambda t: (PIPS[t], HIGH[t]))
    return (SEATS[0] if hands[0] >> best & 1 else SEATS[1]), best


def round_to_five(points: int) -> int:
    """R4.6: to the nearest five, remainders 1–2 down and 3–4 up (17 → 15, 18 → 20)."""
    return (points + 2) // 5 * 5


class Round:
    """The mutable state of one round."""

    __slots__ = (
        "board",
        "boneyard",
        "boneyard_size",
        "deck",
        "drawn",
        "hands",
        "must_play",
        "number",
        "passes",
    )

    def __init__(self, number: int, deck: Sequence[Tile]) -> None:
        self.number = number
        self.deck = check_deck(deck)
        self.hands: list[int] = [0, 0]
        for i in range(HAND_SIZE):
            self.hands[0] |= 1 << self.deck[i]
            self.hands[1] |= 1 << self.deck[HAND_SIZE + i]
        self.boneyard: list[Tile] = list(self.deck[2 * HAND_SIZE :])
        self.boneyard_size = len(self.boneyard)
        self.drawn = 0
        """How many boneyard tiles have been drawn; the next draw takes ``boneyard[drawn]``."""
        self.board = Board()
        self.must_play: Tile | None = None
        """A playable tile just drawn: it must be played at once (R4.2)."""
        self.passes = 0
        """Passes in succession; two block the round (R4.6)."""

    def copy(self) -> Round:
        other = Round.__new__(Round)
        other.number = self.number
        other.deck = self.deck
        other.hands = self.hands.copy()
        other.boneyard = self.boneyard
        other.boneyard_size = self.boneyard_size
        other.drawn = self.drawn
        other.board = self.board.copy()
        other.must_play = self.must_play
        other.passes = self.passes
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Round):
            return NotImplemented
        return (
            self.number == other.number
            and self.deck == other.deck
            and self.hands == other.hands
            and self.drawn == other.drawn
            and self.board == other.board
            and self.must_play == other.must_play
            and self.passes == other.passes
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Round {self.number}: {self.board!r}, drawn={self.drawn}>"

    @property
    def boneyard_count(self) -> int:
        return len(self.boneyard) - self.drawn

    def boneyard_left(self) -> tuple[Tile, ...]:
        """The undrawn tiles in draw order: hidden from every seat until the round ends (D4)."""
        return tuple(self.boneyard[self.drawn :])

    def hand(self, seat: Seat) -> list[Tile]:
        return tiles_in(self.hands[seat])

    def hand_count(self, seat: Seat) -> int:
        return self.hands[seat].bit_count()

    def pip_total(self, seat: Seat) -> int:
        return sum(PIPS[t] for t in tiles_in(self.hands[seat]))

    def playable_mask(self, seat: Seat | int) -> int:
        """The tiles of ``seat``'s hand that fit some open place (R3.1)."""
        hand = self.hands[seat]
        mask = 0
        for code in self.board.open_codes:
            mask |= hand & CODE_MATCHES[code]
        return mask

    def plays_for(self, tile: Tile) -> list[int]:
        """The open place codes where ``tile`` fits."""
        return [code for code in self.board.open_codes if VALUE_MASK[PLACE_VALUE[code]] >> tile & 1]

    def draw(self, seat: Seat | int) -> Tile:
        tile = self.boneyard[self.drawn]
        self.drawn += 1
        self.hands[seat] |= 1 << tile
        return tile


__all__ = ["HAND_SIZE", "TILES", "Round", "check_deck", "highest_opening", "round_to_five"]
