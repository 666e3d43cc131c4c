"""The load of ``specbid bench server``: many matches played over HTTP and WebSockets at once.

The driver makes two guests per match slot, creates and joins invite matches, and connects both
seats and one spectator to each; when a match ends the slot starts another. A few extra matches,
started one after another over the measured window, are left to time out (R7.7: never early).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import random
import time
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from spectacular_bid.bench.lean_http import LeanHttp, Reply
from spectacular_bid.bench.lean_socket import LeanSocket, abort_connected, open_socket
from spectacular_bid.bench.server_players import Player, Stats, spectate
from spectacular_bid.bench.server_process import cpu_seconds, logged_bytes, rss_kb

_TIMEOUT_BANK_MS = 1_500
_TIMEOUT_DELAY_MS = 500
_TIMEOUT_SETTLE_S = 4.0
"""A time-out match started this long before the window ends still flags inside it."""
WARMUP_S = 5.0
"""Play before the window by default: the matches are dealt and under way."""
_SETTLE_S = 1.0
"""The server's loop must have been quiet this long before the window opens."""
_SETTLE_MAX_S = 30.0
"""How long the window waits at most for the server's loop to be quiet."""
_FREEZE_EVERY_S = 10.0
"""During the warm-up this process collects and freezes its own objects this often, so that each
of its collections walks seconds of objects, not the whole warm-up's."""
_PAUSES_EVERY_S = 60.0
"""A server lists only its latest 256 stalls of 20 ms or more (``service.admission``), a few
minutes' worth at 2,000 matches: over a long window they are read this often, so that the
longest stall is not lost among later ones (a one-hour run listed only its last ~15 minutes)."""
_SETUP_S = 300
"""How long every match slot may take to connect before the window starts anyway."""
_OPEN_TIMEOUT_S = 60.0
"""How long a socket may take to connect and complete its handshake while thousands open."""


class Placement(Enum):
    """Which server each socket of a match uses when there are several (OPERATIONS.md "Running it
    for real")."""

    APART = "apart"
    """The match is made on its slot's server; the second seat and the spectator use the next
    one, so that half the commands and two of every three sockets' frames go through the
    relay: the worst case for the relay, and the default."""
    OWNER = "owner"
    """Every socket on the server that made the match, its owner: nothing is relayed. With the
    same load as :attr:`APART`, the difference between the two prices the relay, and this one
    is the ceiling a relay that cost nothing would give."""


@dataclass(frozen=True)
class Load:
    """What a run asks of the server: its size, the players' think time, and the seed."""

    matches: int
    """Match slots played at once, each starting a new match when its last one ends."""
    seconds: float
    """The measured window."""
    think_ms: tuple[int, int]
    """A seat's think time before each command is drawn uniformly from this range."""
    timeout_matches: int
    seed: int
    warmup_s: float = WARMUP_S
    """Play before the window opens. A soak sets it long enough for the matches to reach their
    steady state (some ended and replaced, ended ones leaving memory after the finished-match
    TTL), so that the window's memory growth is what a leak would show, not the first matches
    growing their logs."""
    placement: Placement = Placement.APART
    """Where each match's sockets are when there are several servers."""


def longest_run_s(load: Load) -> float:
    """How long a run can take at most, from its first connection to its window's end."""
    return _SETUP_S + load.warmup_s + _SETTLE_MAX_S + load.seconds + _TIMEOUT_SETTLE_S


class Retry(Exception):  # noqa: N818 - the server's answer, not a failure of the run
    """A new match did not come about; the slot tries again after ``retry_after_s``."""

    def __init__(self, retry_after_s: float) -> None:
        super().__init__(retry_after_s)
        self.retry_after_s = retry_after_s


class Refused(Retry):
    """The server refused a new match or a join with 503 ``server_busy``."""


class Failed(Retry):
    """Any other refusal (e.g. ``match_over``: the join timeout, D3, ended a match whose join
    was refused for a minute); counted in the report's ``errors`` as ``http_<status>``."""


