"""Identity without accounts: a guest is a display name and an unguessable bearer token.

The token (32 random bytes, URL-safe) is shown to its owner once and stored only as a SHA-256
hash, so a leaked database does not let anyone act for a seat. A seat belongs to the player
whose token took it.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
import uuid
from typing import Final

from spectacular_bid.service.ports import MatchStore, Player, PlayerRecord
from spectacular_bid.service.sessions import CACHE_LIMIT, TOKEN_CACHE_MS, TokenCache
from spectacular_bid.service.timesource import MsSource, monotonic_ms

NAME_MAX: Final = 24


class DisplayNameError(ValueError):
    """A display name that is empty, too long, or made of control characters."""


def clean_name(raw: str) -> str:
    """Normalize a display name (NFC, inner whitespace folded) or raise with the reason."""
    name = " ".join(unicodedata.normalize("NFC", raw).split())
    if not name:
        raise DisplayNameError("a display name needs at least one visible character")
    if len(name) > NAME_MAX:
        raise DisplayNameError(f"a display name has at most {NAME_MAX} characters, not {len(name)}")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise DisplayNameError(f"a display name may not contain control characters: {raw!r}")
    return name


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Guests:
    """Guests made and found by token. What was read of a token is kept in :attr:`cache`, shared
    with the accounts' sessions (``service.sessions``: briefly, and dropped when a token ends)."""

    def __init__(
        self,
        store: MatchStore,
        cache_limit: int = CACHE_LIMIT,
        *,
        now_ms: MsSource = monotonic_ms,
        cache_ms: int = TOKEN_CACHE_MS,
    ) -> None:
        if cache_limit < 1:
            raise ValueError(f"cache_limit must be >= 1, got {cache_limit!r}")
        self._store = store
        self.cache = TokenCache(now_ms, cache_ms, cache_limit)

    def __len__(self) -> int:
        """The tokens held in memory."""
        return len(self.cache)

    async def create(self, name: str, now_ms: int) -> tuple[Player, str]:
        """A new guest with ``name``; returns the player and its token (shown once)."""
        player = Player(uuid.uuid4().hex, clean_name(name))
        token = secrets.token_urlsafe(32)
        digest = token_hash(token)
        await self._store.add_player(PlayerRecord(player.id, player.name, digest, now_ms))
        self.cache.keep(digest, player, None)
        return player, token

    async def resolve(self, token: str | None) -> Player | None:
        """The guest a token belongs to, or None for a missing or unknown token, or an
        account's session (``Accounts.resolve`` answers for those)."""
        if not token or len(token) > 128:
            return None
        digest = token_hash(token)
        known = self.cache.get(digest)
        if known is not None:
            return known.player if known.session is None else None
        while True:
            generation = self.cache.generation
            record = await self._store.player_by_token_hash(digest)
            if record is None:
                return None
            if not self.cache.ended_since(generation, record.id, digest):
                break  # else the read may predate the end just heard of: read again
        player = Player(record.id, record.name)
        self.cache.keep(digest, player, None)
        return player
