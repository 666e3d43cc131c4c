"""The service's two time sources: monotonic ms for clocks and deadlines, wall ms for records.

Clocks never use wall time: it can jump. Both are plain callables so tests can inject fakes.
"""

from __future__ import annotations

import time
from collections.abc import Callable

MsSource = Callable[[], int]


def monotonic_ms() -> int:
    return time.monotonic_ns() // 1_000_000


def wall_ms() -> int:
    return time.time_ns() // 1_000_000
