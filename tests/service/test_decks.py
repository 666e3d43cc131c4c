"""Decks come from the operating system's CSPRNG, every order equally likely (R2.1)."""

from __future__ import annotations

import os
from collections import Counter

import pytest

from spectacular_bid.rules.tiles import TILES, Tile
from spectacular_bid.service.decks import secure_deck

DECKS = 5_600
"""200 decks a tile for each place counted below."""
CHI_SQUARE_27_P_1E7 = 80.0
"""A bound a fair shuffle passes but once in ten million runs (27 degrees of freedom)."""


def _chi_square(counts: Counter[Tile], total: int) -> float:
    expected = total / len(TILES)
    return sum((counts[tile] - expected) ** 2 / expected for tile in TILES)


def test_a_deck_holds_every_tile_once() -> None:
    for _ in range(200):
        deck = secure_deck()
        assert len(deck) == len(TILES)
        assert set(deck) == set(TILES)


def test_every_tile_is_as_likely_first_as_last() -> None:
    dealt = [secure_deck() for _ in range(DECKS)]
    for place in (0, 6, 13, 27):  # a first hand's first and last tile, the middle, the bottom
        counts = Counter(deck[place] for deck in dealt)
        assert _chi_square(counts, DECKS) < CHI_SQUARE_27_P_1E7, place
    assert len(set(dealt)) == DECKS  # 28! orders: a repeat would mean a tiny or a stuck source


def test_a_deck_is_one_read_of_the_system_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst of rounds starting in one turn of the event loop paid a system call a swap."""
    reads: list[int] = []
    real = os.urandom

    def counted(n: int) -> bytes:
        reads.append(n)
        return real(n)

    monkeypatch.setattr(os, "urandom", counted)
    secure_deck()
    assert len(reads) == 1
    assert reads[0] >= 16 * len(TILES)  # 128 bits a tile: equal keys about 2**-119 a deck
