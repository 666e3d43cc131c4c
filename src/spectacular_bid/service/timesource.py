"""The service's time sources: monotonic ms for clocks and deadlines, wall ms for records, the
process's CPU ms for admission control, and the calling thread's CPU and preemptions to tell what
a loop stall was.

Clocks never use wall time: it can jump. All are plain callables so tests can inject fakes.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from typing import NamedTuple

MsSource = Callable[[], int]


class ThreadUsage(NamedTuple):
    """What the calling thread has used: its CPU ms, and how often the kernel took the CPU from
    it while it could still run (involuntary context switches)."""

    cpu_ms: int
    preempted: int


UsageSource = Callable[[], ThreadUsage]
_WHO = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)
"""Linux's thread; elsewhere the whole process, a coarser reading of the same question."""


def monotonic_ms() -> int:
    return time.monotonic_ns() // 1_000_000


def cpu_ms() -> int:
    """CPU time this process has used, for admission control's CPU signal."""
    return time.process_time_ns() // 1_000_000


def thread_usage() -> ThreadUsage:
    """The calling thread's usage (Linux's ``RUSAGE_THREAD``). Read on the event loop's thread,
    it splits a stall into work the loop did (CPU), the kernel running something else
    (preemptions: the machine's cores were busy) and waiting (neither: a blocking call)."""
    usage = resource.getrusage(_WHO)
    return ThreadUsage(round((usage.ru_utime + usage.ru_stime) * 1000), usage.ru_nivcsw)


def wall_ms() -> int:
    return time.time_ns() // 1_000_000
