"""Provably fair deals: commit to each round's deck before play, reveal it after (issue 4, D4).

When a round is dealt every seat and spectator receives ``sha256(salt ":" deck)`` where ``deck``
is the 28 tiles in dealt order written in move notation and separated by single spaces, and
``salt`` is 32 random hex digits. When the round ends the salt and the deck are published, and
anyone can recompute the hash: the service could not have changed the deck after committing.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

from spectacular_bid.rules.tiles import Tile


def new_salt() -> str:
    return secrets.token_hex(16)


def deck_text(deck: Sequence[Tile]) -> str:
    return " ".join(t.notation() for t in deck)


def deck_commitment(deck: Sequence[Tile], salt: str) -> str:
    return hashlib.sha256(f"{salt}:{deck_text(deck)}".encode()).hexdigest()


def verify_commitment(commitment: str, deck: Sequence[Tile], salt: str) -> bool:
    return secrets.compare_digest(commitment, deck_commitment(deck, salt))


def committed_event(round_number: int, deck: Sequence[Tile], salt: str) -> dict[str, object]:
    """The ``deck_committed`` event every audience receives at a deal."""
    return {
        "type": "deck_committed",
        "round": round_number,
        "commitment": deck_commitment(deck, salt),
    }


def revealed_event(
    round_number: int, commitment: str | None, deck: Sequence[Tile], salt: str
) -> dict[str, object]:
    """The ``deck_revealed`` event at a round's end: what anyone needs to check the commitment."""
    return {
        "type": "deck_revealed",
        "round": round_number,
        "commitment": commitment,
        "salt": salt,
        "deck": [t.notation() for t in deck],
    }
