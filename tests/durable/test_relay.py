"""Sockets on any server process (PROTOCOL.md "Several servers on one database"): real processes on
one database, relaying through the real Redis of the machine (``TEST_REDIS_URL``; CI sets it, and
there a missing Redis fails the run rather than skipping it).

A match is made on one process and joined through another, and its two players and a spectator
are connected to three different processes: the second player's commands are relayed to the
owner and run there; every version reaches every socket once, in order, with no gap; no frame a
socket receives names a tile it may not see (R2.2, D4); presence counts the sockets of every
process; the stored record verifies.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect

from live.sight import SightCheck, revealed_decks
from serverproc import free_port
from spectacular_bid.service.record_document import parse_document
from spectacular_bid.service.replay import verify

from .conftest import Target
from .live import DECK_SEED, JSON, Seat, Server, Table, Watcher, bearer, guest, running_server

REDIS_URL = os.environ.get("TEST_REDIS_URL", "")


@pytest.fixture
def redis_url() -> str:
    if not REDIS_URL:
        if os.environ.get("CI"):
            pytest.fail("TEST_REDIS_URL is not set: CI must test the relay on a real Redis")
        pytest.skip("TEST_REDIS_URL is not set")
    return REDIS_URL


async def servers(
    stack: AsyncExitStack, target: Target, folder: Path, redis_url: str, count: int, *flags: str
) -> list[Server]:
    started = [
        stack.enter_async_context(
            running_server(target, folder / str(i), "--redis-url", redis_url, *flags)
        )
        for i in range(count)
    ]
    return list(await asyncio.gather(*started))


async def spread_table(stack: AsyncExitStack, a: Server, b: Server, c: Server) -> Table:
    """A match made on ``a`` by Ann, joined on ``b`` by Bo; Ann's socket on ``a``, Bo's on
    ``b``, a spectator's on ``c``."""
    rng = random.Random(3)
    async with httpx.AsyncClient(base_url=a.url, timeout=10) as on_a:
        ann = await guest(on_a, "Ann")
        made = await on_a.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
        assert made.status_code == 201, made.text
        match_id = made.json()["id"]
    async with httpx.AsyncClient(base_url=b.url, timeout=10) as on_b:
        bo = await guest(on_b, "Bo")
        joined = await on_b.post(f"/api/matches/{match_id}/join", headers=bearer(bo))
        assert joined.status_code == 200, joined.text
        assert joined.json()["seat"] == "second"
        read = await on_b.get(f"/api/matches/{match_id}", headers=bearer(bo))
        assert read.status_code == 200, read.text
        assert read.json()["match"]["audience"] == "second"
        assert read.json()["match"]["viewer"] == "second"
    # The spectator first: it sees the first deal's commitment (D4) before anyone presses Start.
    spectator = Watcher(await connect(c.ws_url(match_id), compression=None))
    tasks = [asyncio.create_task(spectator.read())]
    await spectator.changed.wait()
    seats = (
        Seat(await connect(a.ws_url(match_id, ann), compression=None), rng),
        Seat(await connect(b.ws_url(match_id, bo), compression=None), rng),
    )
    tasks += [asyncio.create_task(s.read(s.on_frame)) for s in seats]
    table = Table(a, match_id, (ann, bo), seats, spectator, tasks)
    stack.push_async_callback(table.close)
    return table


async def idle_spread_table(
    stack: AsyncExitStack, target: Target, folder: Path, redis_url: str
) -> tuple[Table, Server]:
    """A :func:`spread_table` on three new processes whose seats do not play, once every
    socket has its state; and the second seat's process."""
    a, b, c = await servers(stack, target, folder, redis_url, 3)
    table = await spread_table(stack, a, b, c)
    for seat in table.seats:
        seat.acting = False
    await table.until(lambda: all(w.match is not None for w in table.everyone))
    return table, b


def versions_in_order(watcher: Watcher) -> list[int]:
    """The versions a socket was given, state then updates, each once."""
    given: list[int] = []
    for frame in watcher.frames:
        if frame["type"] == "state":
            given.append(frame["version"])
        elif frame["type"] == "update":
            given.extend(sorted({e["version"] for e in frame["events"]}))
    return given


