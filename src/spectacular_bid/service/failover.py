"""Failover (PROTOCOL.md "Several servers on one database"): a live server ends the matches of a
peer that died, and learns when it has itself been taken over.

A server killed or cut off leaves its live matches in the store with nobody timing them. Every
:data:`~spectacular_bid.service.settings.ServiceSettings.orphan_scan_ms` each server claims the
matches whose owner's lease ran out (``MatchStore.claim_orphans``: each claimed by exactly one
peer) and ends them *aborted — service timing failure*, unrated (D5), so their players, who
reconnect to any server, are told how they ended within the lease plus one scan.

The same scan is this server's sign of life: it renews the lease when nothing else is written.
When it finds the lease lost (this process was paused or partitioned past it, and a peer took
its matches), the server must let go of every match it holds in memory: each has been ended by
the peer, and this server can store nothing more for it. At its next tick it registers again
under a fresh id and epoch, owning nothing, and takes new matches as any new server would
(OPERATIONS.md, "Running it for real": re-registering, not exiting, because a server run by itself,
as ``specbid serve`` runs it, has no supervisor to start it again).

The scan runs as a :class:`~spectacular_bid.service.periodic.Periodic` task: whatever one scan
raises is logged and counted, and the next scan runs.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from spectacular_bid.service.periodic import Periodic, TaskHealth
from spectacular_bid.service.ports import LeaseLostError, MatchStore
from spectacular_bid.service.recovery import abort_orphans
from spectacular_bid.service.timesource import MsSource

log = logging.getLogger(__name__)

TASK: str = "failover"
"""The scan's name in the logs, ``/metrics`` and ``/readyz``."""


class Failover:
    """The periodic claim of orphaned matches, the one report of a lost lease, and the
    registration again that follows it."""

    def __init__(
        self,
        store: MatchStore,
        now_ms: MsSource,
        wall_ms: MsSource,
        scan_ms: int,
        on_lost: Callable[[], Awaitable[None]],
        tasks: TaskHealth | None = None,
    ) -> None:
        self._store = store
        self._now_ms = now_ms
        self._wall_ms = wall_ms
        self._on_lost = on_lost
        self._tasks = tasks if tasks is not None else TaskHealth()
        self._periodic = Periodic(TASK, scan_ms / 1000, self.scan, self._tasks)
        self.lost = False
        """Between the lease found lost and this server registered again."""
        self.ended: list[str] = []
        """The peers' matches this server ended, for tests and the log."""
        self.on_ended: list[Callable[[list[str]], None]] = []
        """Told the ids of each scan's ended matches: the relay tells their sockets on every
        process at once, rather than when each notices the owner gone."""
        self.on_registered: list[Callable[[str], Awaitable[None]]] = []
        """Told this server's new id once it registered again (the relay listens under it)."""

    def start(self) -> None:
        self._periodic.start()

    async def stop(self) -> None:
        await self._periodic.stop()

    async def scan(self) -> None:
        """One tick: register again if the lease was lost; else one claim and its aborts, a
        lost lease reported once (this server lets go of every match)."""
        if self.lost:
            await self._register_again()
            return
        try:
            ended = await abort_orphans(
                self._store,
                self._now_ms,
                self._wall_ms,
                on_failure=lambda match_id, exc: self._tasks.failed(TASK, exc, match_id),
            )
        except LeaseLostError as exc:
            self.lost = True
            log.error("%s", exc)
            await self._on_lost()
            return
        self.ended += ended
        if ended:
            for callback in self.on_ended:
                callback(ended)

    async def _register_again(self) -> None:
        server_id = await self._store.register_again()
        self.lost = False
        log.warning(
            "this server registered again as %s after its lease was lost: it owns no match "
            "and takes new ones",
            server_id,
        )
        if server_id is not None:
            for callback in self.on_registered:
                await callback(server_id)
