"""Every action object ``Match.legal_actions`` can hand out, made once at import.

A legal-move list is then a lookup per move on tile ids and place codes, so a random-play
benchmark or a bot's search measures the rules, not object construction (BENCHMARKS.md "bench
rules").
"""

from __future__ import annotations

from typing import Final

from spectacular_bid.rules.actions import Accept, Bid, Decline, Draw, Play
from spectacular_bid.rules.auction import JOCKEY_DISCOUNT
from spectacular_bid.rules.base_match import TOTAL_POINTS
from spectacular_bid.rules.board import CODE_MATCHES, PLACE_CODES, PLACES
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.rules.tiles import TILES

CODES_PLUS_OPEN: Final = PLACE_CODES + 1
"""Per tile: one slot for the opening (no place) and one per place code."""
SEAT_STRIDE: Final = len(TILES) * CODES_PLUS_OPEN
"""Per seat: one block of every tile's slots in :data:`PLAYS`."""


def _intern_plays() -> list[Play | None]:
    """Every possible :class:`Play`, made once: legal-move lists then cost a lookup per move."""
    plays: list[Play | None] = [None] * (2 * SEAT_STRIDE)
    for seat in SEATS:
        for tile in TILES:
            plays[seat * SEAT_STRIDE + tile * CODES_PLUS_OPEN] = Play(seat, tile, None)
            for code, place in enumerate(PLACES):
                if place is not None and CODE_MATCHES[code] >> tile & 1:
                    index = seat * SEAT_STRIDE + tile * CODES_PLUS_OPEN + code + 1
                    plays[index] = Play(seat, tile, place)
    return plays


PLAYS: Final = _intern_plays()
"""Indexed by ``seat * SEAT_STRIDE + tile * CODES_PLUS_OPEN + code + 1`` (code -1: the opening);
None where the tile cannot match the place (R3.1)."""
DRAWS: Final = (Draw(Seat.FIRST), Draw(Seat.SECOND))
ACCEPTS: Final = (Accept(Seat.FIRST), Accept(Seat.SECOND))
DECLINES: Final = (Decline(Seat.FIRST), Decline(Seat.SECOND))
BIDS: Final = tuple(
    tuple(Bid(seat, amount) for amount in range(TOTAL_POINTS + JOCKEY_DISCOUNT + 1))
    for seat in SEATS
)
"""Interned bids by seat and amount: an auction decision lists up to sixty of them."""


def play_action(seat: int, tile: int, code: int) -> Play:
    """The interned :class:`Play` for a seat, tile and place code (-1: the opening)."""
    action = PLAYS[seat * SEAT_STRIDE + tile * CODES_PLUS_OPEN + code + 1]
    assert action is not None, (seat, tile, code)
    return action
