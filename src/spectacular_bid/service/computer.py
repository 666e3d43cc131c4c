"""The computer opponents as players (PROTOCOL.md "POST /api/matches"): one stored player per level.

A computer seat is taken by an ordinary :class:`Player`, so the match, its record, its archive
lines and its replay need nothing new: the level is read back from the player's id. The ids have
the form of every other player id (32 hex digits, ``service/profiles.py``), so a profile page
and an exported record treat them alike; they are fixed (a name-based UUID), so every server
process and every restart agrees on them. Each has a random token hash that no one was ever
given: nobody can act for a computer's seat (the bot seat acts through the service itself).
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from typing import Final

from spectacular_bid.bots import HIGHEST, LOWEST
from spectacular_bid.service.ports import MatchStore, Player, PlayerRecord, StorageError

LEVELS: Final = tuple(range(LOWEST, HIGHEST + 1))
_NAMESPACE: Final = uuid.UUID("6c1b7d2e-4f0a-5b39-9e8d-53a1c0f2b7e4")


def computer(level: int) -> Player:
    """The player that takes the seat of the computer at ``level``."""
    if isinstance(level, bool) or level not in LEVELS:
        raise ValueError(f"a computer's level is {LOWEST} to {HIGHEST}, not {level!r}")
    return Player(
        uuid.uuid5(_NAMESPACE, f"computer level {level}").hex, f"Computer (level {level})"
    )


_BY_ID: Final = {computer(level).id: level for level in LEVELS}


def level_of(player_id: str | None) -> int | None:
    """The computer level that ``player_id`` plays at, or None for a person."""
    return None if player_id is None else _BY_ID.get(player_id)


async def ensure_computers(store: MatchStore, now_ms: int) -> None:
    """Store the computer players that are not stored yet (once per database). Two processes
    starting together may both add one: the loser of that race finds it stored and goes on."""
    wanted = [computer(level) for level in LEVELS]
    stored = await store.players([p.id for p in wanted])
    for player in wanted:
        if player.id in stored:
            continue
        unusable = hashlib.sha256(secrets.token_bytes(32)).hexdigest()
        try:
            await store.add_player(PlayerRecord(player.id, player.name, unusable, now_ms))
        except StorageError:
            if player.id not in await store.players([player.id]):
                raise