def _retry_after_s(response: Reply) -> float:
    text = response.headers.get("retry-after", "")
    return float(text) if text.isdigit() else 5.0


class Driver:
    """One run's HTTP client and connection gates, and the loop each match slot plays."""

    def __init__(
        self,
        bases: list[str],
        stats: Stats,
        think_ms: tuple[int, int],
        seed: int,
        placement: Placement = Placement.APART,
    ) -> None:
        self.bases = bases
        self.placement = placement
        self.stats = stats
        self.think_ms = think_ms
        self.rng = random.Random(seed)
        self.http_gate = asyncio.Semaphore(32)
        """At most this many requests at once to all the servers together: thousands of slots
        making their matches at the start must not all land in one burst, which the servers'
        admission control refuses (their loop lags) and the slots then retry in waves."""
        self.clients = [LeanHttp(base, timeout_s=60, gate=self.http_gate) for base in bases]
        self.window_open = asyncio.Event()
        """Set when the measured window opens: time-out matches start their clocks after it."""
        self.connect_gate = asyncio.Semaphore(64)

    def server_of(self, index: int, seat: int) -> int:
        """Which server a slot's seat (0, 1; 2 the spectator) uses: the match is made on the
        slot's own; as :attr:`placement` says, the second seat and the spectator use the next
        one (with several servers their commands and frames go through the relay)
        or the same."""
        apart = seat > 0 and self.placement is Placement.APART
        return (index + apart) % len(self.bases)

    async def guest(self, name: str, server: int = 0) -> str:
        r = await self.clients[server].post("/api/session", {"name": name})
        r.raise_for_status()
        token: str = r.json()["token"]
        return token

    async def _post(
        self, path: str, body: dict[str, Any] | None, token: str, server: int = 0
    ) -> Reply:
        return await self.clients[server].post(path, body, token)

    async def new_match(
        self, tokens: tuple[str, str], clock: dict[str, int] | None, until: float, index: int = 0
    ) -> str:
        """A created and joined match; raise :class:`Refused` if the server is busy. A refused
        join is tried again, as a person would, until it is let in or the run ends."""
        body = {"mode": "invite", **(clock or {})}
        r = await self._post("/api/matches", body, tokens[0], self.server_of(index, 0))
        if r.status_code == 503:
            self.stats.refused += 1
            raise Refused(_retry_after_s(r))
        self._check(r)
        match_id: str = r.json()["id"]
        while True:
            joiner = self.server_of(index, 1)
            r = await self._post(f"/api/matches/{match_id}/join", None, tokens[1], joiner)
            if r.status_code != 503:
                break
            self.stats.refused += 1
            if time.perf_counter() >= until:
                raise Refused(0.0)
            await asyncio.sleep(_retry_after_s(r))
        self._check(r)
        self.stats.admitted += 1
        return match_id

    def _check(self, response: Reply) -> None:
        if response.is_success:
            return
        key = f"http_{response.status_code}"
        self.stats.errors[key] = self.stats.errors.get(key, 0) + 1
        raise Failed(1.0)

    async def health(self) -> dict[str, Any]:
        """The servers' own load readings (``GET /api/health``), summed over the servers: their
        sockets and live matches added, their pauses together."""
        readings = []
        for client in self.clients:
            r = await client.get("/api/health")
            r.raise_for_status()
            readings.append(r.json())
        health: dict[str, Any] = readings[0]
        for other in readings[1:]:
            for key in ("open_sockets", "max_live_matches"):
                if isinstance(health.get(key), int) and isinstance(other.get(key), int):
                    health[key] += other[key]
            health["pauses"] = [*health.get("pauses", []), *other.get("pauses", [])]
        return health

    async def relay_counts(self) -> list[tuple[float, float]]:
        """``(upper bound in s, cumulative count)`` of the servers' relay delay histogram,
        summed over the servers (``/metrics``)."""
        totals: dict[float, float] = {}
        for client in self.clients:
            r = await client.get("/metrics")
            r.raise_for_status()
            for bound, count in relay_buckets(r.text):
                totals[bound] = totals.get(bound, 0.0) + count
        return sorted(totals.items())

    async def open_ws(self, match_id: str, token: str | None, server: int = 0) -> LeanSocket:
        query = f"?token={token}" if token else ""
        ws_base = self.bases[server].replace("http://", "ws://")
        async with self.connect_gate:
            return await open_socket(f"{ws_base}/ws/matches/{match_id}{query}", _OPEN_TIMEOUT_S)

    async def after_window_opens(self, seconds: float) -> None:
        await self.window_open.wait()
        await asyncio.sleep(seconds)

    async def play_matches(
        self, index: int, until: float, *, passive: bool = False, start_after_s: float = 0.0
    ) -> None:
        tokens = (
            await self.guest(f"p{index}a", self.server_of(index, 0)),
            await self.guest(f"p{index}b", self.server_of(index, 1)),
        )
        clock = {"bank_ms": _TIMEOUT_BANK_MS, "delay_ms": _TIMEOUT_DELAY_MS} if passive else None
        first = not passive
        while time.perf_counter() < until:
            try:
                match_id = await self.new_match(tokens, clock, until, index)
            except Retry as retry:
                refused = isinstance(retry, Refused)
                (self.stats.refused_slots if refused else self.stats.failed_slots).add(index)
                # Not all at the same moment: a wave of slots refused together would come
                # back together and be refused together again, as clients without jitter do.
                await asyncio.sleep(retry.retry_after_s * self.rng.uniform(1.0, 1.5))
                continue
            sockets: list[LeanSocket] = []
            tasks: list[asyncio.Task[None]] = []
            try:
                for seat, token in enumerate((*tokens, None)):
                    server = self.server_of(index, seat)
                    sockets.append(await self.open_ws(match_id, token, server))
                start_when = (lambda: self.after_window_opens(start_after_s)) if passive else None
                seats = [
                    Player(
                        ws,
                        match_id,
                        self.stats,
                        self.think_ms,
                        self.rng,
                        passive=passive,
                        start_when=start_when,
                    )
                    for ws in sockets[:2]
                ]
                done = asyncio.Event()
                tasks = [asyncio.create_task(s.run()) for s in seats]
                tasks.append(asyncio.create_task(spectate(sockets[2], done)))
                if first:
                    self.stats.connected_slots.add(index)
                    first = False
                remaining = until - time.perf_counter()
                waits = [asyncio.create_task(s.done.wait()) for s in seats]
                try:
                    await asyncio.wait(waits, timeout=max(0.1, remaining))
                finally:
                    for wait in waits:
                        wait.cancel()
                self.stats.matches_finished += all(s.done.is_set() for s in seats)
                done.set()
            finally:
                # Also when the run ends (this task is cancelled): every socket is closed.
                for ws in sockets:
                    with contextlib.suppress(Exception):
                        await ws.close()
                for task in tasks:
                    task.cancel()
            if passive:
                return


