"""Provably fair deals: commit to each round's deck before play, reveal it after (D4).

When a round is dealt every seat and spectator receives ``sha256(salt ":" deck)`` where ``deck``
is the 28 tiles in dealt order written in move notation and separated by single spaces, and
``salt`` is 32 random hex digits. When the round ends the salt and the deck are published, and
anyone can recompute the hash: the service could not have changed the deck after committing.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from spectacular_bid.rules.notation import tile_text
from spectacular_bid.rules.tiles import Tile
from spectacular_bid.service.commands import DealSeed
from spectacular_bid.service.events import DeckCommitted, DeckRevealed


def deck_text(deck: Sequence[Tile]) -> str:
    return " ".join(tile_text(t) for t in deck)


def deck_commitment(deck: Sequence[Tile], salt: str) -> str:
    return hashlib.sha256(f"{salt}:{deck_text(deck)}".encode()).hexdigest()


def verify_commitment(commitment: str, deck: Sequence[Tile], salt: str) -> bool:
    return hmac.compare_digest(commitment, deck_commitment(deck, salt))


def committed(round_number: int, seed: DealSeed) -> DeckCommitted:
    """The commitment every audience receives at a deal."""
    return DeckCommitted(round_number, deck_commitment(seed.deck, seed.salt))


def revealed(round_number: int, commitment: str | None, seed: DealSeed) -> DeckRevealed:
    """What anyone needs at a round's end to check its commitment (D4)."""
    return DeckRevealed(round_number, commitment, seed.salt, seed.deck)
