"""The layout: joining tiles, the spinner, open places, scoring ends and awards (§3, Appendix A).

An open place is a point where a tile may join (R3.1); a scoring end is what the sum counts
(R3.4). They differ (R3.7): the spinner's branches are open places that count nothing, and a
double with an open line side counts both halves once.

Internally a place is a small integer ``anchor * 8 + side`` so the sets of open places stay tiny
lists of ints and every value and score is a table lookup.

Placement notation (``1-1@1-4:smaller``) is written here, since a board's repr is the moves that
rebuild it, and read by :mod:`.notation` (``parse_moves`` builds a board), which hands out these
writers beside their parsers. Nothing here imports it, so the rules import one way.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final, NamedTuple

from spectacular_bid.rules.errors import IllegalActionError
from spectacular_bid.rules.tiles import (
    HIGH,
    IS_DOUBLE,
    LOW,
    NAMES,
    NOTATION,
    TILES,
    VALUE_MASK,
    Tile,
)


class Side(IntEnum):
    """The sides of a tile where another may join, in Appendix A's sort order."""

    LARGER = 0
    SMALLER = 1
    LINE_A = 2
    LINE_B = 3
    BRANCH_A = 4
    BRANCH_B = 5

    @property
    def text(self) -> str:
        """The side's name in running text: ``larger end``, ``line A``…"""
        return SIDE_TEXT[self]


SIDES: Final = tuple(Side)
SIDE_TEXT: Final = ("larger end", "smaller end", "line A", "line B", "branch A", "branch B")
"""Each side in running text, as the board description writes it (Appendix A)."""
SIDE_NOTATION: Final = ("larger", "smaller", "lineA", "lineB", "branchA", "branchB")
"""Each side's name in placement notation (Appendix A), indexed by the side."""

_LINE_SIDES: Final = (Side.LINE_A, Side.LINE_B)


def _place_value(tile: int, side: int) -> int:
    return HIGH[tile] if side == Side.LARGER else LOW[tile]


def _place_score(tile: int, side: int) -> int:
    if side in (Side.LARGER, Side.SMALLER):
        return _place_value(tile, side)
    if side in _LINE_SIDES:
        return 2 * LOW[tile]
    return 0


def _side_fits(tile: int, side: int) -> bool:
    if IS_DOUBLE[tile]:
        return side not in (Side.LARGER, Side.SMALLER)
    return side in (Side.LARGER, Side.SMALLER)


_BRANCH_A: Final = int(Side.BRANCH_A)
PLACE_CODES: Final = 8 * len(TILES)
PLACE_VALUE: Final[tuple[int, ...]] = tuple(
    _place_value(code >> 3, code & 7) if (code & 7) < 6 else -1 for code in range(PLACE_CODES)
)
"""The pip value a tile must show to join at a place."""
PLACE_SCORE: Final[tuple[int, ...]] = tuple(
    _place_score(code >> 3, code & 7) if (code & 7) < 6 else 0 for code in range(PLACE_CODES)
)
"""What an open place adds to the ends sum (R3.4): an end its pips, a double's line side both
halves, a branch nothing. The opening double with both line sides open is counted once by
:class:`Board` itself."""


def _join(tile: int, value: int) -> tuple[int, int, int]:
    """How ``tile`` joins a place of ``value`` (R3.3): its joined side's code, the code of the
    side it leaves open, and what that open side adds to the ends sum."""
    t8 = tile * 8
    if IS_DOUBLE[tile]:
        return t8 + Side.LINE_A, t8 + Side.LINE_B, 2 * value
    if LOW[tile] == value:
        return t8 + Side.SMALLER, t8 + Side.LARGER, HIGH[tile]
    return t8 + Side.LARGER, t8 + Side.SMALLER, LOW[tile]


_JOINS: Final = tuple(_join(t, v) for t in range(len(TILES)) for v in range(7))
_OPENING_CODES: Final = tuple(
    (t * 8 + Side.LINE_A, t * 8 + Side.LINE_B)
    if IS_DOUBLE[t]
    else (t * 8 + Side.LARGER, t * 8 + Side.SMALLER)
    for t in range(len(TILES))
)
_BRANCH_CODES: Final = tuple((t * 8 + Side.BRANCH_A, t * 8 + Side.BRANCH_B) for t in range(28))


CODE_MATCHES: Final = tuple(VALUE_MASK[v] if v >= 0 else 0 for v in PLACE_VALUE)
"""For each place code, the mask of the tiles that fit there (R3.1)."""


