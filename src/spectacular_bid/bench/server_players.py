"""The players of ``specbid bench server``: seats playing random legal moves, and their counts.

Each seat acts only when the server's view says it may, after a think time, like a person; it
times a command from its send to the opponent's receipt of the update it caused (the
latency of BENCHMARKS.md "bench server and bench store"), and a passive seat measures how late the
server flags it (R7.7). A passive seat makes one decision of its own first, at once: a seat that
never decided would not lose on time but be aborted for no first decision at a deadline of its own
(D7), which is not what is measured.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec
import orjson

from spectacular_bid.bench.lean_socket import LeanSocket

_CLEAN: Final = (1000, 1001)
"""Close codes of a connection ended in order; any other before the match's end is a
disconnect."""
RATE_LIMITED_PAUSE_S: Final = 0.2
"""How long a seat waits after ``rate_limited`` before it decides again: two tokens of the
server's default bucket (10 a second). A seat that decided again at once, at think 0, was
refused ``rate_burst`` times in a row and closed for policy, so that a run of a few matches
measured the rate limit, not the server."""


@dataclass
class Stats:
    """What one run counts: the seats' figures (most only while ``measuring``, in the window)
    and the server's CPU time over the window."""

    sent_at: dict[tuple[str, int], tuple[float, int]] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    relay_p99_ms: float | None = None
    """With several servers: the 99th percentile of the relay's delay between them."""
    relay_within_percent: dict[str, float] | None = None
    """With several servers: the share of relayed versions within each bucket's bound."""
    commands: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    flag_lateness_ms: list[int] = field(default_factory=list)
    server_cpu_s: float = 0.0
    client_cpu_s: float = 0.0
    """This process's CPU time over the window: the load generator shares the machine's cores
    with the servers, and what it takes they cannot have."""
    matches_finished: int = 0
    disconnects: int = 0
    flagged_matches: set[str] = field(default_factory=set)
    server_closes: dict[int, int] = field(default_factory=dict)
    ended: dict[str, int] = field(default_factory=dict)
    """Why the played (not time-out) matches ended in the window, as their seats saw it."""
    admitted: int = 0
    """Matches the server created and let the second seat join (OPERATIONS.md "Under load and
    abuse")."""
    refused: int = 0
    """Match creations and joins refused with 503 ``server_busy``."""
    connected_slots: set[int] = field(default_factory=set)
    refused_slots: set[int] = field(default_factory=set)
    """Match slots refused at least once; a refused slot tries again after ``Retry-After``."""
    failed_slots: set[int] = field(default_factory=set)
    """Match slots whose match creation or join failed otherwise at least once."""
    window_start: dict[str, Any] = field(default_factory=dict)
    window_end: dict[str, Any] = field(default_factory=dict)
    """The server's ``/api/health`` as the measured window starts and ends."""
    pauses: dict[tuple[int, int], tuple[int | None, int | None]] = field(default_factory=dict)
    """Every ``(at_ms, lag_ms)`` loop stall the servers reported during the window, with the
    loop thread's ``(cpu_ms, preempted)`` through it (None from a server that does not say)."""
    idle_rss_kb: int = 0
    window_start_rss_kb: int = 0
    window_end_rss_kb: int = 0
    window_log_bytes: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Each server's (pid's) log size as the window opened and as it closed: a server also
    logs before the window, and when it stops (thousands of sockets closing at once)."""
    measuring: bool = False

    def note_pauses(self, health: dict[str, Any]) -> None:
        for p in health.get("pauses", []):
            self.pauses[p["at_ms"], p["lag_ms"]] = (p.get("cpu_ms"), p.get("preempted"))


class PlayOption(msgspec.Struct):
    tile: str
    places: list[str] | None = None


class BidOption(msgspec.Struct):
    amount: int


class Legal(msgspec.Struct):
    plays: list[PlayOption] = []
    can_draw: bool = False
    can_decline: bool = False
    can_accept: bool = False
    bids: list[BidOption] = []


class Clock(msgspec.Struct):
    now_ms: int = 0
    deadline_ms: int | None = None


class Result(msgspec.Struct):
    reason: str = "?"


class Seen(msgspec.Struct):
    """What a seat reads of its view of the match (``match`` of a ``state`` or ``update``)."""

    status: str | None = None
    phase: str | None = None
    audience: str | None = None
    ready: dict[str, bool] | None = None
    legal: Legal | None = None
    clock: Clock | None = None
    result: Result | None = None


class Message(msgspec.Struct):
    """A server message as a seat reads it: only these fields are decoded into objects.

    A browser reads the whole view, but it runs on its own machine; this load generator runs
    on the servers' and would take their cores building the board, hands and move log of
    every frame only to drop them (a quarter of its time, in stack samples)."""

    type: str
    version: int = -1
    code: str = "?"
    match: Seen | None = None


_DECODE: Final = msgspec.json.Decoder(Message).decode


def choose(legal: Legal, rng: random.Random) -> dict[str, Any]:
    """A uniformly random command among everything the server says is legal."""
    options: list[dict[str, Any]] = []
    for play in legal.plays:
        places: list[str | None] = [*play.places] if play.places else [None]
        for at in places:
            options.append({"type": "play", "tile": play.tile, "at": at})
    if legal.can_draw:
        options.append({"type": "draw"})
    if legal.can_decline:
        options.append({"type": "decline"})
    if legal.can_accept:
        options.append({"type": "accept"})
    for bid in legal.bids:
        options.append({"type": "bid", "amount": bid.amount})
    return rng.choice(options)


class Player:
    """One player's connection: acts when the server says it may, after a think time."""

    def __init__(
        self,
        ws: LeanSocket,
        match_id: str,
        stats: Stats,
        think_ms: tuple[int, int],
        rng: random.Random,
        *,
        passive: bool = False,
        start_when: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.ws = ws
        self.match_id = match_id
        self.stats = stats
        self.think_ms = think_ms
        self.rng = rng
        self.passive = passive
        self.start_when = start_when
        """A passive seat presses Start only once this returns: its clock is to run out within
        the window, not as soon as its match is dealt."""
        self.version = -1
        self.pending: asyncio.Task[None] | None = None
        """A passive seat's wait for its moment to press Start."""
        self.next_command: asyncio.Handle | None = None
        """The command this seat sends when its think time is over: a callback on the loop,
        not a task and its wake-up, which took a seat's handling of a message from 5.7 to
        4.6 µs; this load generator shares its cores with the servers (OPERATIONS.md "Running it for
        real")."""
        self.done = asyncio.Event()
        self.decided_at: int | None = None
        """The version a passive seat made its one decision at (D7), once it has."""
        self.last_deadline: int | None = None
        self.last_match: Seen | None = None

    async def run(self) -> None:
        self.ws.on_message = self.on_text
        ended = asyncio.ensure_future(self.done.wait())
        try:
            await asyncio.wait((self.ws.closed, ended), return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
            self.ws.on_message = None
            code = self.ws.close_code
            if code is not None and not self.done.is_set():
                # Closed before the match ended (by the server: 1013, dropped for falling
                # behind; 1006, the connection lost; or the seat could not read a message).
                self.stats.disconnects += self.ws.failure is not None or code not in _CLEAN
                if self.stats.measuring:
                    self.stats.server_closes[code] = self.stats.server_closes.get(code, 0) + 1
            self.done.set()

    def on_text(self, raw: bytes) -> None:
        if not self.done.is_set():
            self.on_message(_DECODE(raw))

    def on_message(self, msg: Message) -> None:
        kind = msg.type
        if kind == "error":
            code = msg.code
            self.stats.errors[code] = self.stats.errors.get(code, 0) + 1
            if self.last_match is not None:
                # Another command got in first (both pressed Start: ``stale_version``), or this
                # one was refused (``rate_limited``): decide again on what we know now, after a
                # think time, like a client that refreshes; a seat that gave up would be flagged.
                pause = RATE_LIMITED_PAUSE_S if code == "rate_limited" else None
                if self.passive and self.decided_at == self.version:
                    self.decided_at = None  # its one decision was refused: it is still owed
                self._decide(self.last_match, pause_s=pause)
            return
        match = msg.match
        if kind not in ("state", "update") or match is None:
            return
        version = msg.version
        if kind == "update":
            key = (self.match_id, version)
            sent = self.stats.sent_at.get(key)
            if sent is not None and sent[1] != id(self):
                del self.stats.sent_at[key]
                if self.stats.measuring:
                    self.stats.latencies_ms.append((time.perf_counter() - sent[0]) * 1000)
        self.version = version
        self.last_match = match
        clock = match.clock or Clock()
        if match.status in ("finished", "aborted"):
            counted = match.audience == "first" and not self.passive  # once per match
            if counted and not self.done.is_set() and self.stats.measuring:
                reason = match.result.reason if match.result is not None else "?"
                self.stats.ended[reason] = self.stats.ended.get(reason, 0) + 1
            if (
                self.passive
                and self.last_deadline is not None
                and self.stats.measuring
                and self.match_id not in self.stats.flagged_matches
            ):
                self.stats.flagged_matches.add(self.match_id)
                self.stats.flag_lateness_ms.append(clock.now_ms - self.last_deadline)
            self.done.set()
            return
        if clock.deadline_ms is not None:
            self.last_deadline = clock.deadline_ms
        self._decide(match)

    def _decide(self, match: Seen, *, pause_s: float | None = None) -> None:
        """Send what to do next on ``match``, after a think time or, when given, ``pause_s``."""
        version = self.version
        if self.passive:
            if match.legal is not None and self.decided_at in (None, version):
                if self.decided_at is None:  # its one decision (D7), at once: its clock is short
                    self.decided_at = version
                    decision = choose(match.legal, self.rng)
                    decision["version"] = version
                    self._send(decision)
                return
            if match.phase == "awaiting_deal" and not self._ready(match):
                if self.start_when is None:
                    self._send({"type": "start", "version": version})
                elif self.pending is None:
                    self.pending = asyncio.get_running_loop().create_task(self._start_when_due())
            return
        if self.next_command is not None:
            self.next_command.cancel()
        command: dict[str, Any] | None = None
        if match.legal is not None:
            command = choose(match.legal, self.rng)
        elif match.phase == "awaiting_deal" and not self._ready(match):
            command = {"type": "start"}
        if command is not None:
            command["version"] = version
            self.next_command = self._act_later(command, pause_s)

    async def _start_when_due(self) -> None:
        assert self.start_when is not None
        await self.start_when()
        self._send({"type": "start", "version": self.version})

    def _ready(self, match: Seen) -> bool:
        return bool(match.ready and match.audience and match.ready.get(match.audience))

    def _act_later(self, command: dict[str, Any], pause_s: float | None) -> asyncio.Handle:
        """Send ``command`` after ``pause_s`` or a think time; without either, in the loop's
        next turn, as a seat's own reaction to a message is not part of handling it."""
        loop = asyncio.get_running_loop()
        if pause_s is not None:
            return loop.call_later(pause_s, self._send, command)
        low, high = self.think_ms
        if high > 0:
            return loop.call_later(self.rng.uniform(low, high) / 1000, self._send, command)
        return loop.call_soon(self._send, command)

    def _send(self, command: dict[str, Any]) -> None:
        key = (self.match_id, command["version"] + 1)
        self.stats.sent_at[key] = (time.perf_counter(), id(self))
        self.stats.commands += self.stats.measuring
        self.ws.send(orjson.dumps(command).decode())


async def spectate(ws: LeanSocket, done: asyncio.Event) -> None:
    """Watch a match until ``done``: a spectator's frames are read off the socket as a
    browser's would be, and dropped."""
    ws.on_message = _drop
    ended = asyncio.ensure_future(done.wait())
    try:
        await asyncio.wait((ws.closed, ended), return_when=asyncio.FIRST_COMPLETED)
    finally:
        ended.cancel()


def _drop(_message: bytes) -> None:
    pass
