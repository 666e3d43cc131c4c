"""Deploys without losing matches (OPERATIONS.md "Running it for real"): a stopping server hands its
live matches to a live peer, which resumes them from the store.

**Leaving.** Each live actor records a hand-over version after every input already queued, so
at a consistent version with no command in flight (``MatchActor.hand_over``): its clocks stand
there (``service.suspension``). Then one fenced transaction moves the matches' ``match_owner``
rows to the peer (``MatchStore.hand_over``): a server whose lease was lost moves nothing, and
its matches end by failover as before (D5). The actors here then let go; they store nothing
more. A match whose hand-over version could not be stored stays, and ends as it would have.

**Adopting.** The peer, asked over the bus or finding at its next scan rows that name it for
matches it does not run, rebuilds each match from its record through the match machine
(``service.replay``), and stores the resuming version with the pause measured by the wall
clocks (the leaving version's ``wall_ms`` to now) before it runs the actor. The pause is charged
to nobody and stays in the record as the match's clock audit. A pause longer than the D5
threshold while a clock ran is a timing failure: the match is ended so, as recovery ends a
match whose server stopped (R7.9). The database stays authoritative: what the leaving server
knew in memory and did not store is not used.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.commands import Resumed
from spectacular_bid.service.discrepancy import RecordMismatchError
from spectacular_bid.service.entries import event_record
from spectacular_bid.service.machine import step
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.periodic import Periodic
from spectacular_bid.service.ports import MatchRecord, StorageError
from spectacular_bid.service.recovery import abort_match
from spectacular_bid.service.refusals import Rejection
from spectacular_bid.service.replay import rebuild
from spectacular_bid.service.state import MatchState, Transition

log = logging.getLogger(__name__)

ADOPTING_POLL_S: Final = 0.01
TASK: Final = "handover-adoption"
"""The adoption scan's name in the logs, ``/metrics`` and ``/readyz`` (``service.periodic``)."""


@dataclass(frozen=True, slots=True)
class HandedOver:
    """What a stopping server gave away: the peer and the matches it now owns."""

    peer: str
    match_ids: list[str]


