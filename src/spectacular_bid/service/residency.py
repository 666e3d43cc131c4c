"""How long a finished match stays in memory after it ended (a server that plays for
hours must not grow).

A finished actor keeps its whole match: the engine's state and, in its room, every version
encoded for each audience — about 100 KB a match. It is kept so that the players' sockets stay
open after the end (a rematch offer, a chat line, the opponent leaving are seen at once) and a
reload finds the same match. That is worth its memory only while somebody has the match open:
a one-hour run of 2,000 matches ended about 19,000, and keeping each for five minutes after the
end, open or not, held some 1,500 of them at any time and grew the server by 160 MB.

So a finished match leaves memory ``finished_ttl_ms`` after it ended, or ``idle_ttl_ms`` after
its last socket closed, whichever is sooner; a socket opened again within that grace (a reload)
gives it back its full time. Once gone, it is re-run from its record when read
(:meth:`~spectacular_bid.service.matches.MatchService.find`), as every ended match is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final

IDLE_TTL_MS: Final = 30_000
"""A finished match nobody has open stays this long: a reload or a quick return finds it."""


class Residency:
    """The eviction timers of the finished matches in memory."""

    def __init__(self, finished_ttl_ms: int, idle_ttl_ms: int, evict: Callable[[str], None]):
        if finished_ttl_ms < 0 or idle_ttl_ms < 0:
            raise ValueError(f"TTLs must be >= 0, got {finished_ttl_ms=} {idle_ttl_ms=}")
        self.finished_ttl_ms = finished_ttl_ms
        self.idle_ttl_ms = idle_ttl_ms
        self._evict = evict
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._until: dict[str, float] = {}
        """Each finished match's end of its full time, in the loop's clock (seconds)."""

    def __contains__(self, match_id: str) -> bool:
        return match_id in self._until

    def ended(self, match_id: str) -> None:
        """The match has just ended: it goes after its full time unless let go sooner."""
        if match_id not in self._until:
            until = asyncio.get_running_loop().time() + self.finished_ttl_ms / 1000
            self._until[match_id] = until
            self._set(match_id, until)

    def unwatched(self, match_id: str) -> None:
        """Its last socket closed: it goes after the idle grace, if that is sooner."""
        until = self._until.get(match_id)
        if until is not None:
            idle_until = asyncio.get_running_loop().time() + self.idle_ttl_ms / 1000
            self._set(match_id, min(until, idle_until))

    def watched(self, match_id: str) -> None:
        """A socket opened it again: its full time is back."""
        until = self._until.get(match_id)
        if until is not None:
            self._set(match_id, until)

    def cancel(self) -> None:
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        self._until.clear()

    def _set(self, match_id: str, at: float) -> None:
        old = self._timers.get(match_id)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self._timers[match_id] = loop.call_at(at, self._fire, match_id)

    def _fire(self, match_id: str) -> None:
        self._timers.pop(match_id, None)
        self._until.pop(match_id, None)
        self._evict(match_id)
