"""Tiles of the double-six set (R2.1).

A :class:`Tile` is an ``int`` from 0 to 27 ordered by (low half, high half), so tiles sort the way
Appendix A sorts them and serve directly as indexes into the precomputed tables below and as bit
positions in hand masks. Only the 28 interned instances in :data:`TILES` exist; build one with
:meth:`Tile.of` or :func:`spectacular_bid.rules.notation.parse_tile`, which reads the ``1-4``
notation written from :data:`NOTATION`.
"""

from __future__ import annotations

from typing import Final

from spectacular_bid.rules.errors import NotationError

MAX_PIP: Final = 6


class Tile(int):
    """One domino, written low half first: ``[1|4]``."""

    __slots__ = ()

    @property
    def low(self) -> int:
        return LOW[self]

    @property
    def high(self) -> int:
        return HIGH[self]

    @property
    def pips(self) -> int:
        return PIPS[self]

    @property
    def is_double(self) -> bool:
        return IS_DOUBLE[self]

    def has(self, value: int) -> bool:
        """True when one of the halves shows ``value`` (R3.1)."""
        return bool(VALUE_MASK[value] >> self & 1)

    @classmethod
    def of(cls, a: int, b: int) -> Tile:
        """The tile with halves ``a`` and ``b`` in either order."""
        if not (0 <= a <= MAX_PIP and 0 <= b <= MAX_PIP):
            raise NotationError(f"invalid tile halves: {a!r}, {b!r}")
        return BY_HALVES[a][b]

    def __str__(self) -> str:
        return NAMES[self]

    def __repr__(self) -> str:
        return f"Tile.of({LOW[self]}, {HIGH[self]})"


def _build() -> tuple[list[Tile], list[int], list[int]]:
    tiles: list[Tile] = []
    lows: list[int] = []
    highs: list[int] = []
    for low in range(MAX_PIP + 1):
        for high in range(low, MAX_PIP + 1):
            tiles.append(int.__new__(Tile, len(tiles)))
            lows.append(low)
            highs.append(high)
    return tiles, lows, highs


_tiles, _lows, _highs = _build()
TILES: Final[tuple[Tile, ...]] = tuple(_tiles)
LOW: Final[tuple[int, ...]] = tuple(_lows)
HIGH: Final[tuple[int, ...]] = tuple(_highs)
PIPS: Final[tuple[int, ...]] = tuple(lo + hi for lo, hi in zip(_lows, _highs, strict=True))
IS_DOUBLE: Final[tuple[bool, ...]] = tuple(lo == hi for lo, hi in zip(_lows, _highs, strict=True))
NAMES: Final[tuple[str, ...]] = tuple(f"[{lo}|{hi}]" for lo, hi in zip(_lows, _highs, strict=True))
"""Each tile in running text, as the board description writes it: ``[1|4]`` (Appendix A)."""
NOTATION: Final[tuple[str, ...]] = tuple(f"{lo}-{hi}" for lo, hi in zip(_lows, _highs, strict=True))
"""Each tile in placement notation, low half first: ``1-4`` (Appendix A)."""
BY_HALVES: Final[tuple[tuple[Tile, ...], ...]] = tuple(
    tuple(TILES[next(i for i in range(28) if {LOW[i], HIGH[i]} == {a, b})] for b in range(7))
    for a in range(7)
)
VALUE_MASK: Final[tuple[int, ...]] = tuple(
    sum(1 << t for t in TILES if LOW[t] == v or HIGH[t] == v) for v in range(MAX_PIP + 1)
)
"""Bit mask of the tiles that show a value: ``hand_mask & VALUE_MASK[v]`` are the hand's matches."""
DOUBLES: Final[tuple[Tile, ...]] = tuple(t for t in TILES if IS_DOUBLE[t])
ALL_MASK: Final = (1 << len(TILES)) - 1
TILE_COUNT: Final = len(TILES)


def tiles_in(mask: int) -> list[Tile]:
    """The tiles of a bit mask, in Appendix A order."""
    out: list[Tile] = []
    while mask:
        low_bit = mask & -mask
        out.append(TILES[low_bit.bit_length() - 1])
        mask ^= low_bit
    return out
