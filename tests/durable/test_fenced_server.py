"""A server paused past its lease knows it was fenced off, and comes back (OPERATIONS.md, "Running
it for real": a lost lease), on PostgreSQL with the relay on Redis, as several replicas run.

Two real processes. One is stopped (SIGSTOP) past its lease while a match of its stands mid-
round; its peer ends that match (D5). The requests that reach the paused process meanwhile wait
in its socket's backlog and are answered the moment it wakes (SIGCONT): ``/readyz`` 503 with the
reason, every write ``503 server_busy`` with ``Retry-After``, no 500 anywhere. Then it registers
again under a new identity and epoch, owning nothing, and is ready and creates matches again.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine
from websockets.asyncio.client import connect

from spectacular_bid.service.ports import MatchStatus
from spectacular_bid.store.engine import database_url

from .conftest import Target
from .live import Server, Watcher, bearer, guest
from .test_relay import redis_url as redis_url
from .test_relay import servers
from .test_several_servers import SCAN_S, ended_on, mid_round, stored

LEASE_MS = 3_000
BACK_WITHIN_S = 15.0
"""The bound on coming back: the failover's next scans (a second apart), admission's hold
after the loop's lag at waking (3 s), and a loaded machine."""
ASGI_FAILURE = "Exception in ASGI application"
"""What uvicorn logs for an unhandled exception, answered 500."""


async def server_rows(target: Target, server: Server) -> dict[str, tuple[int, bool]]:
    """The ``server`` rows of ``server``'s process: id -> (epoch, gone)."""
    engine = create_async_engine(database_url(target.url))
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                text("SELECT id, epoch, gone FROM server WHERE host LIKE :pid"),
                {"pid": f"%:{server.process.pid}"},
            )
            return {row.id: (row.epoch, bool(row.gone)) for row in rows}
    finally:
        await engine.dispose()


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


