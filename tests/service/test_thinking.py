"""The bots think in worker processes (PROTOCOL.md "POST /api/matches"): off the event loop, so a
search never stalls the server's clocks (D5), and with nothing but the decision's input in reach."""

from __future__ import annotations

import asyncio
import os

import pytest

from bots.positions import random_position
from spectacular_bid.rules.match import Phase
from spectacular_bid.service.thinking import Thinker
from waiting import until


async def test_a_worker_process_answers_with_a_legal_action() -> None:
    thinker = Thinker(1)
    try:
        for seed in range(4):
            game = random_position(seed, steps=12)
            seat = game.to_act
            action = await thinker.decide(4, seat, game.seen[seat], budget_s=0.05)
            assert action in game.match.legal_actions()
    finally:
        thinker.close()


async def test_the_event_loop_runs_while_a_bot_thinks() -> None:
    """A level 5 search of 0.4 s (an auction: valued for the whole budget) runs in another
    process: the loop's ticks go on meanwhile."""
    thinker = Thinker(1)
    await thinker.warm()
    try:
        game = random_position(1, steps=32)
        assert game.match.phase is Phase.AUCTION
        assert len(game.match.legal_actions()) > 2
        seat = game.to_act
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)  # the loop's own pace, counted: the thing measured
                ticks += 1

        ticking = asyncio.create_task(tick())
        started = asyncio.get_running_loop().time()
        await thinker.decide(5, seat, game.seen[seat], budget_s=0.4)
        thought = asyncio.get_running_loop().time() - started
        ticking.cancel()
        assert thought >= 0.2  # it did search
        assert ticks >= 10  # in-process, a 0.4 s search would have allowed none
    finally:
        thinker.close()


async def test_a_dead_worker_is_replaced() -> None:
    thinker = Thinker(1)
    await thinker.warm()
    try:
        pool = thinker._executor()
        for pid in list(pool._processes):  # the pool's own record of its workers
            os.kill(pid, 9)
        await until(lambda: pool._broken, what="the pool saw its workers die")
        game = random_position(3, steps=10)
        seat = game.to_act
        action = await thinker.decide(2, seat, game.seen[seat], budget_s=0.0)
        assert action in game.match.legal_actions()
    finally:
        thinker.close()


def test_a_thinker_needs_a_worker() -> None:
    with pytest.raises(ValueError, match="worker"):
        Thinker(0)
