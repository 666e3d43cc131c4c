"""Admission control (PROTOCOL.md "When the server is busy"): refuse new work before the live
matches suffer.

A server offered more matches than it can time must not let every match's clock degrade until
the D5 monitor aborts them all as timing failures. So new matches are refused with
``server_busy`` (HTTP 503 with ``Retry-After``) while any of three signals says the server is
near its capacity; matches already running are never touched by this. A match is admitted once,
when it is created: the join of its second seat belongs to it and is never refused as busy
(``MatchService.join`` says why).

- **Loop lag**: how late the lag monitor's ticks wake, on average over the last
  :data:`LAG_WINDOW_TICKS` ticks. It is the signal closest to what the clocks feel (R7.7: every
  charge is read when the loop gets to a message). The mean, not the largest: one pause (a
  burst of handshakes, a collection) is not a lack of capacity, a loop late at every tick is.
- **CPU**: the process's share of one core over the last :data:`CPU_WINDOW_MS`. A loop can be
  on time and still be about to saturate; CPU tells that earlier than the lag does.
- **Live matches**: an optional cap (``service.live_cap``): the operator's, or an estimate
  of this machine's speed that the server revises while it runs (never pinned by a start-up
  measurement).

Each stall of :data:`PAUSE_MS` or more is kept with what the loop's thread did through it
(:class:`Pause`): on a machine whose cores the server shares, a stall the loop spent working is
the server's to cut, one it spent preempted is the machine's, and one it spent neither is a
blocking call on the loop.

Once busy, the server stays busy for :data:`HOLD_MS` after the last busy reading, so a burst of
creations does not slip through between two ticks (hysteresis).

A server that is **draining** (asked to stop: ``web/drain.py``) is busy for good:
it takes no new match, so a client retries and, through the proxy, reaches a server that stays,
while the matches already here play on to their end.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Final, NamedTuple

from spectacular_bid.service.live_cap import LiveMatchCap
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.settings import Capacity
from spectacular_bid.service.timesource import MsSource, ThreadUsage, UsageSource, thread_usage

LAG_WINDOW_TICKS: Final = 10
"""Ticks of the lag monitor whose mean lag is the current lag (1 s at 100 ms ticks)."""
CPU_WINDOW_MS: Final = 2_000
"""The span over which the process's CPU share is measured."""
HOLD_MS: Final = 3_000
"""How long the server stays busy after its last busy reading."""
WARMUP_MS: Final = 2_000
"""Readings in the first this long after start are not load: the server's start-up work
(migrations, recovery, freezing the start-up objects) makes the first ticks late."""
PAUSE_MS: Final = 20
"""A tick this late or later is kept in :attr:`Admission.pauses`."""
PAUSES_KEPT: Final = 256
RETRY_AFTER_S: Final = 5
"""What a client refused for the loop's lag (or the CPU) is told to wait: a lag passes in
seconds."""
RETRY_AFTER_AT_CAP_S: Final = 30
"""What a client refused at the live-match cap is told to wait. A place frees only when a match
ends, minutes apart; at 4,000 offered matches, 1,700 clients retrying every 5 s sent 330
refused requests a second, a tenth of the server's core."""


class Pause(NamedTuple):
    """One late tick: when it woke, how late, and what the loop's thread did over the tick's
    whole interval (its nominal length plus ``lag_ms``)."""

    at_ms: int
    lag_ms: int
    cpu_ms: int
    """CPU the loop's thread used in the interval."""
    preempted: int
    """Times the kernel took the CPU from the loop's thread in the interval while it could run."""


@dataclass(frozen=True, slots=True)
class Load:
    """The readings behind a decision, for the refusal's message and the benchmarks."""

    lag_ms: int
    cpu: float
    live_matches: int


