"""A match's alarms: the asyncio timers behind the machine's :class:`~spectacular_bid.service
.state.Timers` (the flag deadline, R7.7, D7; the grace and the join timeout, D3; a shared
device's abandon timeout, D8).

An alarm only says "it may be time": when it rings, the actor feeds the machine the matching input
and the machine decides whether it is due, so a timer that fires early never flags early.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from enum import Enum
from typing import Final

from spectacular_bid.service.state import Timers

RETRY_MS: Final = 1_000
"""How soon an alarm whose work was refused (storage down, a deadline not yet passed in the
machine's eyes) rings again, instead of ringing in a tight loop."""


class TimerKind(Enum):
    FLAG = "flag"
    GRACE = "grace"
    JOIN = "join"
    ABANDON = "abandon"


class Alarms:
    def __init__(self, ring: Callable[[TimerKind], None]) -> None:
        self._ring = ring
        self._armed: dict[TimerKind, tuple[int, asyncio.TimerHandle]] = {}
        self._closed = False

    def arm(self, due: Timers, now_ms: int, *, retry: bool = False) -> None:
        """Arm exactly the alarms ``due`` needs. With ``retry`` (after refused work) an alarm
        that already rang for a deadline now passed rings again in :data:`RETRY_MS`; one still
        pending keeps its time."""
        for kind, at_ms in (
            (TimerKind.FLAG, due.flag_ms),
            (TimerKind.GRACE, due.grace_ms),
            (TimerKind.JOIN, due.join_ms),
            (TimerKind.ABANDON, due.abandon_ms),
        ):
            if retry and at_ms is not None and at_ms <= now_ms and kind not in self._armed:
                at_ms = now_ms + RETRY_MS
            self._arm(kind, at_ms, now_ms)

    def close(self) -> None:
        self._closed = True
        for _at, handle in self._armed.values():
            handle.cancel()
        self._armed.clear()

    def _arm(self, kind: TimerKind, at_ms: int | None, now_ms: int) -> None:
        armed = self._armed.get(kind)
        if armed is not None:
            if armed[0] == at_ms:
                return
            armed[1].cancel()
            del self._armed[kind]
        if at_ms is None or self._closed:
            return
        loop = asyncio.get_running_loop()
        handle = loop.call_later(max(0, at_ms - now_ms) / 1000, self._rang, kind)
        self._armed[kind] = (at_ms, handle)

    def _rang(self, kind: TimerKind) -> None:
        self._armed.pop(kind, None)
        self._ring(kind)
