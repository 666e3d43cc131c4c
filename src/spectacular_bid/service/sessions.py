"""One truth for tokens: the store says who a token is; a process only remembers it briefly.

Every request names its player by a token (a guest's, or an account session's; docs/PROTOCOL.md,
Identity), and reading the store for each would cost a query per request, so each process keeps
what it read in a :class:`TokenCache`. Several processes share one store, and a token can end on
any of them (a logout, a new password, a guest become an account, later a ban), so an entry is
trusted for :data:`TOKEN_CACHE_MS` only and is dropped at once when any process announces the
end (:class:`SessionEnds`, over the bus when there is one). The store is written first and the
end announced after, so a process that drops an entry and reads again reads the end.

:data:`TOKEN_CACHE_MS` is 1 s: the longest an ended token may still be honoured by a process
that did not hear of its end (Redis down or absent, a message lost in a reconnect), and the
bound PROTOCOL.md promises. It costs at most one indexed read per token in use per second per
process; a browser in the lobby asks every 2.5 s, and an account's request read the store
every time before this cache held sessions and guests together. Open sockets authenticate once,
at their handshake, and are closed by the announcement (the web layer listens).
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from spectacular_bid.service.bus import Bus
from spectacular_bid.service.ports import Player, SessionRecord
from spectacular_bid.service.timesource import MsSource

log = logging.getLogger(__name__)

TOKEN_CACHE_MS: Final = 1_000
"""How long a process trusts what it read of a token without reading the store again."""
CACHE_LIMIT: Final = 10_000
"""Tokens kept in memory, the least recently used dropped first: a server that runs for months
does not keep every token it ever saw (a dropped one is read from the store again)."""
CHANNEL: Final = "specbid:sessions"
"""The bus channel on which every process announces the tokens it ended, and hears the others'."""
RECENT_ENDS: Final = 256
"""Ends remembered for :meth:`TokenCache.ended_since`: more during one read of the store make
that read untrusted whatever token it was for."""


@dataclass(frozen=True, slots=True)
class EndedTokens:
    """Tokens of one player that no longer name anyone: exactly ``token_hash`` (a logout, a
    guest's token retired by its new account), or, with ``token_hash`` None, every one of the
    player's tokens but ``keep`` (a new password keeps the session that set it; a ban keeps
    none). The one message type of :data:`CHANNEL`."""

    player_id: str
    token_hash: str | None = None
    keep: str | None = None

    def covers(self, player_id: str, token_hash: str) -> bool:
        if player_id != self.player_id:
            return False
        if self.token_hash is not None:
            return token_hash == self.token_hash
        return token_hash != self.keep

    def text(self) -> str:
        body: dict[str, str] = {"player": self.player_id}
        if self.token_hash is not None:
            body["token"] = self.token_hash
        if self.keep is not None:
            body["keep"] = self.keep
        return json.dumps(body, separators=(",", ":"))

    @classmethod
    def parse(cls, text: str) -> EndedTokens:
        """The message in ``text``; :class:`ValueError` naming what is wrong with it."""
        body = json.loads(text)
        if not isinstance(body, dict) or not isinstance(body.get("player"), str):
            raise ValueError(f"an ended-tokens message names its player: {text[:200]!r}")
        fields = {"player": "player_id", "token": "token_hash", "keep": "keep"}
        unknown = set(body) - set(fields)
        if unknown:
            raise ValueError(f"unknown fields in an ended-tokens message: {sorted(unknown)}")
        values = {fields[key]: value for key, value in body.items()}
        if not all(isinstance(value, str) for value in values.values()):
            raise ValueError(f"an ended-tokens message holds strings only: {text[:200]!r}")
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Known:
    """What a process read of a token: its player, the account's session (None for a guest's
    token), and when it was read (monotonic ms)."""

    player: Player
    session: SessionRecord | None
    read_ms: int