async def cancel_all(tasks: list[asyncio.Task[None]], every_s: float = 1.0) -> None:
    """Cancel ``tasks`` until every one has ended, again each ``every_s``.

    Once was not always enough: Python 3.11's ``asyncio.wait_for`` returns the result, and
    drops the cancellation, when the cancellation comes in the same turn of the loop as the
    result (fixed in 3.12). A slot cancelled that way as one of its sockets closed played on,
    and the run waited for it: twice in a dozen saturated runs, minutes after the window. Its
    waits now use ``asyncio.timeout``, which keeps the cancellation; this stays so that no
    other wait can hang a run so."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=every_s)
    await asyncio.gather(*tasks, return_exceptions=True)


async def _warm_up(seconds: float) -> None:
    """Play for ``seconds``, collecting this process's garbage in short steps (a collection of
    a 15-minute soak's warm-up at once paused this process for long enough that the burst of
    commands after it stalled the server's loop for 200 ms inside the window)."""
    until = time.perf_counter() + seconds
    while (left := until - time.perf_counter()) > 0:
        await asyncio.sleep(min(left, _FREEZE_EVERY_S))
        gc.collect()
        gc.freeze()


class HealthSource(Protocol):
    async def health(self) -> dict[str, Any]: ...


class WindowSource(HealthSource, Protocol):
    async def relay_counts(self) -> list[tuple[float, float]]: ...


