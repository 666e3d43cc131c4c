"""The loop-lag monitor behind D5: a stalled event loop means the clocks were not measured.

A task wakes every ``tick_ms``; if it wakes more than ``threshold_ms`` late, the loop was stalled
and every match whose clock was running is aborted as a service timing failure. Code about to take
a timing decision (a flag, a command's charge) also asks :meth:`LagMonitor.is_healthy`, because
after a stall a timer may run before the monitor's own wake-up does.

It runs as a :class:`~spectacular_bid.service.periodic.Periodic` task: an exception from a
listener is logged and counted, and the next tick measures as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from spectacular_bid.service.periodic import Periodic, TaskHealth
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
        tasks: TaskHealth | None = None,
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
        self._periodic = Periodic(
            "lag-monitor", tick_ms / 1000, self.tick, tasks if tasks is not None else TaskHealth()
        )

    def is_healthy(self, since_ms: int, now_ms: int) -> bool:
        """True when the loop ran freely from ``since_ms`` to ``now_ms``: no stall was detected
        that ended in that span, and none is going on unnoticed (the monitor is not overdue)."""
        if now_ms - self.last_tick_ms > self.threshold_ms + self.tick_ms:
            return False
        return self.last_stall_end_ms is None or self.last_stall_end_ms < since_ms

    def start(self) -> None:
        self.last_tick_ms = self._now_ms()
        self._periodic.start()

    async def stop(self) -> None:
        await self._periodic.stop()

    async def tick(self) -> None:
        """One wake-up: how late it is, a stall's aborts, the listeners. The time is taken
        first, so a listener that raises costs the next tick nothing."""
        now = self._now_ms()
        lag = now - self.last_tick_ms - self.tick_ms
        self.last_tick_ms = now
        if lag > self.threshold_ms:
            self.stalls += 1
            self.last_stall_end_ms = now
            log.error("event loop stalled for %d ms (threshold %d)", lag, self.threshold_ms)
            self._on_stall(lag)
        if self._on_tick is not None:
            self._on_tick(now, lag)
