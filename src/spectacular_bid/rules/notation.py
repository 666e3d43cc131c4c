"""Appendix A notation: every text form of a tile, side, place, placement and seat, as pairs.

One module owns each ``parse_*`` with its formatter, so the command line, the wire, the match
record and the tests read and write the same text and a parser cannot drift from its formatter:
``parse_x(x_text(value)) == value`` for every value (``tests/rules/test_notation.py``).

============================  =================================================================
text                          pair
============================  =================================================================
``1-4``                       :func:`parse_tile` / :func:`tile_text` (also reads ``[1|4]``)
``smaller``, ``lineA``…       :func:`parse_side` / :func:`side_text`
``1-4:smaller``               :func:`parse_place` / :func:`place_text`
``1-4``, ``1-1@1-4:smaller``  :func:`parse_placement` / :func:`placement_text`
``1-4 1-1@1-4:smaller``       :func:`parse_moves` / :func:`moves_text` (a board's placements)
``first``, ``second``         :func:`parse_seat` / :func:`seat_text`
============================  =================================================================

Every parser raises :class:`NotationError` quoting its input. Text that names no real tile, side
or place — ``1-4:lineA``: a non-double has no line side — is malformed, not a move the rules
refuse, so the web layer answers it with ``bad_message`` rather than ``illegal`` (R8.3); whether
a well-formed place is open is the board's question. The running-text forms of the board
description (``[1|4]``, ``larger end``) are ``str(tile)`` and :attr:`Side.text`.

The writers of places, placements and moves are defined in :mod:`.board`, because a board's repr
is the moves that rebuild it, and handed out here beside their parsers; the tables they write
from (:data:`~.tiles.NOTATION`, :data:`~.board.SIDE_NOTATION`) are the types' own. This module
imports :mod:`.tiles` and :mod:`.board` and neither imports it: the rules import one way.
"""

from __future__ import annotations

from typing import Final

from spectacular_bid.rules.board import (
    PLACES,
    SIDE_NOTATION,
    SIDES,
    Board,
    Place,
    Side,
    moves_text,
    place_text,
    placement_text,
)
from spectacular_bid.rules.errors import NotationError
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.rules.tiles import BY_HALVES, NOTATION, Tile

# -- tiles ------------------------------------------------------------------------------------

_PIP_DIGITS: Final = "0123456"


def parse_tile(text: str) -> Tile:
    """Parse ``1-4``, ``4-1``, ``[1|4]`` or ``1|4``; raise :class:`NotationError` otherwise."""
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    for sep in ("-", "|"):
        parts = body.split(sep)
        if len(parts) == 2 and all(len(p) == 1 and p in _PIP_DIGITS for p in parts):
            return BY_HALVES[int(parts[0])][int(parts[1])]
    raise NotationError(f"invalid tile: {text!r}")


def tile_text(tile: Tile) -> str:
    """``1-4``: the low half first (Appendix A)."""
    return NOTATION[tile]


# -- sides ------------------------------------------------------------------------------------

_SIDE_BY_NAME: Final = {name: SIDES[i] for i, name in enumerate(SIDE_NOTATION)}


def parse_side(text: str) -> Side:
    """Parse a side's name in placement notation: ``larger``, ``smaller``, ``lineA``…"""
    try:
        return _SIDE_BY_NAME[text]
    except KeyError:
        expected = ", ".join(SIDE_NOTATION)
        raise NotationError(f"invalid side: {text!r} (expected one of {expected})") from None


def side_text(side: Side) -> str:
    """``larger``, ``lineA``…: a side in placement notation (its running text, ``larger end``,
    is :attr:`Side.text`)."""
    return SIDE_NOTATION[side]


# -- places -----------------------------------------------------------------------------------


def _place_on(tile: Tile, side: Side) -> Place | None:
    """The place ``side`` of ``tile``, or None when a tile of its kind has no such side: a
    non-double has its larger and smaller ends, a double its line and branch sides (R3.2, R3.3)."""
    return PLACES[tile * 8 + side]


def parse_place(text: str) -> Place:
    """Parse ``1-4:smaller``, a side of a laid tile (Appendix A).

    A side the tile cannot have (``1-4:lineA``, ``1-1:smaller``) is refused here, as notation,
    so it is a ``bad_message`` on the wire and not an ``illegal`` move (R8.3).
    """
    tile_part, colon, side_part = text.partition(":")
    if not colon:
        raise NotationError(f"invalid place: {text!r} (expected TILE:SIDE, e.g. 1-4:smaller)")
    tile = parse_tile(tile_part)
    side = parse_side(side_part)
    place = _place_on(tile, side)
    if place is None:
        raise NotationError(f"invalid place: {text!r} ({tile} has no {side.text})")
    return place


# -- placements -------------------------------------------------------------------------------


def parse_placement(text: str) -> tuple[Tile, Place | None]:
    """Parse a placement: ``1-4`` opens the board (the place is None), ``TILE@AT:SIDE`` lays
    ``TILE`` on the side ``SIDE`` of the laid tile ``AT`` (Appendix A)."""
    if "@" not in text:
        try:
            return parse_tile(text), None
        except NotationError:
            raise NotationError(f"invalid placement: {text!r}") from None
    tile_part, _, rest = text.partition("@")
    at_part, colon, side_part = rest.partition(":")
    if not colon:
        raise NotationError(f"invalid placement: {text!r} (expected TILE@AT:SIDE)")
    tile = parse_tile(tile_part)
    at = parse_tile(at_part)
    side = parse_side(side_part)
    place = _place_on(at, side)
    if place is None:
        raise NotationError(f"invalid placement: {text!r} ({at} has no {side.text})")
    return tile, place


def parse_moves(text: str) -> Board:
    """The board that a sequence of placements separated by spaces builds from empty:
    ``1-4 1-1@1-4:smaller``. Raise :class:`NotationError` for malformed text and
    :class:`~spectacular_bid.rules.errors.IllegalActionError` for a placement the board refuses
    (R3.1)."""
    board = Board()
    for move in text.split():
        tile, at = parse_placement(move)
        board.place(tile, at)
    return board


# -- seats ------------------------------------------------------------------------------------

SEAT_NOTATION: Final = ("first", "second")
"""Each :class:`Seat`'s name on the wire and in the match record, indexed by the seat."""
_SEAT_BY_NAME: Final = {name: SEATS[i] for i, name in enumerate(SEAT_NOTATION)}


def parse_seat(text: object) -> Seat:
    """Parse ``first`` or ``second``. Takes any object because decoded JSON is untyped."""
    if isinstance(text, str) and text in _SEAT_BY_NAME:
        return _SEAT_BY_NAME[text]
    raise NotationError(f"invalid seat: {text!r} (expected 'first' or 'second')")


def seat_text(seat: Seat) -> str:
    """``first`` or ``second``."""
    return SEAT_NOTATION[seat]


__all__ = [
    "SEAT_NOTATION",
    "SIDE_NOTATION",
    "moves_text",
    "parse_moves",
    "parse_place",
    "parse_placement",
    "parse_seat",
    "parse_side",
    "parse_tile",
    "place_text",
    "placement_text",
    "seat_text",
    "side_text",
    "tile_text",
]