async def settle(driver: HealthSource) -> None:
    """Wait until the server's loop has reported no stall for :data:`_SETTLE_S` (at most
    :data:`_SETTLE_MAX_S`): the window must not open on a pause the instrument caused."""
    await asyncio.sleep(_SETTLE_S)
    deadline = time.perf_counter() + _SETTLE_MAX_S
    while time.perf_counter() < deadline:
        health = await driver.health()
        since_ms = health["now_ms"] - _SETTLE_S * 1000
        # Every pause the server lists is a stall of 20 ms or more (service.admission).
        if all(p["at_ms"] < since_ms for p in health["pauses"]):
            return
        await asyncio.sleep(_SETTLE_S)


async def _watch_pauses(driver: HealthSource, stats: Stats, seconds: float) -> None:
    """Wait out the window, reading the servers' stalls every :data:`_PAUSES_EVERY_S`."""
    end = time.perf_counter() + seconds
    while end - time.perf_counter() > _PAUSES_EVERY_S:
        await asyncio.sleep(_PAUSES_EVERY_S)
        stats.note_pauses(await driver.health())
    await asyncio.sleep(max(0.0, end - time.perf_counter()))


async def close_window(
    driver: WindowSource,
    stats: Stats,
    server_pids: list[int],
    relayed_before: list[tuple[float, float]],
) -> None:
    """Take the window's end readings (the servers' stalls, memory and relay times), then turn
    this process's collector back on: not before.

    With the collector on again, this process's first collection walked everything the window
    left in its young generation: seconds after a 40-minute window. Its sockets went unread
    meanwhile, and then every player whose think time had passed answered at once: 1,509
    commands in one of the server's batches, and a 156-197 ms stall of the server's loop
    (seeding new rounds, in the stack samples) that the end reading, taken after it, counted
    as the window's longest pause. The window ends at this reading: a stall after it is not
    the window's (:func:`~spectacular_bid.bench.server.window_pauses`)."""
    stats.window_end = await driver.health()
    stats.note_pauses(stats.window_end)
    stats.window_end_rss_kb = sum(rss_kb(pid) for pid in server_pids)
    stats.window_log_bytes = {
        pid: (opened, logged_bytes(pid)) for pid, (opened, _) in stats.window_log_bytes.items()
    }
    window = relay_window(relayed_before, await driver.relay_counts())
    stats.relay_p99_ms = relay_p99_ms(window)
    stats.relay_within_percent = relay_within_percent(window)
    gc.enable()


def relay_buckets(exposition: str) -> list[tuple[float, float]]:
    """``(upper bound in s, cumulative count)`` of ``specbid_relay_seconds`` in a scrape."""
    found = []
    for line in exposition.splitlines():
        if line.startswith("specbid_relay_seconds_bucket{"):
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            found.append(
                (float("inf") if bound == "+Inf" else float(bound), float(line.split()[-1]))
            )
    return found


