"""What the service tells its operators (PROTOCOL.md "Probes and metrics"): measurements, and whose
match it is.

The service and the store measure the few things an operator of several replicas needs to see —
how long a command waits from its arrival to its stored version, how late a flag falls, how late
the event loop wakes, how long a group commit takes — and hand each reading to a
:class:`Telemetry`. They never import a metrics library: the imports flow ``service`` ← ``web``,
so the Prometheus side lives in ``web/metrics.py`` and is plugged in by ``web/app.py``. Without
one, :data:`NO_TELEMETRY` drops every reading (the benchmarks and most tests).

Each call is on a hot path (once per applied command, once per commit), so an implementation
must do no more than add a number to a histogram.

:data:`current_match` is the match the running task works for, read by the JSON log formatter
(``web/logs.py``): a match's actor sets it once in its own task, a match socket in its
connection's task, so every line logged there names its match without each call saying so.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Final, Protocol


class Telemetry(Protocol):
    def command_applied(self, latency_ms: int) -> None:
        """A player's command was stored and installed ``latency_ms`` after the server received
        it (R7.7: the receive time is the one its clock charge was taken at)."""
        ...

    def flag_fell(self, lateness_ms: int) -> None:
        """A flag (R7.7) was stored and installed ``lateness_ms`` after the seat's deadline."""
        ...

    def loop_ticked(self, lag_ms: int) -> None:
        """The lag monitor woke ``lag_ms`` late (every tick, 100 ms apart)."""
        ...

    def batch_committed(self, seconds: float, writes: int) -> None:
        """The store's group-commit writer committed ``writes`` writes in one transaction that
        took ``seconds``."""
        ...

    def task_failed(self, task: str) -> None:
        """A run of the periodic task ``task`` raised (``service.periodic``)."""
        ...


class _NoTelemetry:
    """Drops every reading."""

    def command_applied(self, latency_ms: int) -> None:
        pass

    def flag_fell(self, lateness_ms: int) -> None:
        pass

    def loop_ticked(self, lag_ms: int) -> None:
        pass

    def batch_committed(self, seconds: float, writes: int) -> None:
        pass

    def task_failed(self, task: str) -> None:
        pass


NO_TELEMETRY: Final[Telemetry] = _NoTelemetry()

current_match: ContextVar[str | None] = ContextVar("current_match", default=None)
"""The id of the match the running task works for, or None (logs name it, ``web/logs.py``)."""
