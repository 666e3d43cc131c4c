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
from collections import OrderedDict
from typing import Final

from spectacular_bid.service.ports import MatchStore, Player, PlayerRecord

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


CACHE_LIMIT: Final = 10_000
"""Guests kept in memory, by token hash, the least recently seen dropped first: every request
resolves its token, so the active ones stay, and a server that runs for months does not keep
every guest it ever saw (a dropped one is read from the store again)."""


class Guests:
    def __init__(self, store: MatchStore, cache_limit: int = CACHE_LIMIT) -> None:
        if cache_limit < 1:
            raise ValueError(f"cache_limit must be >= 1, got {cache_limit!r}")
        self._store = store
        self._cache: OrderedDict[str, Player] = OrderedDict()
        self._cache_limit = cache_limit

    def __len__(self) -> int:
        """The guests held in memory."""
        return len(self._cache)

    def _keep(self, digest: str, player: Player) -> None:
        self._cache[digest] = player
        self._cache.move_to_end(digest)
        while len(self._cache) > self._cache_limit:
            self._cache.popitem(last=False)

    async def create(self, name: str, now_ms: int) -> tuple[Player, str]:
        """A new guest with ``name``; returns the player and its token (shown once)."""
        player = Player(uuid.uuid4().hex, clean_name(name))
        token = secrets.token_urlsafe(32)
        digest = token_hash(token)
        await self._store.add_player(PlayerRecord(player.id, player.name, digest, now_ms))
        self._keep(digest, player)
        return player, token

    def forget(self, digest: str) -> None:
        """Stop answering for a token hash the store no longer holds (a guest become an
        account)."""
        self._cache.pop(digest, None)

    async def resolve(self, token: str | None) -> Player | None:
        """The guest a token belongs to, or None for a missing or unknown token."""
        if not token or len(token) > 128:
            return None
        digest = token_hash(token)
        cached = self._cache.get(digest)
        if cached is not None:
            self._cache.move_to_end(digest)
            return cached
        record = await self._store.player_by_token_hash(digest)
        if record is None:
            return None
        player = Player(record.id, record.name)
        self._keep(digest, player)
        return player
