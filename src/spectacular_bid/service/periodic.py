"""The one runner of every periodic task of a server: none dies in silence.

A server runs a handful of loops beside its matches — the lease's renewal and the claim of a
dead peer's matches (``service.failover``), the adoption of handed-over matches
(``service.handover``), the lag monitor (``service.lag``), the lobby's share, the garbage
collector's rounds, the capacity's re-estimate, the relay's hold and sweep of relayed sockets.
Each was once its own ``while True`` that caught the errors its author foresaw; an error nobody
foresaw (a raw driver ``InterfaceError`` when PostgreSQL closed a connection) ended the loop,
and the server went on without it, saying nothing until it stopped.

So each runs here (:class:`Periodic`): an exception from one run is logged with the task's
name, counted (``specbid_task_failures_total{task=…}`` in ``/metrics``), and the task runs again
at its next tick. The first failure of a streak is logged with its traceback, the later ones of
the same streak in one line each, and the first run that works again says so. A task that has
failed :data:`FAILING_AFTER` times in a row makes ``/readyz`` 503, naming it
(:meth:`TaskHealth.unready_reasons`): a server whose lease is not renewed, or that adopts no
handed-over match, should get no new players (OPERATIONS.md, "Running it for real").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Final

log = logging.getLogger(__name__)

FAILING_AFTER: Final = 5
"""Failures in a row after which a task makes the server unready: one failure is a blip (a
connection closed under it, renewed at the next run), five at a one-second tick are not."""


class TaskHealth:
    """The failures of every periodic task of one server."""

    def __init__(
        self,
        on_failure: Callable[[str], None] | None = None,
        failing_after: int = FAILING_AFTER,
    ) -> None:
        if failing_after < 1:
            raise ValueError(f"failing_after must be >= 1, got {failing_after!r}")
        self.on_failure = on_failure
        """Told each failure's task name (``/metrics`` counts them)."""
        self.failing_after = failing_after
        self.failures: dict[str, int] = {}
        """Each task's failures since start."""
        self.streaks: dict[str, int] = {}
        """Each task's failures since it last worked."""

    def failed(self, name: str, exc: BaseException, match_id: str | None = None) -> None:
        """One run of ``name`` raised ``exc`` (for the match ``match_id``, when it was one's)."""
        self.failures[name] = self.failures.get(name, 0) + 1
        streak = self.streaks[name] = self.streaks.get(name, 0) + 1
        where = f" for match {match_id}" if match_id is not None else ""
        if streak == 1:
            log.error(
                "task %s failed%s: %s: %s", name, where, type(exc).__name__, exc, exc_info=exc
            )
        else:
            log.error(
                "task %s failed%s again (%d in a row): %s: %s",
                name,
                where,
                streak,
                type(exc).__name__,
                exc,
            )
        if self.on_failure is not None:
            self.on_failure(name)

    def counted(self, name: str) -> None:
        """A failure of ``name`` logged where it happened, and not part of a streak: a handler
        of one message (a relay listener's), which the next message runs again."""
        self.failures[name] = self.failures.get(name, 0) + 1
        if self.on_failure is not None:
            self.on_failure(name)

    def worked(self, name: str) -> None:
        streak = self.streaks.pop(name, 0)
        if streak:
            log.warning("task %s works again after %d failure(s)", name, streak)

    def unready_reasons(self) -> list[str]:
        """One reason per task failing :attr:`failing_after` times in a row or more."""
        return [
            f"the periodic task {name} failed {streak} times in a row"
            for name, streak in sorted(self.streaks.items())
            if streak >= self.failing_after
        ]


class Periodic:
    """``body`` run every ``every_s`` seconds (after the first wait, or at once too with
    ``at_start``) until stopped; an
    exception from it is the :class:`TaskHealth`'s to report, and the next tick runs it again."""

    def __init__(
        self,
        name: str,
        every_s: float,
        body: Callable[[], Awaitable[None]],
        health: TaskHealth,
        *,
        at_start: bool = False,
    ) -> None:
        if every_s <= 0:
            raise ValueError(f"a periodic task runs every > 0 s, got {every_s!r}")
        self.name = name
        self.every_s = every_s
        self._body = body
        self._health = health
        self._at_start = at_start
        """Run once as soon as started, not only after the first wait."""
        self._task: asyncio.Task[None] | None = None

    @property
    def is_running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if self.is_running:
            raise RuntimeError(f"the periodic task {self.name} is already running")
        self._task = asyncio.get_running_loop().create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def run_once(self) -> bool:
        """One run of the body; whether it worked (a failure is reported, never raised)."""
        try:
            await self._body()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._health.failed(self.name, exc)
            return False
        self._health.worked(self.name)
        return True

    async def _run(self) -> None:
        if self._at_start:
            await self.run_once()
        while True:
            await asyncio.sleep(self.every_s)
            await self.run_once()