def relay_window(
    before: list[tuple[float, float]], after: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """``(upper bound in s, cumulative count)`` of the relay delays counted between two
    scrapes; empty when nothing was relayed (one server)."""
    counted = dict(before)
    window = [(bound, count - counted.get(bound, 0.0)) for bound, count in after]
    return window if window and window[-1][1] > 0 else []


def relay_p99_ms(window: list[tuple[float, float]]) -> float | None:
    """The 99th percentile of a window's relay delays, as the upper bound of its histogram
    bucket (ms); None when nothing was relayed."""
    if not window:
        return None
    total = window[-1][1]
    return next(bound * 1000 for bound, cumulative in window if cumulative >= 0.99 * total)


def relay_within_percent(window: list[tuple[float, float]]) -> dict[str, float] | None:
    """The share of a window's relayed versions that arrived within each finite bucket's
    bound (ms, as text): how far the p99 is from a bucket's edge. Each delay is measured in
    whole milliseconds of the two processes' wall clocks, so it is known to within one."""
    if not window:
        return None
    total = window[-1][1]
    return {
        f"{bound * 1000:g}": round(100 * cumulative / total, 2)
        for bound, cumulative in window
        if bound != float("inf")
    }


async def drive(bases: list[str], load: Load, server_pids: list[int]) -> Stats:
    """Connect every match slot, warm up, then measure for ``load.seconds``."""
    # This process is the measuring instrument: its own collector's pauses would be counted as
    # the server's latency. Its start-up objects are frozen, and during the measured window its
    # collector is off; its garbage waits for the end of the window.
    gc.collect()
    gc.freeze()
    stats = Stats(idle_rss_kb=sum(rss_kb(pid) for pid in server_pids))
    driver = Driver(bases, stats, load.think_ms, load.seed, load.placement)
    matches, seconds, timeouts = load.matches, load.seconds, load.timeout_matches
    until = time.perf_counter() + longest_run_s(load) - _TIMEOUT_SETTLE_S
    # Time-outs come one by one over the window, as they would among people; started all at once
    # they would flag in the same millisecond and measure a burst no real load has. Their matches
    # are made first, with the others, so that a server at its cap has admitted them too; each
    # waits for its moment in the window to press Start (the bench server's D3 grace is long
    # enough not to deal them before).
    spread_s = max(0.0, seconds - _TIMEOUT_SETTLE_S)
    passive = [
        asyncio.create_task(
            driver.play_matches(
                matches + i, until, passive=True, start_after_s=i * spread_s / timeouts
            )
        )
        for i in range(timeouts)
    ]
    tasks = [asyncio.create_task(driver.play_matches(i, until)) for i in range(matches)]
    setup_deadline = time.perf_counter() + _SETUP_S
    while time.perf_counter() < setup_deadline:
        if len(stats.connected_slots | stats.refused_slots | stats.failed_slots) >= matches:
            break
        await asyncio.sleep(0.2)
    await _warm_up(load.warmup_s)
    # The instrument's own pause stays out of the window: a collection of the setup's objects
    # (thousands of sockets) took this process ~170 ms, and every update it read late then
    # counted as the server's latency at the window's start; the burst of commands it then sent
    # at once stalled the server's loop too. So it collects now, freezes what is left, and
    # measures only once the server's loop has been quiet for a while.
    gc.disable()
    gc.collect()
    gc.freeze()
    await settle(driver)
    stats.measuring = True
    cpu_before = sum(cpu_seconds(pid) for pid in server_pids)
    client_cpu_before = cpu_seconds(os.getpid())
    stats.window_start = await driver.health()
    stats.window_start_rss_kb = sum(rss_kb(pid) for pid in server_pids)
    stats.window_log_bytes = {pid: (logged_bytes(pid), 0) for pid in server_pids}
    relayed_before = await driver.relay_counts()
    driver.window_open.set()
    await _watch_pauses(driver, stats, seconds)
    stats.measuring = False
    stats.server_cpu_s = sum(cpu_seconds(pid) for pid in server_pids) - cpu_before
    stats.client_cpu_s = cpu_seconds(os.getpid()) - client_cpu_before
    await close_window(driver, stats, server_pids, relayed_before)
    await cancel_all(tasks + passive)
    await abort_connected()
    for client in driver.clients:
        await client.aclose()
    return stats