class Handover:
    """This server's hand-overs: of its matches when it stops, and of a peer's to it."""

    def __init__(self, service: MatchService) -> None:
        self._service = service
        self._store = service.store
        self._adopting: set[str] = set()
        self._periodic: Periodic | None = None
        self.leaving = False
        """Set once this server hands its matches over: it adopts none from then on."""
        self.ended: list[Callable[[list[str]], None]] = []
        """Told the ids of handed matches ended as timing failures (their sockets close)."""

    # -- leaving ------------------------------------------------------------------------------

    async def leave(self) -> HandedOver | None:
        """Hand every live match to a live peer; None when no peer is alive (then the server
        drains as it would without peers)."""
        peers = await self._store.live_peers()
        if not peers:
            return None
        peer = peers[0]
        self.leaving = True
        while self._adopting:  # a match being resumed here now goes on with the others
            await asyncio.sleep(ADOPTING_POLL_S)
        # All at once: their versions share the writer's commits, so the first stood waits
        # for the last no longer than one commit (a pause counts against D5).
        live = [actor for actor in self._service.held() if actor.is_live]
        done = await asyncio.gather(*(_stood(actor) for actor in live))
        stood = [actor.id for actor, ok in zip(live, done, strict=True) if ok]
        # A peer's matches handed here and not resumed yet stand in the store: they go on too.
        stood += [m for m in await self._store.owned_matches() if not self._service.holds(m)]
        moved = await self._store.hand_over(stood, peer) if stood else []
        log.warning("handed %d live match(es) to server %s", len(moved), peer)
        return HandedOver(peer, moved)

    # -- adopting -----------------------------------------------------------------------------

    def start(self, scan_ms: int) -> None:
        """Adopt, every ``scan_ms``, what the store says is this server's and it does not run
        (a peer's hand-over it was not told of): whatever one scan raises, a driver's own error
        on a connection the database closed included, is logged and counted, and the next
        scan runs (``service.periodic``)."""
        self._periodic = Periodic(TASK, scan_ms / 1000, self._scan, self._service.tasks)
        self._periodic.start()

    async def stop(self) -> None:
        if self._periodic is not None:
            await self._periodic.stop()
            self._periodic = None

    async def adopt_owned(self) -> list[str]:
        """Resume the live matches the store says this server owns and it does not run."""
        owned = await self._store.owned_matches()
        return await self.adopt(owned)

    async def adopt(self, match_ids: list[str]) -> list[str]:
        """Resume those of ``match_ids`` this server owns and does not run yet; return the
        ids it runs now (resumed, or resumed before). A server that is leaving adopts none:
        it hands them on with its own."""
        if self.leaving:
            return []
        owned = set(await self._store.owned_matches())
        wanted = [m for m in dict.fromkeys(match_ids) if m in owned]
        done = await asyncio.gather(*(self.resume_match(m) for m in wanted))  # as in leave
        return [m for m, ok in zip(wanted, done, strict=True) if ok]

    async def resume_match(self, match_id: str) -> bool:
        """Resume one match handed to this server (the caller knows the store says so);
        whether it runs here now."""
        if self._service.holds(match_id):
            return True
        if match_id in self._adopting:
            return False
        self._adopting.add(match_id)
        try:
            header = await self._store.match(match_id)
            if header is None:
                return False
            return await self._resume(header)
        except (StorageError, RecordMismatchError) as exc:
            log.error("match %s: could not be taken over: %s", match_id, exc)
            return False
        except Exception as exc:  # a driver's own error: this match waits for the next scan
            self._service.tasks.failed(TASK, exc, match_id)
            return False
        finally:
            self._adopting.discard(match_id)

    async def _resume(self, header: MatchRecord) -> bool:
        records = await self._store.events(header.id)
        seats = await self._service.players_of(header)
        settings = header.settings if isinstance(header.settings, dict) else {}
        # Off the loop, which times every other match's clock (as an import's verify is).
        rebuilt = await asyncio.to_thread(rebuild, header.id, header.mode, settings, seats, records)
        state = rebuilt.state
        now_ms, wall_ms = self._service.now_ms(), self._service.wall_ms()
        paused_ms = max(0, wall_ms - records[-1].wall_ms) if records else 0
        if not state.is_live:
            return False
        if self._is_timing_failure(state, paused_ms):
            await abort_match(self._store, header, now_ms, wall_ms)
            log.warning("match %s: handed over after %d ms: a timing failure", header.id, paused_ms)
            for callback in self.ended:
                callback([header.id])
            return False
        outcome = step(state, Resumed(paused_ms), now_ms)
        if not isinstance(outcome, Transition) or outcome.entry is None:
            raise RecordMismatchError.of("match", "hand-over", "a hand-over version", "none")
        said = await self._store.chat_lines(header.id)
        await self._store.append([event_record(header.id, outcome.entry, wall_ms)])
        self._service.chat.resume(header.id, max((line.number for line in said), default=0))
        actor = self._service.run_handed_over(header.id, outcome.state, outcome.entry, header)
        self._service.bots.resume(actor, (*rebuilt.log, outcome.entry))  # its computer, if any
        log.info("match %s: resumed here after a %d ms hand-over", header.id, paused_ms)
        return True

    def _is_timing_failure(self, state: MatchState, paused_ms: int) -> bool:
        """D5: the clocks were not measured for longer than a stall may last, or the match was
        not stood for a hand-over at all (its owner's row moved without one)."""
        if state.suspended_ms is None:
            return True
        threshold_ms = self._service.settings.lag_threshold_ms
        return state.clock.running is not None and paused_ms > threshold_ms

    async def _scan(self) -> None:
        await self.adopt_owned()


async def _stood(actor: MatchActor) -> bool:
    try:
        await actor.hand_over()
    except Rejection as exc:
        log.warning("match %s: not handed over, it ends here: %s", actor.id, exc)
        return False
    return True