Asked = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def sent(
    server: Server, method: str, path: str, body: Any = None, token: str | None = None
) -> Asked:
    """A request written whole into ``server``'s socket (its kernel buffer): it is there
    whether or not the process runs, and is read first when it does."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    payload = b"" if body is None else json.dumps(body).encode()
    head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{server.port}", "Connection: close"]
    head += [f"Content-Length: {len(payload)}", "Content-Type: application/json"]
    head += [f"Authorization: Bearer {token}"] if token else []
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
    await writer.drain()
    return reader, writer


async def answer(asked: Asked) -> Answer:
    reader, writer = asked
    raw = await asyncio.wait_for(reader.read(), timeout=30)
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *lines = head.decode().split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines)}
    if headers.get("transfer-encoding") == "chunked":
        body = _unchunked(body)
    return Answer(int(status_line.split()[1]), headers, body)


def _unchunked(body: bytes) -> bytes:
    out = b""
    while body:
        size_text, _, rest = body.partition(b"\r\n")
        size = int(size_text, 16)
        if size == 0:
            break
        out, body = out + rest[:size], rest[size + 2 :]
    return out


async def admitted_match(http: httpx.AsyncClient, token: str, started: float) -> httpx.Response:
    """A new match, as a client makes one: a ``server_busy`` is tried again after its
    ``Retry-After`` (the loop's lag at waking, seconds long, keeps admission busy a moment)."""
    while True:
        made = await http.post("/api/matches", json={"mode": "invite"}, headers=bearer(token))
        if made.status_code == 201:
            return made
        assert made.status_code == 503, made.text
        assert made.json()["error"]["code"] == "server_busy"
        assert time.monotonic() - started < BACK_WITHIN_S, made.text
        await asyncio.sleep(min(1.0, int(made.headers["retry-after"])))


async def test_a_server_paused_past_its_lease_refuses_then_registers_again(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    if target.backend != "postgresql":
        pytest.skip("several replicas run on PostgreSQL with Redis")
    async with AsyncExitStack() as stack:
        a, b = await servers(stack, target, tmp_path, redis_url, 2, "--lease-ms", str(LEASE_MS))
        [first_id] = await server_rows(target, a)
        match = await mid_round(stack, a, 5)
        async with httpx.AsyncClient(base_url=a.url, timeout=10) as http:
            ann = await guest(http, "Cy")
        async with httpx.AsyncClient(base_url=b.url, timeout=10) as http:
            eve = await guest(http, "Eve")
            on_b = await http.post("/api/matches", json={"mode": "invite"}, headers=bearer(eve))
            assert on_b.status_code == 201, on_b.text
        # A spectator on a of b's match: relayed, known to b by a's first identity.
        relayed = Watcher(await connect(a.ws_url(on_b.json()["id"]), compression=None))
        watching = asyncio.create_task(relayed.read())
        await relayed.changed.wait()
        _, before = await stored(target, match.match_id)

        a.process.send_signal(signal.SIGSTOP)
        try:
            # The lease, the peer's next scan, and a loaded machine's slack.
            await ended_on(b, match.match_id, match.tokens[0], LEASE_MS / 1000 + 10 + SCAN_S)
            # Sent while it sleeps: written into its socket's backlog, first in line at waking.
            asked = [
                await sent(a, "GET", "/readyz"),
                await sent(a, "POST", "/api/session", {"name": "Dee"}),
                await sent(a, "POST", "/api/login", {"name": "Dee", "password": "x" * 12}),
                await sent(a, "POST", "/api/matches", {"mode": "invite"}, ann),
                await sent(a, "GET", "/api/lobby"),
                await sent(a, "GET", f"/api/matches/{match.match_id}", token=ann),
            ]
            for seat in match.seats:  # its players, still on it, try to play on
                seat.acting = True
                seat.decide()
            a.process.send_signal(signal.SIGCONT)
            ready, *answers = await asyncio.gather(*(answer(r) for r in asked))
        finally:
            a.process.send_signal(signal.SIGCONT)

        assert ready.status == 503, ready.body
        assert ready.json()["ready"] is False
        assert any("lease" in reason for reason in ready.json()["reasons"]), ready.body
        session, login, created, lobby, read = answers
        for refused in (session, login, created):
            assert refused.status == 503, refused.body
            assert refused.json()["error"]["code"] == "server_busy"
            assert int(refused.headers["retry-after"]) >= 1
        assert lobby.status == 200, lobby.body
        assert read.status < 500, read.body
        for seat in match.seats:  # a refusal or a closed socket, never a crash
            assert all(e.get("code") == "server_busy" for e in seat.errors), seat.errors

        # Back: ready under a new identity and epoch, owning nothing of before.
        started = time.monotonic()
        async with httpx.AsyncClient(base_url=a.url, timeout=10) as http:
            while (await http.get("/readyz")).status_code != 200:
                assert time.monotonic() - started < BACK_WITHIN_S, a.log()[-3000:]
                await asyncio.sleep(0.1)
            rows = await server_rows(target, a)
            assert rows[first_id][1] is True  # the fenced identity stays gone
            [second_id] = [i for i, (epoch, gone) in rows.items() if not gone]
            assert second_id != first_id
            assert rows[second_id][0] == 0
            made = await admitted_match(http, ann, started)
        # The relayed socket was closed for its client to reconnect (1012), not left stale.
        await asyncio.wait_for(watching, BACK_WITHIN_S)
        assert relayed.ws.close_code == 1012
        engine = create_async_engine(database_url(target.url))
        try:
            async with engine.connect() as conn:
                owner = await conn.execute(
                    text("SELECT server_id FROM match_owner WHERE match_id = :m"),
                    {"m": made.json()["id"]},
                )
                assert owner.scalar_one() == second_id
        finally:
            await engine.dispose()
        # The match it ran was ended by its peer; it wrote nothing of it after.
        header, events = await stored(target, match.match_id)
        assert header.status is MatchStatus.ABORTED
        assert events[: len(before)] == before
        assert len(events) == len(before) + 1
        assert ASGI_FAILURE not in a.log()
        assert "registered again as" in a.log()
