"""``specbid bench server``: many live matches against a real server over loopback WebSockets.

The server runs in its own process (``specbid serve``); this process plays every seat with
random legal moves, like people would: each decision comes after a think time drawn from
``think_ms`` (``0`` saturates the server). One spectator watches every match. A few extra
matches, started one after another over the window, are deliberately left to time out, to
measure how late the server flags (R7.7: never early). Figures: ``commands_per_s``; latency from
a command's send to the opponent's receipt of the resulting update (p50, p99); flag lateness;
the server's CPU and peak RSS.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

_SERVE = (sys.executable, "-m", "spectacular_bid", "serve")
_TIMEOUT_BANK_MS = 1_500
_TIMEOUT_DELAY_MS = 500
_STALL_LOG = "event loop stalled"
"""What the server logs when its loop stalls past the D5 threshold (running matches abort)."""
_TIMEOUT_SETTLE_S = 4.0
"""A time-out match started this long before the window ends still flags inside it."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def _peak_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class _Stats:
    sent_at: dict[tuple[str, int], tuple[float, int]] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    commands: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    flag_lateness_ms: list[int] = field(default_factory=list)
    server_cpu_s: float = 0.0
    matches_finished: int = 0
    disconnects: int = 0
    connected: int = 0
    flagged_matches: set[str] = field(default_factory=set)
    server_closes: dict[int, int] = field(default_factory=dict)
    ended: dict[str, int] = field(default_factory=dict)
    """Why the played (not time-out) matches ended in the window, as their seats saw it."""
    measuring: bool = False


