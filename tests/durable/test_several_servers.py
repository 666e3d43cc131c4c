"""Several server processes on one database (PROTOCOL.md "Several servers on one database"), on
SQLite and PostgreSQL.

Each ``specbid serve`` owns the matches it made through its lease (``store.leases``): a second
server starting beside the first aborts nothing of its; when one is killed, the other ends its
matches as service timing failures (D5) within the lease and a scan, and the players, coming
back to the server that lives, are told why; a server stopped (SIGSTOP) past its lease and then
resumed can write nothing more for what it ran (``test_fenced_server.py`` follows it on).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from spectacular_bid.service.ports import MatchStatus
from spectacular_bid.store.repository import SqlStore

from .conftest import Target
from .live import Server, Table, bearer, running_server, table

LEASE_MS = 3_000
SCAN_S = 1.0
"""The service's ``orphan_scan_ms`` default: how often a server looks for dead peers."""


async def view(server: Server, match_id: str, token: str | None = None) -> httpx.Response:
    headers = bearer(token) if token else {}
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        return await http.get(f"/api/matches/{match_id}", headers=headers)


async def two_servers(
    stack: AsyncExitStack, target: Target, folder: Path, *flags: str
) -> tuple[Server, Server]:
    """Two servers on ``target``, started at the same moment."""
    first, second = await asyncio.gather(
        stack.enter_async_context(running_server(target, folder / "a", *flags)),
        stack.enter_async_context(running_server(target, folder / "b", *flags)),
    )
    return first, second


async def mid_round(stack: AsyncExitStack, server: Server, seed: int) -> Table:
    match = await stack.enter_async_context(table(server, seed))
    await match.pause_mid_round(from_version=6)
    return match


async def stored(target: Target, match_id: str) -> tuple[Any, list[Any]]:
    async with SqlStore.open(target.url) as store:
        return await store.match(match_id), await store.events(match_id)


async def ended_on(server: Server, match_id: str, token: str, within_s: float) -> float:
    """Wait until ``server`` shows the match ended; return how long that took."""
    started = time.monotonic()
    while time.monotonic() - started < within_s:
        response = await view(server, match_id, token)
        if response.status_code == 200 and response.json()["match"]["status"] != "active":
            return time.monotonic() - started
        await asyncio.sleep(0.1)
    raise AssertionError(f"{match_id} not ended on {server.url} in {within_s} s:\n{server.log()}")


async def test_two_servers_starting_together_abort_nothing_of_each_other(
    target: Target, tmp_path: Path
) -> None:
    async with AsyncExitStack() as stack:
        a, b = await two_servers(stack, target, tmp_path)
        on_a, on_b = await mid_round(stack, a, 1), await mid_round(stack, b, 2)
        for match in (on_a, on_b):  # both play on, each on its own server
            before = match.version()
            for seat in match.seats:
                seat.acting = True
                seat.decide()
            await match.until(lambda m=match, v=before: m.version() >= v + 3)  # type: ignore[misc]
            await match.pause_mid_round(from_version=match.version())
        for match in (on_a, on_b):
            header, events = await stored(target, match.match_id)
            assert header.status is MatchStatus.ACTIVE
            assert [e.version for e in events] == list(range(1, match.version() + 1))
            assert all(e.command.get("type") != "abort" for e in events)
        # A live match is served by its own server; the other says where it is.
        elsewhere = await view(b, on_a.match_id, on_a.tokens[0])
        assert elsewhere.status_code == 404
        assert "played on another server process" in elsewhere.json()["error"]["message"]
        async with connect(b.ws_url(on_a.match_id, on_a.tokens[1]), compression=None) as ws:
            refusal = json.loads(await ws.recv())
            with contextlib.suppress(ConnectionClosed):
                await ws.recv()
        assert refusal["type"] == "error"
        assert refusal["code"] == "not_found"
        assert "played on another server process" in refusal["message"]
        assert ws.close_code == 1008


async def test_a_killed_servers_matches_are_ended_by_its_peer(
    target: Target, tmp_path: Path
) -> None:
    async with AsyncExitStack() as stack:
        a, b = await two_servers(stack, target, tmp_path, "--lease-ms", str(LEASE_MS))
        match = await mid_round(stack, a, 3)
        version = match.version()
        a.kill()
        took_s = await ended_on(b, match.match_id, match.tokens[0], LEASE_MS / 1000 + 2 + SCAN_S)
        assert took_s <= LEASE_MS / 1000 + 2 + SCAN_S

        header, events = await stored(target, match.match_id)
        assert header.status is MatchStatus.ABORTED
        assert (header.winner, header.reason, header.rated) == (None, "timing_failure", False)
        assert [e.version for e in events] == list(range(1, version + 2))  # nothing lost
        assert events[-1].command == {"type": "abort", "reason": "timing_failure"}

        # A player coming back, to the server that lives, is told how and why it ended.
        async with connect(b.ws_url(match.match_id, match.tokens[1]), compression=None) as ws:
            state = json.loads(await ws.recv())
        assert state["type"] == "state"
        assert state["match"]["status"] == "aborted"
        assert state["match"]["result"]["reason"] == "timing_failure"


async def test_a_server_paused_past_its_lease_writes_nothing_more(
    target: Target, tmp_path: Path
) -> None:
    async with AsyncExitStack() as stack:
        a, b = await two_servers(stack, target, tmp_path, "--lease-ms", str(LEASE_MS))
        match = await mid_round(stack, a, 4)
        a.process.send_signal(signal.SIGSTOP)
        try:
            await ended_on(b, match.match_id, match.tokens[0], LEASE_MS / 1000 + 2 + SCAN_S)
        finally:
            a.process.send_signal(signal.SIGCONT)
        _, ended = await stored(target, match.match_id)
        for seat in match.seats:  # a's players, still on a, try to play on
            seat.acting = True
            seat.decide()
        await asyncio.sleep(LEASE_MS / 1000)
        header, events = await stored(target, match.match_id)
        assert header.status is MatchStatus.ABORTED
        assert events == ended  # a wrote nothing after its lease was taken
        assert "lost its lease" in a.log()
        assert a.process.poll() is None  # alive: it registered again, under a new identity
        assert "registered again as" in a.log()
