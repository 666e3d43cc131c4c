"""Failover (issue 13 item 3): a live server ends the matches of a peer that died, and learns
when it has itself been taken over.

A server killed or cut off leaves its live matches in the store with nobody timing them. Every
:data:`~spectacular_bid.service.settings.ServiceSettings.orphan_scan_ms` each server claims the
matches whose owner's lease ran out (``MatchStore.claim_orphans``: each claimed by exactly one
peer) and ends them *aborted — service timing failure*, unrated (D5), so their players, who
reconnect to any server, are told how they ended within the lease plus one scan.

The same scan is this server's sign of life: it renews the lease when nothing else is written.
When it finds the lease lost (this process was paused or partitioned past it, and a peer took
its matches), the server must let go of every match it holds in memory: each has been ended by
the peer, and this server can store nothing more for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from spectacular_bid.service.ports import LeaseLostError, MatchStore, StorageError
from spectacular_bid.service.recovery import abort_orphans
from spectacular_bid.service.timesource import MsSource

log = logging.getLogger(__name__)


class Failover:
    """The periodic claim of orphaned matches, and the one report of a lost lease."""

    def __init__(
        self,
        store: MatchStore,
        now_ms: MsSource,
        wall_ms: MsSource,
        scan_ms: int,
        on_lost: Callable[[], Awaitable[None]],
    ) -> None:
        self._store = store
        self._now_ms = now_ms
        self._wall_ms = wall_ms
        self._scan_s = scan_ms / 1000
        self._on_lost = on_lost
        self._task: asyncio.Task[None] | None = None
        self.lost = False
        self.ended: list[str] = []
        """The peers' matches this server ended, for tests and the log."""
        self.on_ended: list[Callable[[list[str]], None]] = []
        """Told the ids of each scan's ended matches: the relay tells their sockets on every
        process at once (issue 13 item 3), rather than when each notices the owner gone."""

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="failover")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def scan(self) -> None:
        """One claim and its aborts; a lost lease is reported once and ends the scans."""
        try:
            ended = await abort_orphans(self._store, self._now_ms, self._wall_ms)
            self.ended += ended
            if ended:
                for callback in self.on_ended:
                    callback(ended)
        except LeaseLostError as exc:
            self.lost = True
            log.error("%s", exc)
            await self._on_lost()
        except StorageError as exc:  # the database is away: the next scan tries again
            log.warning("the claim of orphaned matches failed: %s", exc)

    async def _run(self) -> None:
        while not self.lost:
            await asyncio.sleep(self._scan_s)
            await self.scan()