def choose(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A uniformly random command among everything the server says is legal."""
    options: list[dict[str, Any]] = []
    for play in legal.get("plays", []):
        places = play.get("places") or [None]
        for at in places:
            options.append({"type": "play", "tile": play["tile"], "at": at})
    if legal.get("can_draw"):
        options.append({"type": "draw"})
    if legal.get("can_decline"):
        options.append({"type": "decline"})
    if legal.get("can_accept"):
        options.append({"type": "accept"})
    for bid in legal.get("bids", []):
        options.append({"type": "bid", "amount": bid["amount"]})
    return rng.choice(options)


class _Seat:
    """One player's connection: acts when the server says it may, after a think time."""

    def __init__(
        self,
        ws: ClientConnection,
        match_id: str,
        stats: _Stats,
        think_ms: tuple[int, int],
        rng: random.Random,
        *,
        passive: bool = False,
    ) -> None:
        self.ws = ws
        self.match_id = match_id
        self.stats = stats
        self.think_ms = think_ms
        self.rng = rng
        self.passive = passive
        self.version = -1
        self.pending: asyncio.Task[None] | None = None
        self.done = asyncio.Event()
        self.last_deadline: int | None = None
        self.last_match: dict[str, Any] | None = None

    async def run(self) -> None:
        try:
            async for raw in self.ws:
                self.on_message(json.loads(raw))
                if self.done.is_set():
                    break
        except Exception:
            self.stats.disconnects += 1
        finally:
            code = self.ws.close_code
            if code is not None and not self.done.is_set() and self.stats.measuring:
                # Closed by the server before the match ended (1013: dropped for falling behind).
                self.stats.server_closes[code] = self.stats.server_closes.get(code, 0) + 1
            self.done.set()

    def on_message(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "error":
            code = msg.get("code", "?")
            self.stats.errors[code] = self.stats.errors.get(code, 0) + 1
            if code == "stale_version" and self.last_match is not None:
                # Another command got in first (both pressed Start): decide again on what we
                # know now, like a client that refreshes.
                self._decide(self.last_match)
            return
        if kind not in ("state", "update"):
            return
        version = msg["version"]
        if kind == "update":
            key = (self.match_id, version)
            sent = self.stats.sent_at.get(key)
            if sent is not None and sent[1] != id(self):
                del self.stats.sent_at[key]
                if self.stats.measuring:
                    self.stats.latencies_ms.append((time.perf_counter() - sent[0]) * 1000)
        self.version = version
        match = msg["match"]
        self.last_match = match
        clock = match.get("clock") or {}
        if match.get("status") in ("finished", "aborted"):
            counted = match.get("audience") == "first" and not self.passive  # once per match
            if counted and not self.done.is_set() and self.stats.measuring:
                reason = (match.get("result") or {}).get("reason", "?")
                self.stats.ended[reason] = self.stats.ended.get(reason, 0) + 1
            if (
                self.passive
                and self.last_deadline is not None
                and self.stats.measuring
                and self.match_id not in self.stats.flagged_matches
            ):
                self.stats.flagged_matches.add(self.match_id)
                self.stats.flag_lateness_ms.append(clock["now_ms"] - self.last_deadline)
            self.done.set()
            return
        if clock.get("deadline_ms") is not None:
            self.last_deadline = clock["deadline_ms"]
        self._decide(match)

    def _decide(self, match: dict[str, Any]) -> None:
        version = self.version
        if self.passive:
            if match.get("phase") == "awaiting_deal" and not self._ready(match):
                self._send({"type": "start", "version": version})
            return
        if self.pending is not None and not self.pending.done():
            self.pending.cancel()
        command: dict[str, Any] | None = None
        if match.get("legal"):
            command = choose(match["legal"], self.rng)
        elif match.get("phase") == "awaiting_deal" and not self._ready(match):
            command = {"type": "start"}
        if command is not None:
            command["version"] = version
            self.pending = asyncio.get_running_loop().create_task(self._act_later(command))

    def _ready(self, match: dict[str, Any]) -> bool:
        audience = match.get("audience")
        ready = match.get("ready") or {}
        return bool(ready.get(audience))

    async def _act_later(self, command: dict[str, Any]) -> None:
        low, high = self.think_ms
        if high > 0:
            await asyncio.sleep(self.rng.uniform(low, high) / 1000)
        self._send(command)

    def _send(self, command: dict[str, Any]) -> None:
        key = (self.match_id, command["version"] + 1)
        self.stats.sent_at[key] = (time.perf_counter(), id(self))
        self.stats.commands += self.stats.measuring
        asyncio.get_running_loop().create_task(self._send_now(json.dumps(command)))

    async def _send_now(self, text: str) -> None:
        with contextlib.suppress(Exception):
            await self.ws.send(text)


async def _spectate(ws: ClientConnection, done: asyncio.Event) -> None:
    with contextlib.suppress(Exception):
        async for _ in ws:
            if done.is_set():
                break


class _Driver:
    def __init__(self, base: str, stats: _Stats, think_ms: tuple[int, int], seed: int) -> None:
        self.base = base
        self.ws_base = base.replace("http://", "ws://")
        self.stats = stats
        self.think_ms = think_ms
        self.rng = random.Random(seed)
        self.http = httpx.AsyncClient(base_url=base, timeout=60)
        self.connect_gate = asyncio.Semaphore(64)
        self.http_gate = asyncio.Semaphore(32)
        """httpx's pool slows down badly with thousands of waiting requests: queue them here."""

    async def guest(self, name: str) -> str:
        async with self.http_gate:
            r = await self.http.post("/api/session", json={"name": name})
        r.raise_for_status()
        token: str = r.json()["token"]
        return token

    async def new_match(self, tokens: tuple[str, str], clock: dict[str, int] | None) -> str:
        body: dict[str, Any] = {"mode": "invite", **(clock or {})}
        async with self.http_gate:
            r = await self.http.post(
                "/api/matches", json=body, headers={"Authorization": f"Bearer {tokens[0]}"}
            )
        r.raise_for_status()
        match_id: str = r.json()["id"]
        async with self.http_gate:
            r = await self.http.post(
                f"/api/matches/{match_id}/join", headers={"Authorization": f"Bearer {tokens[1]}"}
            )
        r.raise_for_status()
        return match_id

    async def open_ws(self, match_id: str, token: str | None) -> ClientConnection:
        query = f"?token={token}" if token else ""
        async with self.connect_gate:
            return await connect(
                f"{self.ws_base}/ws/matches/{match_id}{query}",
                compression=None,
                max_size=2**22,
                open_timeout=60,
            )

    async def play_matches(
        self, index: int, until: float, *, passive: bool = False, after_s: float = 0.0
    ) -> None:
        await asyncio.sleep(after_s)
        tokens = (await self.guest(f"p{index}a"), await self.guest(f"p{index}b"))
        clock = {"bank_ms": _TIMEOUT_BANK_MS, "delay_ms": _TIMEOUT_DELAY_MS} if passive else None
        first = not passive
        while time.perf_counter() < until:
            match_id = await self.new_match(tokens, clock)
            sockets: list[ClientConnection] = []
            tasks: list[asyncio.Task[None]] = []
            try:
                for token in (*tokens, None):
                    sockets.append(await self.open_ws(match_id, token))
                seats = [
                    _Seat(ws, match_id, self.stats, self.think_ms, self.rng, passive=passive)
                    for ws in sockets[:2]
                ]
                done = asyncio.Event()
                tasks = [asyncio.create_task(s.run()) for s in seats]
                tasks.append(asyncio.create_task(_spectate(sockets[2], done)))
                if first:
                    self.stats.connected += 1
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


async def _drive(
    base: str,
    matches: int,
    seconds: float,
    think_ms: tuple[int, int],
    timeouts: int,
    seed: int,
    server_pid: int,
) -> _Stats:
    # This process is the measuring instrument: its own collector's pauses would be counted as
    # the server's latency. Its start-up objects are frozen, and during the measured window its
    # collector is off; its garbage waits for the end of the window.
    gc.collect()
    gc.freeze()
    stats = _Stats()
    driver = _Driver(base, stats, think_ms, seed)
    warmup_s = 5.0
    until = time.perf_counter() + 300 + warmup_s + seconds
    tasks = [asyncio.create_task(driver.play_matches(i, until)) for i in range(matches)]
    setup_deadline = time.perf_counter() + 300
    while stats.connected < matches and time.perf_counter() < setup_deadline:
        await asyncio.sleep(0.2)
    await asyncio.sleep(warmup_s)
    gc.disable()
    stats.measuring = True
    cpu_before = _cpu_seconds(server_pid)
    # Time-outs come one by one over the window, as they would among people; started all at once
    # they would flag in the same millisecond and measure a burst no real load has.
    spread_s = max(0.0, seconds - _TIMEOUT_SETTLE_S)
    passive = [
        asyncio.create_task(
            driver.play_matches(matches + i, until, passive=True, after_s=i * spread_s / timeouts)
        )
        for i in range(timeouts)
    ]
    await asyncio.sleep(seconds)
    stats.measuring = False
    gc.enable()
    stats.server_cpu_s = _cpu_seconds(server_pid) - cpu_before
    for task in tasks + passive:
        task.cancel()
    await asyncio.gather(*tasks, *passive, return_exceptions=True)
    await driver.http.aclose()
    return stats


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def run(
    matches: int = 100,
    seconds: float = 20.0,
    think_ms: tuple[int, int] = (1000, 5000),
    timeout_matches: int = 20,
    seed: int = 1,
) -> dict[str, object]:
    """Start a server process, drive it, and report the figures of issue 3's benchmark."""
    if matches < 1 or seconds <= 0 or timeout_matches < 0:
        raise ValueError(f"bad benchmark size: {matches=} {seconds=} {timeout_matches=}")
    port = _free_port()
    env = {**os.environ, "SPECBID_PORT": str(port)}
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log, tempfile.TemporaryDirectory() as data_dir:
        # With DATABASE_URL set the server stores in that database (PostgreSQL); otherwise in a
        # scratch SQLite file.
        storage = [] if os.environ.get("DATABASE_URL") else ["--data-dir", data_dir]
        server = subprocess.Popen(
            [*_SERVE, "--port", str(port), "--log-level", "warning", *storage],
            env=env,
            stdout=log,
            stderr=log,
        )
        try:
            _wait_ready(base, server, log)
            stats = asyncio.run(
                _drive(base, matches, seconds, think_ms, timeout_matches, seed, server.pid)
            )
            rss = _peak_rss_mb(server.pid)
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
        log.seek(0)
        stalls = [
            line.strip()
            for line in log.read().decode(errors="replace").splitlines()
            if _STALL_LOG in line
        ]
    lateness = stats.flag_lateness_ms
    return {
        "benchmark": "server",
        "matches": matches,
        "seconds": seconds,
        "think_ms": list(think_ms),
        "commands": stats.commands,
        "commands_per_s": round(stats.commands / seconds, 1),
        "p50_latency_ms": _percentile(stats.latencies_ms, 0.50),
        "p99_latency_ms": _percentile(stats.latencies_ms, 0.99),
        "latency_samples": len(stats.latencies_ms),
        "timeout_matches": timeout_matches,
        "flags_measured": len(lateness),
        "p99_flag_lateness_ms": _percentile([float(x) for x in lateness], 0.99),
        "max_flag_lateness_ms": max(lateness) if lateness else None,
        "early_flags": sum(1 for x in lateness if x < 0),
        "server_cpu_percent": round(100 * stats.server_cpu_s / seconds, 1),
        "server_peak_rss_mb": round(rss, 1),
        "matches_finished": stats.matches_finished,
        "errors": stats.errors,
        "ended": stats.ended,
        "server_closes": stats.server_closes,
        "server_loop_stalls": len(stalls),
        "first_stall": stalls[0] if stalls else None,
        "disconnects": stats.disconnects,
    }


def _wait_ready(base: str, server: subprocess.Popen[bytes], log: Any) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            log.seek(0)
            err = log.read().decode(errors="replace")
            raise RuntimeError(f"the server exited at start: {err[-2000:]}")
        try:
            if httpx.get(f"{base}/api/lobby", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the server did not answer within 30 s")
