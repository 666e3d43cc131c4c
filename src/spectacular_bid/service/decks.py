"""Where decks come from: a cryptographic shuffle, or a seeded one that tests can predict.

The rules engine deals from whatever deck it is handed (STYLE rule 2); this module is the only
place a shuffle happens.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable

from spectacular_bid.rules.tiles import TILES, Tile

DeckSource = Callable[[], tuple[Tile, ...]]

_SYSTEM_RANDOM = secrets.SystemRandom()


def secure_deck() -> tuple[Tile, ...]:
    """A fresh order of all 28 tiles from the operating system's CSPRNG (R2.1)."""
    deck = list(TILES)
    _SYSTEM_RANDOM.shuffle(deck)
    return tuple(deck)


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