class Admission:
    """The three signals, fed by the lag monitor's ticks, and the decision on new work."""

    def __init__(
        self,
        capacity: Capacity,
        now_ms: MsSource,
        cpu_ms: MsSource,
        usage: UsageSource = thread_usage,
    ) -> None:
        self.capacity = capacity
        self.cap = LiveMatchCap(capacity.max_live_matches)
        """The live-match cap now: the settings' (the operator's) unless the composition root
        gives one the server estimates (``web/app.py``)."""
        self._now_ms = now_ms
        self._cpu_ms = cpu_ms
        self._usage = usage
        self._last_usage: ThreadUsage | None = None
        self._lags: deque[int] = deque(maxlen=LAG_WINDOW_TICKS)
        self._cpu_samples: deque[tuple[int, int]] = deque()
        self._busy_until_ms = -1
        self.draining = False
        """Set once by :meth:`start_draining`; never cleared (the process is stopping)."""
        self._started_ms: int | None = None
        self.admitted = 0
        self.refused = 0
        self.max_lag_ms = 0
        """The longest loop stall seen since start (after the warm-up)."""
        self.pauses: deque[Pause] = deque(maxlen=PAUSES_KEPT)
        """The latest ticks at least :data:`PAUSE_MS` late, so that a benchmark can find the
        longest pause within its own window, and tell what it was."""

    def on_tick(self, now_ms: int, lag_ms: int) -> None:
        """One wake-up of the lag monitor, ``lag_ms`` late (on the loop's thread: the usage
        read here is the loop's)."""
        usage, before = self._usage(), self._last_usage
        self._last_usage = usage
        if self._started_ms is None:
            self._started_ms = now_ms
        if now_ms - self._started_ms < WARMUP_MS:
            return
        lag = max(0, lag_ms)
        self._lags.append(lag)
        self.max_lag_ms = max(self.max_lag_ms, lag)
        if lag >= PAUSE_MS:
            cpu, preempted = (
                (0, 0)
                if before is None
                else (
                    usage.cpu_ms - before.cpu_ms,
                    usage.preempted - before.preempted,
                )
            )
            self.pauses.append(Pause(now_ms, lag, cpu, preempted))
        self._cpu_samples.append((now_ms, self._cpu_ms()))
        while len(self._cpu_samples) > 2 and now_ms - self._cpu_samples[1][0] >= CPU_WINDOW_MS:
            self._cpu_samples.popleft()
        if self._over(self.load(0), count_matches=False):
            self._busy_until_ms = now_ms + HOLD_MS

    def load(self, live_matches: int) -> Load:
        lag = sum(self._lags) // len(self._lags) if self._lags else 0
        cpu = 0.0
        if len(self._cpu_samples) >= 2:
            (t0, c0), (t1, c1) = self._cpu_samples[0], self._cpu_samples[-1]
            if t1 > t0:
                cpu = (c1 - c0) / (t1 - t0)
        return Load(lag, cpu, live_matches)

    def _over(self, load: Load, *, count_matches: bool = True) -> bool:
        cap = self.capacity
        if cap.busy_lag_ms is not None and load.lag_ms > cap.busy_lag_ms:
            return True
        if cap.busy_cpu is not None and load.cpu > cap.busy_cpu:
            return True
        limit = self.cap.value
        return count_matches and limit is not None and load.live_matches >= limit

    def start_draining(self) -> None:
        """Refuse every new match from now on: the server is about to stop."""
        self.draining = True

    def is_busy(self, live_matches: int) -> bool:
        """Whether new matches are refused now, with ``live_matches`` in memory."""
        if self.draining:
            return True
        over = self._over(self.load(live_matches))
        return over or self._now_ms() < self._busy_until_ms

    def admit(self, live_matches: int, what: str) -> None:
        """Raise ``server_busy`` if the server should take no new ``what`` now."""
        if self.draining:
            self.refused += 1
            raise Rejection(
                ErrorCode.SERVER_BUSY,
                f"the server is shutting down and takes no new {what}; try again shortly",
                retry_after_s=RETRY_AFTER_S,
            )
        if self.is_busy(live_matches):
            self.refused += 1
            load = self.load(live_matches)
            at_cap = self._over(load) and not self._over(load, count_matches=False)
            raise Rejection(
                ErrorCode.SERVER_BUSY,
                f"the server is busy and takes no new {what} now (loop lag {load.lag_ms} ms, "
                f"CPU {load.cpu:.0%}, {load.live_matches} live matches); try again shortly",
                retry_after_s=RETRY_AFTER_AT_CAP_S if at_cap else RETRY_AFTER_S,
            )
        self.admitted += 1
