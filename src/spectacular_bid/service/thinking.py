"""Where a computer opponent thinks: a pool of worker processes, off the event loop,
so a searching bot never stalls the server's clocks (D5).

A worker is given a decision's whole input — the level, the seat, the events that seat has seen
(already filtered, R2.2), a seed and a budget — and nothing else: it runs in another process, so
no live match, store or other hand is within its reach. Workers are started by ``spawn``: a fork
of a server that runs database threads could inherit a held lock.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import random
import secrets
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from spectacular_bid.bots import decide
from spectacular_bid.rules.actions import Event, SeatAction
from spectacular_bid.rules.seats import Seat

log = logging.getLogger(__name__)


def think(level: int, seat: Seat, seen: Sequence[Event], seed: int, budget_s: float) -> SeatAction:
    """One decision, in a worker: the bot's clock is this process's, its randomness the seed's."""
    return decide(
        level, seat, seen, random.Random(seed), clock=time.perf_counter, budget_s=budget_s
    )


def _ready() -> bool:
    return True


class Thinker:
    """The worker pool, started with the first decision and started again if a worker dies."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"a thinker needs at least one worker, not {workers!r}")
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(self.workers, mp_context=context)
        return self._pool

    async def warm(self) -> None:
        """Start the workers now, so that the first decision does not wait for an import."""
        loop = asyncio.get_running_loop()
        await asyncio.gather(
            *(loop.run_in_executor(self._executor(), _ready) for _ in range(self.workers))
        )

    async def decide(
        self, level: int, seat: Seat, seen: Sequence[Event], budget_s: float
    ) -> SeatAction:
        """``seat``'s action at ``level``, thought out in a worker within ``budget_s``. A pool
        whose worker died is replaced once; a second failure is the caller's to handle."""
        seed = secrets.randbits(64)
        args = (level, seat, tuple(seen), seed, budget_s)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(), think, *args)
        except BrokenProcessPool:
            log.warning("a bot worker died; starting the pool again")
            self.close()
            return await loop.run_in_executor(self._executor(), think, *args)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
