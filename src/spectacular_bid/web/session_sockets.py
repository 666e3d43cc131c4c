"""The open match sockets of each token, so that a token's end closes them (docs/PROTOCOL.md,
close code 4001).

A socket authenticates once, at its handshake; after that nothing asks the store about it. So
every socket that acts for a player holds its token here, and when any process announces the
end of tokens (``service.sessions``) the sockets holding them are closed, on every process.
After a gap in the announcements (the bus reconnected) each token held is read from the store
again, and the sockets of those that ended are closed too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from spectacular_bid.service.ports import Player
from spectacular_bid.service.sessions import EndedTokens

log = logging.getLogger(__name__)


class Held:
    """One open socket's hold on its token: ended once, and then ``on_end`` is called (the
    socket sets it once it runs; one ended before that sees ``ended``)."""

    __slots__ = ("ended", "on_end", "player_id", "token_hash")

    def __init__(self, token_hash: str, player_id: str) -> None:
        self.token_hash = token_hash
        self.player_id = player_id
        self.ended = False
        self.on_end: Callable[[], None] | None = None

    def end(self) -> None:
        if self.ended:
            return
        self.ended = True
        if self.on_end is not None:
            self.on_end()


class SessionSockets:
    """Player id → token hash → the sockets holding that token."""

    def __init__(self, names_anyone: Callable[[str], Awaitable[bool]]) -> None:
        self._names_anyone = names_anyone
        """Whether the store still holds a token (by its hash), for the check after a gap."""
        self._held: dict[str, dict[str, set[Held]]] = {}
        self._checking: asyncio.Task[None] | None = None

    def hold(self, token_hash: str, player: Player) -> Held:
        held = Held(token_hash, player.id)
        self._held.setdefault(player.id, {}).setdefault(token_hash, set()).add(held)
        return held

    def release(self, held: Held) -> None:
        tokens = self._held.get(held.player_id)
        if tokens is None:
            return
        sockets = tokens.get(held.token_hash)
        if sockets is not None:
            sockets.discard(held)
            if not sockets:
                del tokens[held.token_hash]
        if not tokens:
            del self._held[held.player_id]

    def end(self, ended: EndedTokens) -> None:
        """Close the sockets of the ended tokens (a listener of ``SessionEnds``)."""
        tokens = self._held.get(ended.player_id)
        if tokens is None:
            return
        for token_hash, sockets in list(tokens.items()):
            if ended.covers(ended.player_id, token_hash):
                for held in list(sockets):
                    held.end()

    def recheck(self) -> None:
        """After a gap in the announcements: read every token held from the store, in the
        background, and close the sockets of those that ended meanwhile."""
        if self._checking is None or self._checking.done():
            self._checking = asyncio.create_task(self._recheck(), name="session-sockets-recheck")

    async def close(self) -> None:
        if self._checking is not None:
            self._checking.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checking

    async def _recheck(self) -> None:
        tokens = [(p, t) for p, by_token in self._held.items() for t in list(by_token)]
        for player_id, token_hash in tokens:
            try:
                live = await self._names_anyone(token_hash)
            except Exception:  # the store is down: the next gap, or the token's end, will tell
                log.warning("sessions: cannot check the sockets' tokens now", exc_info=True)
                return
            if not live:
                self.end(EndedTokens(player_id, token_hash=token_hash))