class TokenCache:
    """Token hash → :class:`Known`, each trusted for ``ttl_ms``, at most ``limit`` of them.

    A read of the store that overlapped an end of its token must not be kept: it may predate the
    end's commit. ``generation`` counts the ends heard; a reader notes it before reading and asks
    :meth:`ended_since` after."""

    def __init__(
        self, now_ms: MsSource, ttl_ms: int = TOKEN_CACHE_MS, limit: int = CACHE_LIMIT
    ) -> None:
        if limit < 1 or ttl_ms < 0:
            raise ValueError(f"need limit >= 1 and ttl_ms >= 0, got {limit!r}, {ttl_ms!r}")
        self.now_ms = now_ms
        self.ttl_ms = ttl_ms
        self.limit = limit
        self.generation = 0
        self._known: OrderedDict[str, Known] = OrderedDict()
        self._recent: deque[tuple[int, EndedTokens | None]] = deque(maxlen=RECENT_ENDS)
        """The latest ends with the generation each began; None for "every token"."""

    def __len__(self) -> int:
        return len(self._known)

    def get(self, token_hash: str) -> Known | None:
        """What was read of the token, if that is recent enough to trust."""
        known = self._known.get(token_hash)
        if known is None:
            return None
        if self.now_ms() - known.read_ms >= self.ttl_ms:
            del self._known[token_hash]
            return None
        self._known.move_to_end(token_hash)
        return known

    def keep(
        self,
        token_hash: str,
        player: Player,
        session: SessionRecord | None,
        read_ms: int | None = None,
    ) -> None:
        """Remember what was read of the token now, or at ``read_ms`` (an entry changed in
        place keeps the time it was read: it is trusted no longer for being used)."""
        read_ms = self.now_ms() if read_ms is None else read_ms
        self._known[token_hash] = Known(player, session, read_ms)
        self._known.move_to_end(token_hash)
        while len(self._known) > self.limit:
            self._known.popitem(last=False)

    def drop(self, ended: EndedTokens) -> None:
        """Forget the ended tokens (a scan of all for a player's "all but one": rare)."""
        self._recent.append((self.generation, ended))
        self.generation += 1
        if ended.token_hash is not None:
            self._known.pop(ended.token_hash, None)
            return
        for token_hash, known in list(self._known.items()):
            if ended.covers(known.player.id, token_hash):
                del self._known[token_hash]

    def clear(self) -> None:
        """Forget every token: ends may have been missed (the bus lost its connection)."""
        self._recent.append((self.generation, None))
        self.generation += 1
        self._known.clear()

    def ended_since(self, generation: int, player_id: str, token_hash: str) -> bool:
        """Whether an end heard since ``generation`` may cover the token (then a read of the
        store begun before it is not to be trusted)."""
        if generation == self.generation:
            return False
        if not self._recent or self._recent[0][0] > generation:
            return True  # more ends than remembered
        return any(
            ended is None or ended.covers(player_id, token_hash)
            for began, ended in self._recent
            if began >= generation
        )


Listener = Callable[[EndedTokens], None]


class SessionEnds:
    """Where the end of tokens is announced: to this process's listeners (its token cache, its
    open sockets) at once, and over the bus, when there is one, to every other process's.

    Without a bus (one process) the announcement stays here. A bus that lost its connection may
    have lost announcements: on its reconnection the ``on_gap`` listeners forget or re-check
    everything they hold."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._gap_listeners: list[Callable[[], None]] = []
        self._bus: Bus | None = None

    def on_end(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def on_gap(self, listener: Callable[[], None]) -> None:
        self._gap_listeners.append(listener)

    async def attach(self, bus: Bus) -> None:
        """Announce on ``bus`` from now on, and hear the other processes' announcements."""
        self._bus = bus
        bus.on_reconnect(self.gap)
        await bus.listen(CHANNEL, self.heard)

    def end(self, ended: EndedTokens) -> None:
        """Announce ``ended``, once the store holds the end."""
        self._apply(ended)
        if self._bus is not None:
            self._bus.send(CHANNEL, ended.text())

    def heard(self, text: str) -> None:
        """Another process's announcement (this process's own comes back too: it is idempotent).
        One that cannot be read is a gap: it ended something, this process cannot tell what."""
        try:
            ended = EndedTokens.parse(text)
        except ValueError as exc:
            log.warning("sessions: an announcement that cannot be read: %s", exc)
            self.gap()
            return
        self._apply(ended)

    def gap(self) -> None:
        for listener in self._gap_listeners:
            try:
                listener()
            except Exception:
                log.exception("sessions: a listener failed on a gap")

    def _apply(self, ended: EndedTokens) -> None:
        for listener in self._listeners:
            try:
                listener(ended)
            except Exception:
                log.exception("sessions: a listener failed on %s", ended)
