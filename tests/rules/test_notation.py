"""Appendix A notation: each parser inverts its formatter, and malformed text is refused as
notation (:class:`NotationError`, quoting the input) before it can reach the rules (R8.3)."""

from __future__ import annotations

import pytest

from spectacular_bid.rules.board import PLACES, SIDES, Board, Place, Side
from spectacular_bid.rules.errors import IllegalActionError, NotationError
from spectacular_bid.rules.notation import (
    SIDE_NOTATION,
    moves_text,
    parse_moves,
    parse_place,
    parse_placement,
    parse_seat,
    parse_side,
    parse_tile,
    place_text,
    placement_text,
    seat_text,
    side_text,
    tile_text,
)
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.rules.tiles import TILES, Tile

ALL_PLACES = [place for place in PLACES if place is not None]

# -- every formatter is inverted by its parser ------------------------------------------------


@pytest.mark.parametrize("tile", TILES, ids=str)
def test_tiles_round_trip(tile: Tile) -> None:
    assert tile_text(tile) == f"{tile.low}-{tile.high}"
    assert parse_tile(tile_text(tile)) is tile


@pytest.mark.parametrize("side", SIDES, ids=str)
def test_sides_round_trip(side: Side) -> None:
    assert side_text(side) == SIDE_NOTATION[side]
    assert parse_side(side_text(side)) is side


def test_every_place_round_trips() -> None:
    # 21 non-doubles with two ends, 7 doubles with two line and two branch sides (R3.2, R3.3)
    assert len(ALL_PLACES) == 21 * 2 + 7 * 4
    for place in ALL_PLACES:
        assert parse_place(place_text(place)) == place


def test_every_placement_round_trips() -> None:
    for tile in TILES:
        assert parse_placement(placement_text(tile, None)) == (tile, None)
        for at in ALL_PLACES:
            assert parse_placement(placement_text(tile, at)) == (tile, at)


@pytest.mark.parametrize("seat", SEATS, ids=str)
def test_seats_round_trip(seat: Seat) -> None:
    assert seat_text(seat) == str(seat)
    assert parse_seat(seat_text(seat)) is seat


def test_a_board_round_trips_through_its_moves() -> None:
    moves = "1-4 1-1@1-4:smaller 4-4@1-4:larger 3-4@4-4:lineB 1-2@1-1:lineB 1-5@1-1:branchA"
    board = parse_moves(moves)
    assert moves_text(board) == moves
    assert parse_moves(moves_text(board)) == board
    assert repr(board) == f"parse_moves({moves!r})"
    assert moves_text(Board()) == ""
    assert parse_moves("") == Board()


# -- the texts of Appendix A ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "halves"), [("1-4", (1, 4)), ("4-1", (1, 4)), ("[1|4]", (1, 4)), ("6|6", (6, 6))]
)
def test_a_tile_may_be_written_either_way_round(text: str, halves: tuple[int, int]) -> None:
    assert parse_tile(text) is Tile.of(*halves)


def test_placements_of_appendix_a() -> None:
    one_four = Tile.of(1, 4)
    assert parse_placement("1-4") == (one_four, None)
    assert parse_placement("1-1@1-4:smaller") == (Tile.of(1, 1), Place(one_four, Side.SMALLER))
    assert placement_text(Tile.of(1, 1), Place(one_four, Side.SMALLER)) == "1-1@1-4:smaller"
    assert place_text(Place(Tile.of(2, 2), Side.BRANCH_B)) == "2-2:branchB"


# -- malformed text is a NotationError that quotes it -----------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1-4:lineA", "invalid place: '1-4:lineA' ([1|4] has no line A)"),
        ("1-4:branchB", "invalid place: '1-4:branchB' ([1|4] has no branch B)"),
        ("1-1:smaller", "invalid place: '1-1:smaller' ([1|1] has no smaller end)"),
        ("6-6:larger", "invalid place: '6-6:larger' ([6|6] has no larger end)"),
        ("1-4", "invalid place: '1-4' (expected TILE:SIDE, e.g. 1-4:smaller)"),
        ("1-4:up", "invalid side: 'up'"),
        ("7-7:lineA", "invalid tile: '7-7'"),
    ],
)
def test_parse_place_refuses_a_side_the_tile_does_not_have(text: str, message: str) -> None:
    """A non-double has only its larger and smaller ends, a double only line and branch sides
    (R3.2, R3.3): any other side is notation that names no place, not an illegal move (R8.3)."""
    with pytest.raises(NotationError) as caught:
        parse_place(text)
    assert str(caught.value).startswith(message)
    assert not isinstance(caught.value, IllegalActionError)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1-1@1-4:lineA", "invalid placement: '1-1@1-4:lineA' ([1|4] has no line A)"),
        ("1-2@1-1:larger", "invalid placement: '1-2@1-1:larger' ([1|1] has no larger end)"),
        ("1-1@1-4", "invalid placement: '1-1@1-4' (expected TILE@AT:SIDE)"),
        ("7-7", "invalid placement: '7-7'"),
        ("x@1-4:larger", "invalid tile: 'x'"),
        ("1-1@1-4:bogus", "invalid side: 'bogus' (expected one of larger, smaller, lineA, "),
    ],
)
def test_parse_placement_refuses_malformed_text(text: str, message: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse_placement(text)
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize("text", ["", "1-", "1-4-", "14", "0-7", "1 - 4", "[1-4", "1|4]", "a-b"])
def test_parse_tile_refuses_what_is_no_tile(text: str) -> None:
    with pytest.raises(NotationError, match="invalid tile: "):
        parse_tile(text)


@pytest.mark.parametrize("text", ["", "Larger", "line A", "lineC", "branch"])
def test_parse_side_refuses_unknown_names(text: str) -> None:
    with pytest.raises(NotationError, match=r"invalid side: .* \(expected one of larger, "):
        parse_side(text)


@pytest.mark.parametrize("value", ["third", "First", "", 0, None, ["first"]])
def test_parse_seat_refuses_anything_but_first_or_second(value: object) -> None:
    with pytest.raises(NotationError) as caught:
        parse_seat(value)
    assert str(caught.value) == f"invalid seat: {value!r} (expected 'first' or 'second')"


def test_parse_moves_refuses_a_placement_the_board_does_not_allow() -> None:
    """Well-formed text that the rules refuse is an illegal move, not notation (R3.1, R3.2)."""
    with pytest.raises(IllegalActionError, match="not an open place"):
        parse_moves("2-2 2-3@2-2:branchA")
    with pytest.raises(NotationError, match="invalid placement"):
        parse_moves("1-4 1-1@1-4:lineA")
