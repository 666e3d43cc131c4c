"""Where decks come from: a cryptographic shuffle, or a seeded one that tests can predict.

The rules engine deals from whatever deck it is handed (R2.1); this module is the only
place a shuffle happens.
"""

from __future__ import annotations

import os
import random
import secrets
from collections.abc import Callable

from spectacular_bid.rules.tiles import TILES, Tile

DeckSource = Callable[[], tuple[Tile, ...]]

_KEY_BYTES = 16


def secure_deck() -> tuple[Tile, ...]:
    """A fresh order of all 28 tiles from the operating system's CSPRNG (R2.1).

    Each tile gets a 128-bit key, all from one read of the CSPRNG, and the deck is the tiles in
    key order: every order equally likely but for two equal keys (about 2**-119 a deck). One
    system call a deck, where ``SystemRandom().shuffle`` made one a swap: a burst of rounds
    starting in one turn of the event loop paid 27 each (65 µs a round with its salt).
    """
    pool = os.urandom(_KEY_BYTES * len(TILES))
    order = sorted(range(len(TILES)), key=lambda i: pool[i * _KEY_BYTES : (i + 1) * _KEY_BYTES])
    return tuple(TILES[i] for i in order)


def new_salt() -> str:
    """32 random hex digits hiding a round's deck until it ends (provably fair deals, D4)."""
    return secrets.token_hex(16)


def seeded_decks(seed: int) -> DeckSource:
    """A predictable sequence of decks, for tests only (a test-only setting, off by default)."""
    rng = random.Random(seed)

    def next_deck() -> tuple[Tile, ...]:
        deck = list(TILES)
        rng.shuffle(deck)
        return tuple(deck)

    return next_deck
