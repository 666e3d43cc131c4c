"""A match against the computer survives a deploy (PROTOCOL.md "Several servers on one database"):
SIGTERM of the server it runs on hands it to a live peer, whose own computer takes the seat, caught
up on every version, and plays it to its end."""

from __future__ import annotations

import asyncio
import random
import signal
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from spectacular_bid.service.record_document import parse_document
from spectacular_bid.service.replay import verify
from waiting import until

from .conftest import Target
from .live import Seat, bearer, guest
from .test_relay import redis_url as redis_url
from .test_relay import servers

BOT_FLAGS = ("--bot-delay-ms", "0", "--bot-budget-scale", "0.05")


def _waits_on_the_player(view: dict[str, Any]) -> bool:
    if view["status"] in ("finished", "aborted"):
        return False
    awaiting_start = view["phase"] == "awaiting_deal" and not view["ready"][view["audience"]]
    return bool(view.get("legal")) or awaiting_start


async def test_a_bot_match_is_handed_over_and_played_to_its_end(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    async with AsyncExitStack() as stack:
        a, b = await servers(stack, target, tmp_path, redis_url, 2, *BOT_FLAGS)
        async with httpx.AsyncClient(base_url=a.url, timeout=10) as on_a:
            ann = await guest(on_a, "Ann")
            made = await on_a.post(
                "/api/matches", json={"mode": "bot", "level": 3}, headers=bearer(ann)
            )
            assert made.status_code == 201, made.text
        match_id = made.json()["id"]
        before = Seat(await connect(a.ws_url(match_id, ann), compression=None), random.Random(1))

        def ann_stops_at_version_10(frame: dict[str, Any]) -> None:
            before.acting = before.version < 10
            before.on_frame(frame)

        reading = asyncio.create_task(before.read(ann_stops_at_version_10))
        # With the computer's delay at 0 the match could end before the SIGTERM lands: it is
        # stood waiting on Ann instead, her decision's clock running or her Start awaited.
        await until(lambda: before.version >= 10 and _waits_on_the_player(before.match))

        a.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(before.ws.wait_closed(), 10)
        assert before.ws.close_code == 1012
        assert await asyncio.to_thread(a.process.wait, 20) == -signal.SIGTERM
        await reading

        since = str(before.version)
        after = Seat(
            await connect(b.ws_url(match_id, ann, since=since), compression=None),
            random.Random(2),
        )
        playing = asyncio.create_task(after.read(after.on_frame))
        try:
            await until(lambda: after.match is not None and after.match["status"] == "finished")
        finally:
            await after.ws.close()
            await playing
        assert after.match["bot_level"] == 3
        assert after.match["result"]["reason"] == "zero_balance"
        async with httpx.AsyncClient(base_url=b.url, timeout=10) as on_b:
            record = (await on_b.get(f"/api/matches/{match_id}/record")).json()
    commands = [v["command"]["type"] for v in record["versions"]]
    assert "hand_over" in commands
    assert "resume" in commands
    resumed_at = commands.index("resume")
    later = record["versions"][resumed_at + 1 :]
    assert any(v["seat"] == "second" for v in later)  # the peer's computer played on
    assert verify(parse_document(record)).versions == len(record["versions"])
    assert "was refused" not in b.log()
    assert "Traceback" not in a.log() + b.log()