def award_for(ends_sum: int) -> int:
    """What a placement that leaves ``ends_sum`` scores before the payer cap (R3.5): the sum when
    it is a positive multiple of 5, otherwise nothing. The rules' one statement of R3.5; the
    match, the board description and the bots' ranking all ask it."""
    return ends_sum if ends_sum > 0 and ends_sum % 5 == 0 else 0


class Place(NamedTuple):
    """An open place on the board: a side of a tile already laid."""

    tile: Tile
    side: Side

    @property
    def value(self) -> int:
        return PLACE_VALUE[self.tile * 8 + self.side]

    @property
    def code(self) -> int:
        return self.tile * 8 + self.side

    def __str__(self) -> str:
        return f"{self.tile} ({self.side.text}, {self.value})"


PLACES: Final[tuple[Place | None, ...]] = tuple(
    Place(TILES[code >> 3], SIDES[code & 7])
    if (code & 7) < 6 and _side_fits(code >> 3, code & 7)
    else None
    for code in range(PLACE_CODES)
)
"""The place of each code, None where a tile of that kind has no such side (R3.2, R3.3)."""


class Joint(NamedTuple):
    """Where a laid tile joined: the old tile's side and the new tile's side."""

    old: Place
    new: Place

    def __str__(self) -> str:
        return f"{self.old.tile} ({self.old.side.text}) – {self.new.tile} ({self.new.side.text})"


