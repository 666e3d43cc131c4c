"""PostgreSQL closing the servers' connections again and again (``pg_terminate_backend``) kills
none of their periodic tasks (``service.periodic``; OPERATIONS.md, "Running it for real": PostgreSQL
connections dropped): afterwards a SIGTERM still stops the owner cleanly, every live match of
it handed to its peer, which runs them on."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import httpx
import pytest
from sqlalchemy import make_url, text
from sqlalchemy.ext.asyncio import create_async_engine

from spectacular_bid.store.engine import database_url

from .conftest import Target
from .live import Server, bearer, guest
from .test_handover import handed_table, owner_pid
from .test_relay import redis_url as redis_url
from .test_relay import servers

STORM_S = 4.0
"""How long the connections are cut: several of every task's ticks (a second apart)."""
SHUTDOWN_FAILED = "Application shutdown failed"
"""What uvicorn logs when the app's shutdown raised (a task that died in silence did)."""


async def storm(target: Target, seconds: float) -> int:
    """Terminate every other backend of the test's database, again and again, for
    ``seconds``; how many were terminated."""
    name = make_url(target.url).database
    engine = create_async_engine(database_url(target.url), isolation_level="AUTOCOMMIT")
    terminated = 0
    try:
        async with engine.connect() as conn:
            ends = time.monotonic() + seconds
            while time.monotonic() < ends:
                result = await conn.execute(
                    text(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                        "WHERE datname = :name AND pid <> pg_backend_pid()"
                    ),
                    {"name": name},
                )
                terminated += int(result.scalar_one())
                await asyncio.sleep(0.05)  # the cadence of the storm, not a synchronisation
    finally:
        await engine.dispose()
    return terminated


async def ready(server: Server, within_s: float = 20.0) -> None:
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
        while True:
            response = await http.get("/readyz")
            if response.status_code == 200:
                return
            assert time.monotonic() - started < within_s, (response.text, server.log()[-3000:])
            await asyncio.sleep(0.1)


async def taken_over(
    request: Callable[[], Awaitable[httpx.Response]], within_s: float = 20.0
) -> httpx.Response:
    """``request``'s answer once the peer has finished taking the match over: until then it
    answers 503 ``server_busy`` ("being taken over by this server; try again"), which a client
    retries after Retry-After (PROTOCOL.md "When the server is busy")."""
    started = time.monotonic()
    while True:
        response = await request()
        busy = response.status_code == 503 and "taken over" in response.text
        if not busy or time.monotonic() - started > within_s:
            return response
        await asyncio.sleep(0.1)  # the poll's cadence, sooner than Retry-After, not a sync


async def test_a_connection_storm_then_sigterm_hands_every_match_over_cleanly(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    if target.backend != "postgresql":
        pytest.skip("pg_terminate_backend is PostgreSQL's")
    async with AsyncExitStack() as stack:
        a, b = await servers(stack, target, tmp_path, redis_url, 2)
        playing = await handed_table(stack, a, b)
        await playing.pause_mid_round(from_version=4)
        async with httpx.AsyncClient(base_url=a.url, timeout=10) as on_a:
            cy = await guest(on_a, "Cy")
            made = await on_a.post("/api/matches", json={"mode": "invite"}, headers=bearer(cy))
            assert made.status_code == 201, made.text
        waiting_id = made.json()["id"]

        assert await storm(target, STORM_S) > 0
        await asyncio.gather(ready(a), ready(b))  # both came through it

        a.process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(a.process.wait, 30) == -signal.SIGTERM
        log = a.log()
        assert SHUTDOWN_FAILED not in log, log[-3000:]
        assert "handed 2 live match(es) to server" in log, log[-3000:]
        for match_id in (playing.match_id, waiting_id):
            assert await owner_pid(target, match_id) == b.process.pid
        async with httpx.AsyncClient(base_url=b.url, timeout=10) as on_b:
            dee = await guest(on_b, "Dee")
            joined = await taken_over(
                lambda: on_b.post(f"/api/matches/{waiting_id}/join", headers=bearer(dee))
            )
            assert joined.status_code == 200, joined.text
            for match_id, token in ((playing.match_id, playing.tokens[0]), (waiting_id, cy)):
                read = await on_b.get(f"/api/matches/{match_id}", headers=bearer(token))
                assert read.status_code == 200, read.text
                assert read.json()["match"]["status"] == "active"
