"""Who is there counts on every server process, and across a hand-over (D3, D8).

A creator whose waiting page is on another process than the one that runs her invitation (the
relay) holds it open as a local socket would; when she closes it, the join timeout runs from
then. A deploy that hands the invitation to a peer keeps it waiting there: her page reconnects
to the peer, which counts her again, and the friend joins there. The join timeout is 800 ms
here: "nothing ends it" is several timeouts of quiet.
"""

from __future__ import annotations

import asyncio
import json
import signal
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Final

import httpx
from websockets.asyncio.client import connect

from spectacular_bid.service.record_document import parse_document
from spectacular_bid.service.replay import verify

from .conftest import Target
from .live import Server, Watcher, bearer, guest
from .test_relay import redis_url as redis_url
from .test_relay import servers

TIMEOUT_MS: Final = 800


async def quiet(watcher: Watcher, seconds: float) -> None:
    """No new version reaches ``watcher`` within ``seconds``: nothing ended the match."""
    version = watcher.version
    await asyncio.sleep(seconds)  # the time under test: it passes, and nothing may happen in it
    assert watcher.version == version, watcher.frames[-1]


async def waiting_page(
    server: Server, match_id: str, token: str
) -> tuple[Watcher, asyncio.Task[None]]:
    watcher = Watcher(await connect(server.ws_url(match_id, token), compression=None))
    task = asyncio.create_task(watcher.read())
    while watcher.version < 0:
        await asyncio.wait_for(watcher.changed.wait(), 10)
        watcher.changed.clear()
    return watcher, task


async def status(server: Server, match_id: str) -> str:
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        read = await http.get(f"/api/matches/{match_id}")
        assert read.status_code == 200, read.text
        found: str = read.json()["match"]["status"]
        return found


async def test_d3_a_creator_on_another_process_holds_her_invitation(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    async with AsyncExitStack() as stack:
        a, b = await servers(
            stack, target, tmp_path, redis_url, 2, "--join-timeout-ms", str(TIMEOUT_MS)
        )
        async with httpx.AsyncClient(base_url=a.url, timeout=10) as on_a:
            ann = await guest(on_a, "Ann")
            made = await on_a.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
            assert made.status_code == 201, made.text
        match_id = made.json()["id"]
        page, task = await waiting_page(b, match_id, ann)  # relayed to a, which runs it
        await quiet(page, 4 * TIMEOUT_MS / 1000)
        assert await status(a, match_id) == "waiting"
        spectator, watching = await waiting_page(a, match_id, "")
        loop = asyncio.get_running_loop()
        left_at = loop.time()
        await page.ws.close()
        task.cancel()
        while spectator.match["status"] == "waiting":
            await asyncio.wait_for(spectator.changed.wait(), 10)
            spectator.changed.clear()
        assert loop.time() - left_at >= TIMEOUT_MS / 1000
        assert spectator.match["result"] == {"winner": None, "reason": "join_timeout"}
        await spectator.ws.close()
        watching.cancel()


async def test_d3_a_hand_over_keeps_a_waiting_invitation_open_at_the_peer(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    async with AsyncExitStack() as stack:
        a, b = await servers(
            stack, target, tmp_path, redis_url, 2, "--join-timeout-ms", str(TIMEOUT_MS)
        )
        async with httpx.AsyncClient(base_url=a.url, timeout=10) as on_a:
            ann, bo = await guest(on_a, "Ann"), await guest(on_a, "Bo")
            made = await on_a.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
            assert made.status_code == 201, made.text
        match_id = made.json()["id"]
        page, task = await waiting_page(a, match_id, ann)
        a.process.send_signal(signal.SIGTERM)  # a deploy: a hands its matches to b
        await asyncio.wait_for(page.ws.wait_closed(), 10)
        assert page.ws.close_code == 1012
        task.cancel()
        assert await asyncio.to_thread(a.process.wait, 20) == -signal.SIGTERM
        again, task = await waiting_page(b, match_id, ann)  # her page reconnects to b
        assert again.match["status"] == "waiting"
        await quiet(again, 4 * TIMEOUT_MS / 1000)
        async with httpx.AsyncClient(base_url=b.url, timeout=10) as on_b:
            joined = await on_b.post(f"/api/matches/{match_id}/join", headers=bearer(bo))
            assert joined.json() == {"seat": "second"}, joined.text
            played = await on_b.get(f"/api/matches/{match_id}")
            assert played.json()["match"]["status"] == "active"
        await again.ws.close()
        task.cancel()
        assert "handed 1 live match(es) to server" in a.log()
        assert "Traceback" not in a.log() + b.log()
        # End it, so that its record can be read and verified.
        async with httpx.AsyncClient(base_url=b.url, timeout=10) as on_b:
            seat, watch = await waiting_page(b, match_id, bo)
            await seat.ws.send(json.dumps({"type": "resign", "version": seat.version}))
            while seat.match["status"] == "active":
                await asyncio.wait_for(seat.changed.wait(), 10)
                seat.changed.clear()
            watch.cancel()
            record = (await on_b.get(f"/api/matches/{match_id}/record")).json()
        commands = [v["command"]["type"] for v in record["versions"]]
        assert commands == ["hand_over", "resume", "join", "resign"]
        assert verify(parse_document(record)).versions == 4
