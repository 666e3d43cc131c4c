"""A real SIGTERM to a real server with ``--drain-s`` (PROTOCOL.md "Probes and metrics"): it stays
up, unready and refusing new matches, until its last match has ended, then stops; its log is JSON
lines."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path

import httpx

from .conftest import Target
from .live import bearer, guest, running_server

JOIN_TIMEOUT_MS = 3_000


async def test_sigterm_drains_until_the_last_match_ends(target: Target, tmp_path: Path) -> None:
    flags = ("--drain-s", "60", "--join-timeout-ms", str(JOIN_TIMEOUT_MS), "--log-format", "json")
    async with (
        running_server(target, tmp_path, *flags) as server,
        httpx.AsyncClient(base_url=server.url, timeout=5) as http,
    ):
        assert (await http.get("/readyz")).json()["ready"] is True
        ann = await guest(http, "Ann")
        made = await http.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
        assert made.status_code == 201
        created = time.monotonic()  # nobody joins: the join timeout (D3) will end it
        server.process.send_signal(signal.SIGTERM)
        readiness = await _until_unready(http)
        assert readiness.status_code == 503
        assert readiness.json()["draining"] is True
        refused = await http.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
        assert refused.status_code == 503
        assert refused.json()["error"]["code"] == "server_busy"
        assert server.process.poll() is None  # still serving while the match is live
        returncode = await asyncio.to_thread(server.process.wait, 30)
        stopped = time.monotonic()
    assert stopped - created >= JOIN_TIMEOUT_MS / 1000  # it waited for the match to end
    assert returncode == -signal.SIGTERM  # then stopped as uvicorn does on that signal
    lines = [json.loads(line) for line in server.log().splitlines() if line.strip()]
    messages = [line["message"] for line in lines]
    assert "draining: waiting up to 60 s for 1 live matches to end" in messages
    assert "drained: every match has ended" in messages
    assert all({"time", "level", "logger", "message"} <= set(line) for line in lines)


async def _until_unready(http: httpx.AsyncClient) -> httpx.Response:
    """``/readyz`` once it says 503 (the signal is taken at uvicorn's next tick)."""
    for _ in range(100):
        response = await http.get("/readyz")
        if response.status_code != 200:
            return response
        await asyncio.sleep(0.05)
    raise AssertionError("the server never became unready after SIGTERM")
