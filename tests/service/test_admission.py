"""Admission control (PROTOCOL.md "When the server is busy"): new matches and joins are refused near
capacity, with a
``Retry-After``; the live matches are never touched by it."""

from __future__ import annotations

import time

import pytest

from spectacular_bid.service.admission import (
    HOLD_MS,
    LAG_WINDOW_TICKS,
    RETRY_AFTER_AT_CAP_S,
    RETRY_AFTER_S,
    WARMUP_MS,
    Admission,
    Pause,
)
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.settings import Capacity
from spectacular_bid.service.timesource import ThreadUsage, thread_usage


class Clocks:
    """A monotonic clock, the process's CPU clock and the loop thread's usage, moved by hand."""

    def __init__(self) -> None:
        self.now = 0
        self.cpu = 0
        self.loop = ThreadUsage(0, 0)

    def usage(self) -> ThreadUsage:
        return self.loop

    def now_ms(self) -> int:
        return self.now

    def cpu_ms(self) -> int:
        return self.cpu


def warmed(capacity: Capacity) -> tuple[Admission, Clocks]:
    """An admission past its start-up warm-up, with the loop on time and the CPU idle."""
    clocks = Clocks()
    admission = Admission(capacity, clocks.now_ms, clocks.cpu_ms, clocks.usage)
    while clocks.now <= WARMUP_MS + LAG_WINDOW_TICKS * 100:
        tick(admission, clocks, lag_ms=0, cpu_share=0.1)
    return admission, clocks


def tick(admission: Admission, clocks: Clocks, *, lag_ms: int, cpu_share: float) -> None:
    step = 100 + lag_ms
    clocks.now += step
    clocks.cpu += round(step * cpu_share)
    admission.on_tick(clocks.now, lag_ms)


def test_a_lagging_loop_refuses_new_matches_with_a_retry_after() -> None:
    admission, clocks = warmed(Capacity(busy_lag_ms=40))
    admission.admit(10, "matches")
    for _ in range(LAG_WINDOW_TICKS):  # late at every tick: the loop has more than it can do
        tick(admission, clocks, lag_ms=60, cpu_share=0.1)
    with pytest.raises(Rejection) as refused:
        admission.admit(10, "matches")
    assert refused.value.code is ErrorCode.SERVER_BUSY
    assert refused.value.retry_after_s == RETRY_AFTER_S
    assert "loop lag 60 ms" in refused.value.message
    assert (admission.admitted, admission.refused) == (1, 1)


def test_one_pause_is_not_a_lack_of_capacity() -> None:
    admission, clocks = warmed(Capacity(busy_lag_ms=40))
    tick(admission, clocks, lag_ms=300, cpu_share=0.1)  # a burst of handshakes, a collection
    assert admission.load(0).lag_ms == 30
    admission.admit(10, "matches")
    assert admission.max_lag_ms == 300


def test_the_server_stays_busy_for_the_hold_after_its_last_busy_reading() -> None:
    admission, clocks = warmed(Capacity(busy_lag_ms=40))
    tick(admission, clocks, lag_ms=600, cpu_share=0.1)
    busy_at = clocks.now
    while admission.is_busy(0):
        tick(admission, clocks, lag_ms=0, cpu_share=0.1)
    # The late tick keeps the mean over 40 ms for a while, then the hold runs out.
    window_ms = LAG_WINDOW_TICKS * 100
    assert busy_at + HOLD_MS < clocks.now <= busy_at + window_ms + HOLD_MS + 100
    admission.admit(0, "matches")


def test_a_saturated_core_refuses_before_the_loop_lags() -> None:
    admission, clocks = warmed(Capacity(busy_cpu=0.9))
    for _ in range(25):
        tick(admission, clocks, lag_ms=0, cpu_share=0.97)
    assert admission.load(0).cpu > 0.9
    with pytest.raises(Rejection, match="CPU 9"):
        admission.admit(0, "matches")


def test_a_fixed_cap_counts_the_live_matches() -> None:
    admission, _ = warmed(Capacity(max_live_matches=3))
    admission.admit(2, "matches")
    with pytest.raises(Rejection, match="3 live matches") as refused:
        admission.admit(3, "matches")
    # A place frees only when a match ends: the client is told to wait longer than for a lag.
    assert refused.value.retry_after_s == RETRY_AFTER_AT_CAP_S > RETRY_AFTER_S


def test_at_the_cap_and_lagging_the_shorter_wait_is_told() -> None:
    admission, clocks = warmed(Capacity(busy_lag_ms=40, max_live_matches=3))
    for _ in range(LAG_WINDOW_TICKS):
        tick(admission, clocks, lag_ms=60, cpu_share=0.1)
    with pytest.raises(Rejection) as refused:
        admission.admit(3, "matches")
    assert refused.value.retry_after_s == RETRY_AFTER_S


def test_start_up_lag_is_not_load() -> None:
    clocks = Clocks()
    admission = Admission(Capacity(busy_lag_ms=40), clocks.now_ms, clocks.cpu_ms)
    tick(admission, clocks, lag_ms=500, cpu_share=1.0)  # migrations, recovery, freezing
    assert not admission.is_busy(0)
    assert admission.max_lag_ms == 0


def test_no_threshold_admits_everything() -> None:
    admission, clocks = warmed(Capacity())
    tick(admission, clocks, lag_ms=1_500, cpu_share=1.0)
    admission.admit(100_000, "matches")
    assert admission.max_lag_ms == 1_500
    assert [p[:2] for p in admission.pauses] == [(clocks.now, 1_500)]


def test_a_pause_says_what_the_loop_thread_did_through_it() -> None:
    """A stall the loop spent working, one it spent preempted, and one spent waiting in a
    blocking call: each kept with the loop thread's CPU and preemptions over its interval."""
    admission, clocks = warmed(Capacity())
    kinds = [(1_500, 1), (30, 12), (0, 0)]  # (loop CPU ms, preemptions) through each stall
    for cpu_ms, preempted in kinds:
        clocks.loop = ThreadUsage(clocks.loop.cpu_ms + cpu_ms, clocks.loop.preempted + preempted)
        tick(admission, clocks, lag_ms=1_400, cpu_share=0.5)
    tick(admission, clocks, lag_ms=19, cpu_share=0.1)  # under PAUSE_MS: not a pause
    assert [(p.lag_ms, p.cpu_ms, p.preempted) for p in admission.pauses] == [
        (1_400, cpu, pre) for cpu, pre in kinds
    ]
    assert all(isinstance(p, Pause) for p in admission.pauses)


def test_the_loop_thread_usage_counts_this_thread_s_work() -> None:
    before = thread_usage()
    deadline = time.thread_time() + 0.05
    while time.thread_time() < deadline:
        pass
    after = thread_usage()
    assert after.cpu_ms - before.cpu_ms >= 40
    assert after.preempted >= before.preempted


@pytest.mark.parametrize(
    "capacity",
    [
        {"busy_lag_ms": 0},
        {"busy_cpu": 0.0},
        {"max_live_matches": 0},
    ],
)
def test_thresholds_are_checked(capacity: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="must be"):
        Capacity(**capacity)  # type: ignore[arg-type]