class Board:
    """The layout of one round. Mutable with a cheap :meth:`copy` (a bot searches with it)."""

    __slots__ = ("_joints", "_spinner_open_lines", "ends_sum", "open_codes", "spinner", "tiles")

    def __init__(self) -> None:
        self.tiles: list[Tile] = []
        self.spinner: Tile | None = None
        self.ends_sum = 0
        self.open_codes: list[int] = []
        """The open places as codes, unordered. Read it; change it only through :meth:`lay`."""
        self._joints: list[tuple[int, int]] = []
        self._spinner_open_lines = 0

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.tiles = self.tiles.copy()
        other.spinner = self.spinner
        other.ends_sum = self.ends_sum
        other.open_codes = self.open_codes.copy()
        other._joints = self._joints.copy()
        other._spinner_open_lines = self._spinner_open_lines
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (
            self.tiles == other.tiles
            and self.spinner == other.spinner
            and self.ends_sum == other.ends_sum
            and sorted(self.open_codes) == sorted(other.open_codes)
            and self._joints == other._joints
            and self._spinner_open_lines == other._spinner_open_lines
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        """The call that rebuilds the board: ``parse_moves('1-4 1-1@1-4:smaller')``."""
        return f"parse_moves({moves_text(self)!r})"

    # -- reading --------------------------------------------------------------------------

    @property
    def is_empty(self) -> bool:
        return not self.tiles

    def open_places(self) -> list[Place]:
        """Open places in Appendix A order (by tile, then side)."""
        return [PLACES[c] for c in sorted(self.open_codes)]  # type: ignore[misc]

    def joints(self) -> list[Joint]:
        return [Joint(PLACES[o], PLACES[n]) for o, n in self._joints]  # type: ignore[arg-type]

    def scoring_ends(self) -> list[tuple[Tile, int]]:
        """The counted ends in Appendix A order; a double counts once with 2 × value (R3.4)."""
        ends: list[tuple[Tile, int]] = []
        counted: set[int] = set()
        for code in sorted(self.open_codes):
            tile, side = code >> 3, code & 7
            if side >= Side.BRANCH_A:
                continue
            if side >= Side.LINE_A:
                if tile in counted:
                    continue
                counted.add(tile)
            ends.append((TILES[tile], PLACE_SCORE[code]))
        return ends

    @property
    def award(self) -> int:
        """The award of the last placement before the payer cap (R3.5)."""
        return award_for(self.ends_sum)

    def places_for(self, tile: Tile) -> list[Place]:
        """The open places where ``tile`` may join (R3.1); every place when the board is empty
        is not meaningful, so an empty board gives an empty list: the tile opens instead."""
        lo, hi = LOW[tile], HIGH[tile]
        return [
            PLACES[c]  # type: ignore[misc]
            for c in sorted(self.open_codes)
            if PLACE_VALUE[c] == lo or PLACE_VALUE[c] == hi
        ]

    def sum_after(self, tile: Tile, code: int) -> int:
        """The ends sum that :meth:`lay` would give, without laying: a search ranks its
        placements by award (R3.4, R3.5) without copying the board for each."""
        if code < 0:
            return 2 * LOW[tile] if IS_DOUBLE[tile] else LOW[tile] + HIGH[tile]
        total = self.ends_sum
        if code >> 3 != self.spinner or code & 7 >= _BRANCH_A or self._spinner_open_lines == 1:
            total -= PLACE_SCORE[code]
        return total + _JOINS[tile * 7 + PLACE_VALUE[code]][2]

    def award_after(self, tile: Tile, code: int) -> int:
        """The award (R3.5) that laying ``tile`` at place ``code`` (-1 opens the board) would
        score, without laying it: how the bots rank placements."""
        return award_for(self.sum_after(tile, code))

    # -- changing -------------------------------------------------------------------------

    def check_placement(self, tile: Tile, place: Place | None) -> int:
        """Raise unless ``tile`` may be laid at ``place``; return the place code (or -1)."""
        if place is None:
            if self.tiles:
                raise IllegalActionError(f"{tile} needs an open place: the board is not empty")
            return -1
        if not self.tiles:
            raise IllegalActionError(f"{tile} must open the board: it has no place {place}")
        code = place.tile * 8 + place.side
        if code not in self.open_codes:
            raise IllegalActionError(
                f"{place.tile} ({place.side.text}) is not an open place on the board"
            )
        value = PLACE_VALUE[code]
        if LOW[tile] != value and HIGH[tile] != value:
            raise IllegalActionError(f"{tile} does not match {place} (R3.1)")
        if tile in self.tiles:
            raise IllegalActionError(f"{tile} is already on the board")
        return code

    def lay(self, tile: Tile, code: int) -> int:
        """Lay ``tile`` at place ``code`` (-1 opens the board) without checks; return the new
        ends sum. Callers check first with :meth:`check_placement` or their own legal moves."""
        codes = self.open_codes
        if code < 0:
            self.tiles.append(tile)
            codes.extend(_OPENING_CODES[tile])
            if IS_DOUBLE[tile]:
                self.spinner = tile
                self._spinner_open_lines = 2
                self.ends_sum = 2 * LOW[tile]
            else:
                self.ends_sum = LOW[tile] + HIGH[tile]
            return self.ends_sum
        codes.remove(code)
        total = self.ends_sum
        spinner = self.spinner
        if code >> 3 == spinner and code & 7 < _BRANCH_A:
            # A spinner's line side (R3.2). While the other line side is open the spinner still
            # counts both halves (R3.4), so nothing is taken off for the first one filled.
            self._spinner_open_lines -= 1
            if not self._spinner_open_lines:
                total -= PLACE_SCORE[code]
                codes.extend(_BRANCH_CODES[code >> 3])
        else:
            total -= PLACE_SCORE[code]
        join = _JOINS[tile * 7 + PLACE_VALUE[code]]
        if spinner is None and IS_DOUBLE[tile]:
            self.spinner = tile
            self._spinner_open_lines = 1
        codes.append(join[1])
        self._joints.append((code, join[0]))
        self.tiles.append(tile)
        total += join[2]
        self.ends_sum = total
        return total

    def place(self, tile: Tile, place: Place | None = None) -> int:
        """Check and lay a tile; return the award before the payer cap (R3.5)."""
        self.lay(tile, self.check_placement(tile, place))
        return self.award

    # -- description ----------------------------------------------------------------------

    def describe(self) -> str:
        """The one-line board description of Appendix A."""
        spinners = str(self.spinner) if self.spinner is not None else "none"
        joints = "; ".join(str(j) for j in self.joints()) or "none"
        places = "; ".join(str(p) for p in self.open_places()) or "none"
        ends = self.scoring_ends()
        ends_text = "; ".join(f"{t}: {v}" for t, v in ends) or "none"
        values = " + ".join(str(v) for _, v in ends) or "0"
        total = sum(v for _, v in ends)
        return (
            f"Tiles: {', '.join(NAMES[t] for t in self.tiles)}. Spinners: {spinners}. "
            f"Joints: {joints}. Open places: {places}. Scoring ends: {ends_text}. "
            f"Sum: {values} = {total}. Award: {self.award}."
        )


# -- placement notation (Appendix A), read by notation.py ------------------------------------


def place_text(place: Place) -> str:
    """``1-4:smaller``: the tile, a colon, the side."""
    return f"{NOTATION[place.tile]}:{SIDE_NOTATION[place.side]}"


def placement_text(tile: Tile, at: Place | None) -> str:
    """``1-4`` for an opening, else ``1-1@1-4:smaller``."""
    if at is None:
        return NOTATION[tile]
    return f"{NOTATION[tile]}@{place_text(at)}"


def moves_text(board: Board) -> str:
    """The placements that rebuild ``board``, in the order they were laid."""
    if board.is_empty:
        return ""
    moves = [NOTATION[board.tiles[0]]]
    moves += [placement_text(joint.new.tile, joint.old) for joint in board.joints()]
    return " ".join(moves)
