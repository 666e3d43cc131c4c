"""A real ``specbid serve`` process, and clients that play a match on it over real sockets.

The server runs as ``python -m spectacular_bid serve --port P --fixed-deck-seed S …`` with the
database of the test (:class:`~.conftest.Target`). Each seat is a ``websockets`` connection that
plays uniformly random legal moves from its view's ``legal`` object and presses Start between
rounds; a spectator watches. Every frame each socket receives is kept, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from serverproc import SERVE, clean_environment, free_port

from .conftest import Target

DECK_SEED = 11
STARTUP_TIMEOUT_S = 30.0

JSON = Any


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, match_id: str, token: str | None = None, **query: str) -> str:
        params = {**query, **({"token": token} if token else {})}
        suffix = "?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else ""
        return f"ws://127.0.0.1:{self.port}/ws/matches/{match_id}{suffix}"

    def log(self) -> str:
        return self.log_path.read_bytes().decode(errors="replace")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, nothing is flushed (a crash)."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


@asynccontextmanager
async def running_server(
    target: Target, folder: Path, *flags: str, stop: bool = True
) -> AsyncIterator[Server]:
    """A server on ``target``, ready to answer; stopped (SIGTERM) at the end unless it is gone."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    argv = [*SERVE, "--port", str(port), "--log-level", "warning"]
    argv += ["--fixed-deck-seed", str(DECK_SEED), "--grace-ms", "60000"]
    argv += ["--lag-threshold-ms", "30000"]  # a loaded test machine's pauses are no D5 failure
    # The clients answer at once, far faster than people: lift the per-socket rate limit.
    argv += ["--rate-limit-per-s", "10000", "--rate-burst", "10000", *target.flags(), *flags]
    log_path = folder / f"server-{port}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            argv, env=clean_environment(), stdout=log, stderr=subprocess.STDOUT
        )
    server = Server(port, process, log_path)
    try:
        await _wait_ready(server)
        yield server
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def _wait_ready(server: Server) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    async with httpx.AsyncClient(base_url=server.url, timeout=1) as http:
        while time.monotonic() < deadline:
            if server.process.poll() is not None:
                raise RuntimeError(f"the server exited at start:\n{server.log()[-3000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get("/api/lobby")).status_code == 200:
                    return
            await asyncio.sleep(0.05)
    raise RuntimeError(f"the server did not answer in {STARTUP_TIMEOUT_S} s:\n{server.log()}")


# -- clients ----------------------------------------------------------------------------------


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def guest(http: httpx.AsyncClient, name: str) -> str:
    r = await http.post("/api/session", json={"name": name})
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    return token


async def new_match(http: httpx.AsyncClient, first: str, second: str) -> str:
    r = await http.post("/api/matches", json={"mode": "invite"}, headers=bearer(first))
    assert r.status_code == 201, r.text
    match_id: str = r.json()["id"]
    r = await http.post(f"/api/matches/{match_id}/join", headers=bearer(second))
    assert r.status_code == 200, r.text
    return match_id


def choose(legal: JSON, rng: random.Random) -> dict[str, Any]:
    """A uniformly random command among everything the view says is legal."""
    options: list[dict[str, Any]] = []
    for play in legal.get("plays", []):
        for at in play.get("places") or [None]:
            options.append({"type": "play", "tile": play["tile"], "at": at})
    if legal.get("can_draw"):
        options.append({"type": "draw"})
    if legal.get("can_decline"):
        options.append({"type": "decline"})
    if legal.get("can_accept"):
        options.append({"type": "accept"})
    options.extend({"type": "bid", "amount": b["amount"]} for b in legal.get("bids", []))
    return rng.choice(options)


@dataclass
class Watcher:
    """One socket: every frame it received, decoded, in order."""

    ws: ClientConnection
    frames: list[JSON] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    version: int = -1
    match: JSON = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def read(self, on_frame: Callable[[JSON], None] | None = None) -> None:
        with contextlib.suppress(Exception):
            async for raw in self.ws:
                text = raw if isinstance(raw, str) else raw.decode()
                frame = json.loads(text)
                self.texts.append(text)
                self.frames.append(frame)
                if frame.get("type") in ("state", "update"):
                    self.version = frame["version"]
                    self.match = frame["match"]
                if on_frame is not None:
                    on_frame(frame)
                self.changed.set()

    def updates(self) -> list[JSON]:
        return [f for f in self.frames if f.get("type") == "update"]


class Seat(Watcher):
    """A player's socket that acts when its view says it may, with random legal moves."""

    def __init__(self, ws: ClientConnection, rng: random.Random) -> None:
        super().__init__(ws)
        self.rng = rng
        self.acting = True
        self.errors: list[JSON] = []
        self.sent = 0
        self.answered = 0

    def on_frame(self, frame: JSON) -> None:
        kind = frame.get("type")
        if kind in ("ack", "error"):  # every command is answered by one of them
            self.answered += 1
        if kind == "error":
            self.errors.append(frame)
            if frame.get("code") == "stale_version":
                self.decide()  # both pressed Start: decide again on the newer view
            return
        if kind in ("state", "update"):
            self.decide()

    def decide(self) -> None:
        match = self.match
        if not self.acting or match is None or match["status"] in ("finished", "aborted"):
            return
        command: dict[str, Any] | None = None
        if match.get("legal"):
            command = choose(match["legal"], self.rng)
        elif match["phase"] == "awaiting_deal" and not match["ready"][match["audience"]]:
            command = {"type": "start"}
        if command is not None:
            command["version"] = self.version
            self.sent += 1
            asyncio.get_running_loop().create_task(self._send(command))

    async def _send(self, command: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):
            await self.ws.send(json.dumps(command))


@dataclass
class Table:
    """Both seats and a spectator of one match on a live server."""

    server: Server
    match_id: str
    tokens: tuple[str, str]
    seats: tuple[Seat, Seat]
    spectator: Watcher
    tasks: list[asyncio.Task[None]]

    @property
    def everyone(self) -> list[Watcher]:
        return [*self.seats, self.spectator]

    def version(self) -> int:
        return max(w.version for w in self.everyone)

    async def until(self, condition: Callable[[], bool], timeout_s: float = 30.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"not there after {timeout_s} s (version {self.version()}):\n"
                    f"{self.server.log()[-2000:]}"
                )
            await asyncio.sleep(0.01)

    async def pause_mid_round(self, from_version: int) -> None:
        """Let the seats play until a decision's clock runs at ``from_version`` or later, then
        stop them and let every socket catch up: the match then stands in the middle of a
        round, a clock running, every socket at the same version."""
        while True:
            await self.until(self._clock_runs(from_version))
            for seat in self.seats:
                seat.acting = False
            await self.until(self.answered)  # a command already sent lands
            await self.until(self.settled)
            if self.spectator.match["clock"]["running"] is not None:
                return
            for seat in self.seats:  # that command ended the round: play on a little
                seat.acting = True
                seat.decide()
            from_version = self.version() + 2

    def _clock_runs(self, from_version: int) -> Callable[[], bool]:
        def check() -> bool:
            view = self.spectator.match
            return self.version() >= from_version and view["clock"]["running"] is not None

        return check

    def is_over(self) -> bool:
        return all(
            w.match is not None and w.match["status"] in ("finished", "aborted")
            for w in self.everyone
        )

    def answered(self) -> bool:
        """Every command the seats sent has had its answer, an ``ack`` or an ``error``."""
        return all(seat.answered >= seat.sent for seat in self.seats)

    def settled(self) -> bool:
        """Every socket has seen the same, latest version."""
        versions = {w.version for w in self.everyone}
        return len(versions) == 1

    async def close(self) -> None:
        for watcher in self.everyone:
            with contextlib.suppress(Exception):
                await watcher.ws.close()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


@asynccontextmanager
async def table(server: Server, seed: int) -> AsyncIterator[Table]:
    """A match between two new guests, both seated and connected, with one spectator."""
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        tokens = (await guest(http, "Ann"), await guest(http, "Bo"))
        match_id = await new_match(http, *tokens)
    seats = (
        Seat(await connect(server.ws_url(match_id, tokens[0]), compression=None), rng),
        Seat(await connect(server.ws_url(match_id, tokens[1]), compression=None), rng),
    )
    spectator = Watcher(await connect(server.ws_url(match_id), compression=None))
    tasks = [asyncio.create_task(s.read(s.on_frame)) for s in seats]
    tasks.append(asyncio.create_task(spectator.read()))
    made = Table(server, match_id, (tokens[0], tokens[1]), seats, spectator, tasks)
    try:
        yield made
    finally:
        await made.close()


# -- comparing what a client saw with what was recorded ---------------------------------------


def seen_within(seen: JSON, recorded: JSON) -> bool:
    """True when ``seen`` is ``recorded`` with, at most, some values hidden (None): what a seat
    or a spectator receives is the unfiltered event with what it may not see taken out."""
    if seen is None:
        return True
    if isinstance(seen, dict) and isinstance(recorded, dict):
        return set(seen) == set(recorded) and all(
            seen_within(v, recorded[k]) for k, v in seen.items()
        )
    if isinstance(seen, list) and isinstance(recorded, list):
        return len(seen) == len(recorded) and all(
            seen_within(a, b) for a, b in zip(seen, recorded, strict=True)
        )
    return bool(seen == recorded)


def events_by_version(watcher: Watcher) -> dict[int, list[JSON]]:
    """The events a socket received, by version, without their ``version`` member."""
    found: dict[int, list[JSON]] = {}
    for frame in watcher.updates():
        for event in frame["events"]:
            body = {k: v for k, v in event.items() if k != "version"}
            found.setdefault(event["version"], []).append(body)
    return found