async def test_a_match_with_its_sockets_on_three_processes_is_played_to_its_end(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    async with AsyncExitStack() as stack:
        a, b, c = await servers(stack, target, tmp_path, redis_url, 3)
        table = await spread_table(stack, a, b, c)
        await table.until(lambda: table.spectator.match is not None)
        await table.until(
            lambda: (
                table.spectator.match["players"]["second"]["online"]
                and table.spectator.match["players"]["first"]["online"]
            ),
            timeout_s=10,
        )
        await table.until(table.is_over, timeout_s=240)
        await table.until(table.settled, timeout_s=10)

        end = table.spectator.match
        assert end["status"] == "finished"
        for seat in table.seats:
            assert seat.match["result"] == end["result"]
            assert not [e for e in seat.errors if e.get("code") != "stale_version"], seat.errors
        # The spectator, on a third process, was counted by the owner.
        spectators_seen = [
            f["spectators"] for f in table.seats[0].frames if f["type"] == "presence"
        ]
        assert 1 in spectators_seen

        final = table.version()
        for watcher in table.everyone:  # every version once, in order, no gap
            given = versions_in_order(watcher)
            assert given == sorted(set(given)), given
            assert given[-1] == final
            assert given == list(range(given[0], final + 1))

        decks = revealed_decks(table.spectator.frames, DECK_SEED)
        assert sorted(decks) == list(range(1, end["round_number"] + 1))
        for receiver, watcher in (
            ("first", table.seats[0]),
            ("second", table.seats[1]),
            (None, table.spectator),
        ):
            assert SightCheck(receiver, decks).check_all(watcher.frames) == len(watcher.frames)

        async with httpx.AsyncClient(base_url=c.url, timeout=10) as on_c:
            record = (await on_c.get(f"/api/matches/{table.match_id}/record")).json()
        assert record["match"]["status"] == "finished"
        assert len(record["versions"]) == final
        verify(parse_document(record))
        # The relayed commands were timed where they ran: the owner's log names none refused.
        assert "Traceback" not in a.log() + b.log() + c.log()


async def test_a_relayed_command_gets_its_error_on_its_own_socket_only(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    async with AsyncExitStack() as stack:
        table, _ = await idle_spread_table(stack, target, tmp_path, redis_url)
        await asyncio.sleep(0.5)  # every presence change has come
        bo = table.seats[1]
        before = [len(w.frames) for w in (table.seats[0], table.spectator)]
        await bo.ws.send(json.dumps({"type": "draw", "version": 0, "id": "d1"}))
        await table.until(lambda: any(e.get("id") == "d1" for e in bo.errors), timeout_s=10)
        (error,) = [e for e in bo.errors if e.get("id") == "d1"]
        assert error["code"] in ("stale_version", "wrong_phase", "not_your_turn")
        await asyncio.sleep(0.3)
        assert [len(w.frames) for w in (table.seats[0], table.spectator)] == before


async def test_a_socket_on_another_process_reads_the_chat_so_far(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    """The owner tells each attaching socket how many lines the match has; one that has some
    is sent them after its state, wherever it is (PROTOCOL.md "chat")."""
    async with AsyncExitStack() as stack:
        table, b = await idle_spread_table(stack, target, tmp_path, redis_url)
        bo = table.seats[1]
        await table.seats[0].ws.send(json.dumps({"type": "chat", "id": "c1", "text": "gl"}))
        await table.until(lambda: any(f["type"] == "chat" for f in bo.frames), timeout_s=10)

        again = Watcher(await connect(b.ws_url(table.match_id, table.tokens[1]), compression=None))
        reader = asyncio.create_task(again.read())
        try:
            await table.until(lambda: any(f["type"] == "chat" for f in again.frames))
        finally:
            await again.ws.close()
            reader.cancel()
        (history,) = [f for f in again.frames if f["type"] == "chat"]
        assert [(line["n"], line["text"]) for line in history["lines"]] == [(1, "gl")]
        assert again.frames[0]["type"] == "state"


class PrivateRedis:
    """A Redis server of this test's own (the machine's ``redis-server``), so that it can be
    stopped and started again without touching anyone else's."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> None:
        argv = ["redis-server", "--port", str(self.port), "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(
            [*argv, "--dir", str(self.folder)], stdout=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            await asyncio.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


async def test_a_redis_restarted_mid_match_loses_nothing(target: Target, tmp_path: Path) -> None:
    if shutil.which("redis-server") is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is missing: CI must test a Redis restart")
        pytest.skip("no redis-server on this machine")
    redis = PrivateRedis(tmp_path)
    await redis.start()
    try:
        async with AsyncExitStack() as stack:
            a, b = await servers(stack, target, tmp_path, redis.url, 2)
            table = await spread_table(stack, a, b, b)
            await table.pause_mid_round(from_version=6)
            paused_at = table.version()
            redis.stop()
            # The owner's seat plays on alone: its versions are stored, but cannot reach b.
            ann = table.seats[0]
            ann.acting = True
            ann.decide()
            await asyncio.sleep(1.0)
            await redis.start()
            for seat in table.seats:
                seat.acting = True
                seat.decide()
            await table.until(table.is_over, timeout_s=240)
            await table.until(table.settled, timeout_s=15)
            final = table.version()
            assert final > paused_at
            for watcher in table.everyone:
                given = versions_in_order(watcher)
                assert given == list(range(given[0], final + 1)), given
            async with httpx.AsyncClient(base_url=b.url, timeout=10) as on_b:
                record = (await on_b.get(f"/api/matches/{table.match_id}/record")).json()
            assert record["match"]["status"] == "finished"
            assert [v["version"] for v in record["versions"]] == list(range(1, final + 1))
            verify(parse_document(record))
    finally:
        redis.stop()


async def pause_on_the_move(table: Table, seat: str, from_version: int) -> None:
    """:meth:`Table.pause_mid_round` until ``seat``'s clock is the one running."""
    while True:
        await table.pause_mid_round(from_version)
        if table.spectator.match["clock"]["running"] == seat:
            return
        for player in table.seats:  # the other seat is on the move: play on a version
            player.acting = True
            player.decide()
        from_version = table.version() + 1


RESTART_S = 2.0
CLOCK_LOSS_MS = 2_500
"""What a 2 s Redis restart may cost the seat on the move: the restart and a network's worth."""


async def test_a_redis_restart_costs_a_relayed_seat_on_the_move_no_more_than_the_restart(
    target: Target, tmp_path: Path
) -> None:
    """The second seat's socket is on the process that does not own the match; it moves while
    Redis is down. Its command is relayed once Redis is back, by the server and not the client:
    no ``server_busy`` reaches it, and its clock is charged from when its process received the
    command, not from when the owner did (R7.7)."""
    if shutil.which("redis-server") is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is missing: CI must test a Redis restart")
        pytest.skip("no redis-server on this machine")
    redis = PrivateRedis(tmp_path)
    await redis.start()
    try:
        async with AsyncExitStack() as stack:
            a, b = await servers(stack, target, tmp_path, redis.url, 2)
            table = await spread_table(stack, a, b, b)
            bo = table.seats[1]
            await pause_on_the_move(table, "second", from_version=6)
            paused_at = table.version()
            redis.stop()
            bo.acting = True
            bo.decide()  # received by b while Redis is down
            await asyncio.sleep(RESTART_S)  # the outage itself, not a wait for anything
            await redis.start()
            await table.until(lambda: table.version() > paused_at and table.settled(), 30)
            assert [e for e in bo.errors if e.get("code") == "server_busy"] == []
            for seat in table.seats:
                seat.acting = True
                seat.decide()
            await table.until(table.is_over, timeout_s=240)
            await table.until(table.settled, timeout_s=15)
            final = table.version()
            for watcher in table.everyone:
                given = versions_in_order(watcher)
                assert given == list(range(given[0], final + 1)), given
            assert [e for e in bo.errors if e.get("code") == "server_busy"] == []
            async with httpx.AsyncClient(base_url=b.url, timeout=10) as on_b:
                record = (await on_b.get(f"/api/matches/{table.match_id}/record")).json()
            assert [v["version"] for v in record["versions"]] == list(range(1, final + 1))
            verify(parse_document(record))
            standing, moved = record["versions"][paused_at - 1], record["versions"][paused_at]
            assert standing["clock"]["running"] == "second"
            assert moved["seat"] == "second", moved
            charged_ms = moved["received_ms"] - standing["clock"]["now_ms"]
            assert 0 <= charged_ms <= CLOCK_LOSS_MS, (charged_ms, b.log()[-2000:])
            # The clock audit: the outage is recorded as the relay's, charged to nobody.
            assert moved["relayed_ms"] >= 1_000, moved
            assert moved["received_ms"] + moved["relayed_ms"] <= moved["mono_ms"]
            assert all("relayed_ms" not in v for v in record["versions"] if v["seat"] == "first")
    finally:
        redis.stop()


LEASE_MS = 3_000
SCAN_S = 1.0


async def told_how_it_ended(server: Server, match_id: str, token: str, within_s: float) -> JSON:
    """Reconnect to ``server`` as a client does after a 1013 until it shows the match ended."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        async with connect(server.ws_url(match_id, token), compression=None) as ws:
            first = json.loads(await ws.recv())
        if first["type"] == "state" and first["match"]["status"] != "active":
            return first
        await asyncio.sleep(0.2)
    raise AssertionError(f"not told in {within_s} s:\n{server.log()[-2000:]}")


async def test_a_killed_owners_match_is_ended_and_every_socket_elsewhere_told(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    async with AsyncExitStack() as stack:
        lease = ("--lease-ms", str(LEASE_MS))
        a, b, c = await servers(stack, target, tmp_path, redis_url, 3, *lease)
        table = await spread_table(stack, a, b, c)
        await table.pause_mid_round(from_version=6)
        killed_at = time.monotonic()
        a.kill()
        bo, spectator = table.seats[1], table.spectator
        for watcher in (bo, spectator):  # the sockets on b and c close: reconnect
            await asyncio.wait_for(watcher.ws.wait_closed(), LEASE_MS / 1000 + 2 + SCAN_S + 5)
            assert watcher.ws.close_code == 1013
        closed_s = time.monotonic() - killed_at
        assert closed_s <= LEASE_MS / 1000 + 2 + SCAN_S + 5
        state = await told_how_it_ended(c, table.match_id, table.tokens[1], within_s=10)
        assert state["match"]["status"] == "aborted"
        assert state["match"]["result"] == {"winner": None, "reason": "timing_failure"}


async def lobby(server: Server) -> JSON:
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        response = await http.get("/api/lobby")
    assert response.status_code == 200, response.text
    return response.json()


async def until_lobby(server: Server, check: Callable[[JSON], bool], within_s: float) -> JSON:
    deadline = time.monotonic() + within_s
    while True:
        seen = await lobby(server)
        if check(seen):
            return seen
        if time.monotonic() > deadline:
            raise AssertionError(f"the lobby of {server.url} is not there: {seen}")
        await asyncio.sleep(0.2)


async def test_every_process_shows_one_lobby(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    async with AsyncExitStack() as stack:
        a, b = await servers(stack, target, tmp_path, redis_url, 2)
        async with httpx.AsyncClient(base_url=a.url, timeout=10) as on_a:
            ann = await guest(on_a, "Ann")
            made = await on_a.post("/api/matches", json={"mode": "open"}, headers=bearer(ann))
            assert made.status_code == 201, made.text
        match_id = made.json()["id"]

        def open_there(seen: JSON) -> bool:
            return [m["id"] for m in seen["open_challenges"]] == [match_id]

        line = (await until_lobby(b, open_there, within_s=5))["open_challenges"][0]
        assert (line["first"], line["second"], line["status"]) == ("Ann", None, "waiting")
        async with httpx.AsyncClient(base_url=b.url, timeout=10) as on_b:
            bo = await guest(on_b, "Bo")
            joined = await on_b.post(f"/api/matches/{match_id}/join", headers=bearer(bo))
            assert joined.status_code == 200, joined.text
        async with connect(b.ws_url(match_id), compression=None) as watching:
            await watching.recv()

            def watched(seen: JSON) -> bool:
                return any(m["id"] == match_id and m["spectators"] == 1 for m in seen["live"])

            for server in (a, b):  # the spectator on b, counted by a, shown by both
                seen = await until_lobby(server, watched, within_s=5)
                assert seen["open_challenges"] == []
        a.kill()  # its share lapses: b lists only what it knows
        await until_lobby(b, lambda seen: seen["live"] == [], within_s=10)
