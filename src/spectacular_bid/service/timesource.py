"""The service's time sources: monotonic ms for clocks and deadlines, wall ms for records, and
the process's CPU ms for admission control.

Clocks never use wall time: it can jump. All are plain callables so tests can inject fakes.
"""

from __future__ import annotations

import time
from collections.abc import Callable

MsSource = Callable[[], int]


def monotonic_ms() -> int:
    return time.monotonic_ns() // 1_000_000


def cpu_ms() -> int:
    """CPU time this process has used, for admission control's CPU signal."""
    return time.process_time_ns() // 1_000_000


def wall_ms() -> int:
    return time.time_ns() // 1_000_000
