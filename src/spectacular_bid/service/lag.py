"""The loop-lag monitor behind D5: a stalled event loop means the clocks were not measured.

A task wakes every ``tick_ms``; if it wakes more than ``threshold_ms`` late, the loop was stalled
and every match whose clock was running is aborted as a service timing failure. Code about to take
a timing decision (a flag, a command's charge) also asks :meth:`LagMonitor.is_healthy`, because
after a stall a timer may run before the monitor's own wake-up does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from spectacular_bid.service.timesource import MsSource

log = logging.getLogger(__name__)


class LagMonitor:
    def __init__(
        self,
        now_ms: MsSource,
        threshold_ms: int,
        tick_ms: int,
        on_stall: Callable[[int], None],
        on_tick: Callable[[int, int], None] | None = None,
    ) -> None:
        self._now_ms = now_ms
        self.threshold_ms = threshold_ms
        self.tick_ms = tick_ms
        self._on_stall = on_stall
        self._on_tick = on_tick
        """Told ``(now_ms, lag_ms)`` at every wake-up: admission control's lag signal."""
        self.last_tick_ms = now_ms()
        self.stalls = 0
        self.last_stall_end_ms: int | None = None
        self._task: asyncio.Task[None] | None = None

    def is_healthy(self, since_ms: int, now_ms: int) -> bool:
        """True when the loop ran freely from ``since_ms`` to ``now_ms``: no stall was detected
        that ended in that span, and none is going on unnoticed (the monitor is not overdue)."""
        if now_ms - self.last_tick_ms > self.threshold_ms + self.tick_ms:
            return False
        return self.last_stall_end_ms is None or self.last_stall_end_ms < since_ms

    def start(self) -> None:
        self.last_tick_ms = self._now_ms()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="lag-monitor")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.tick_ms / 1000)
            now = self._now_ms()
            lag = now - self.last_tick_ms - self.tick_ms
            if lag > self.threshold_ms:
                self.stalls += 1
                self.last_stall_end_ms = now
                log.error("event loop stalled for %d ms (threshold %d)", lag, self.threshold_ms)
                self._on_stall(lag)
            if self._on_tick is not None:
                self._on_tick(now, lag)
            self.last_tick_ms = now
