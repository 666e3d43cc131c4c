"""The garbage collector kept from stopping the server for long (OPERATIONS.md "Under load and
abuse").

CPython's cycle collector stops the whole process while it walks every tracked object of the
generations it collects. A full collection walks them all: at 1,000 open sockets (about 200
objects each) that was 130-190 ms on a two-core machine, and it grows with every socket and
every live match, while each paused millisecond is charged to running clocks (R7.7) and, past
the D5 threshold, ends them. Most of those objects live as long as their socket or match.

So the server runs the collector itself:

- automatic full collections are off (the oldest generation's threshold is out of reach);
- every :data:`FREEZE_EVERY_S` a collection of all generations runs — it walks only what is not
  frozen, i.e. what has survived since the last round, a few thousand objects — and then
  ``gc.freeze()`` moves the survivors to the permanent generation, which no collection walks;
- frozen objects are still freed by reference counting as soon as nothing refers to them, and
  a closed socket or an ended match leaves (almost) no reference cycles behind
  (``tests/web/test_collector.py`` checks it), so freezing holds on to next to nothing;
- what cycles do form among frozen objects are reclaimed by a full sweep (unfreeze, collect,
  freeze), run only while no match has a running clock — a pause then is charged to nobody —
  and at most every :data:`SWEEP_EVERY_S`.

Every collection's duration is recorded, for ``/api/health`` and the benchmarks. One longer
than :data:`LONG_MS` is logged as a warning saying what it was (a round, a sweep or an automatic
collection), its generation, what it freed, on which thread and how much of it was that thread's
CPU (the rest it was preempted, on cores it shares): a pause that long is charged to every
running clock, and once the collection is over nothing else can tell which it was.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Final

from spectacular_bid.service.periodic import Periodic, TaskHealth

log = logging.getLogger(__name__)

FREEZE_EVERY_S: Final = 0.1
"""A round's pause is proportional to what survived since the last one: at 2,000 matches a round
every second took 28 ms (median, up to 54), one every 100 ms takes 2 ms (up to 18), for the same
total."""
SWEEP_EVERY_S: Final = 600.0
YOUNG_THRESHOLDS: Final = (10_000, 10)
"""The rounds do the collecting; the automatic collections are only a guard against a burst.
Every object that outlives its first collection is walked by each collection it meets until a
round freezes it, and each walk is memory-bound (about 1 µs an object at 2,000 matches, its
referents scattered among ~850k frozen objects). With CPython's thresholds, or (500, 1), a young
and a middle collection walked most objects before the round walked them a third time: at
2,000 matches about 480 young and 200 middle collections every 10 s took 0.6 s of the loop
beside the rounds' 0.5 s. A match's objects accumulate at a few thousand every 100 ms, so at
10,000 a young collection runs only in a burst (start-up, an import), and walks at most about
10 ms of objects; a round walks each survivor once."""
LONG_MS: Final = 50.0
"""A collection this long is logged as a warning: half the 100 ms a pause may last."""
LONG_COLLECTION_LOG: Final = "a long garbage collection took"
"""How that warning starts (``specbid bench server`` lists such lines from its servers' logs)."""
NEVER: Final = 2**31 - 1
"""The oldest generation's threshold: automatic full collections never start."""


class Collector:
    """Runs the collector's rounds and keeps what each collection cost."""

    def __init__(self, clocks_running: Callable[[], bool], tasks: TaskHealth | None = None) -> None:
        self._clocks_running = clocks_running
        self._periodic = Periodic(
            "collector", FREEZE_EVERY_S, self.tick, tasks if tasks is not None else TaskHealth()
        )
        self._started_ns: int | None = None
        self._started_cpu_ns = 0
        self._last_sweep_s = time.monotonic()
        self._saved_thresholds = gc.get_threshold()
        self.max_pause_ms = 0.0
        """The longest single collection since start, automatic or ours."""
        self.rounds = 0
        self.sweeps = 0
        self._ours: tuple[str, int] | None = None
        """``("round" or "sweep", the thread's id)`` while one of ours runs: any other
        collection (another thread's meanwhile too) is automatic."""

    def start(self) -> None:
        """Freeze what the start-up made, take over the oldest generation, start the rounds."""
        gc.collect()
        gc.freeze()
        gc.set_threshold(*YOUNG_THRESHOLDS, NEVER)
        gc.callbacks.append(self._on_collection)
        self._periodic.start()

    async def stop(self) -> None:
        await self._periodic.stop()
        if self._on_collection in gc.callbacks:
            gc.callbacks.remove(self._on_collection)
        gc.set_threshold(*self._saved_thresholds)
        gc.unfreeze()

    def round(self) -> None:
        """Collect what survived since the last round, then freeze the rest."""
        self._collect("round")
        self.rounds += 1

    def sweep(self) -> None:
        """Collect everything, frozen included, then freeze what is left."""
        gc.unfreeze()
        self._collect("sweep")
        self.sweeps += 1
        self._last_sweep_s = time.monotonic()

    def _collect(self, kind: str) -> None:
        """Collect every generation (a ``kind`` for the warning meanwhile), freeze the rest."""
        self._ours = (kind, threading.get_ident())
        try:
            gc.collect()
        finally:
            self._ours = None
        gc.freeze()

    async def tick(self) -> None:
        """One round, or a sweep when one is due and no clock runs (a periodic task,
        ``service.periodic``: whatever it raises, the next round runs)."""
        due = time.monotonic() - self._last_sweep_s >= SWEEP_EVERY_S
        if due and not self._clocks_running():
            self.sweep()
        else:
            self.round()

    def _on_collection(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started_ns = time.perf_counter_ns()
            self._started_cpu_ns = time.thread_time_ns()
        elif self._started_ns is not None:
            took_ms = (time.perf_counter_ns() - self._started_ns) / 1e6
            cpu_ms = (time.thread_time_ns() - self._started_cpu_ns) / 1e6
            self._started_ns = None
            self.max_pause_ms = max(self.max_pause_ms, took_ms)
            if took_ms > LONG_MS:
                ours = self._ours
                kind = ours[0] if ours and ours[1] == threading.get_ident() else "automatic"
                log.warning(
                    "%s %.0f ms (%.0f ms of CPU): %s, generation %s, %s objects freed, "
                    "on thread %s",
                    LONG_COLLECTION_LOG,
                    took_ms,
                    cpu_ms,
                    kind,
                    info.get("generation"),
                    info.get("collected"),
                    threading.current_thread().name,
                )
