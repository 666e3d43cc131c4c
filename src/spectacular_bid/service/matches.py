"""The registry of matches: creating, joining, finding, listing, and shutting down.

It owns the loop-lag monitor (D5) and hands each match actor its time sources, deck source and
storage port, so everything timing-related can be replaced in tests.

Live matches are actors in memory. At start-up every match the previous process left unfinished
is ended as a timing failure (D5, :mod:`~spectacular_bid.service.recovery`). A finished actor
stays in memory for ``finished_ttl_ms`` after it ended, or less once nobody has it open
(:mod:`~spectacular_bid.service.residency`), then is closed; from then on
:meth:`MatchService.find` re-runs it from the store through the match machine
(:func:`~spectacular_bid.service.replay.rebuild`), as it does for every ended match that
is not in memory. Ended matches' records and lists come from the store too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Final

from spectacular_bid.clock import ClockSettings
from spectacular_bid.rules.seats import Seat
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.admission import Admission
from spectacular_bid.service.bot_matches import BotMatches
from spectacular_bid.service.chat import ChatLine, Chats, Phrase
from spectacular_bid.service.computer import level_of
from spectacular_bid.service.decks import DeckSource, secure_deck, seeded_decks
from spectacular_bid.service.ended_matches import EndedMatches
from spectacular_bid.service.failover import Failover
from spectacular_bid.service.guests import Guests
from spectacular_bid.service.invitations import InvitationBack, Invitations
from spectacular_bid.service.lag import LagMonitor
from spectacular_bid.service.listings import (
    EndedMatch,
    MatchSummary,
    changes_by_match,
    profile_handle,
)
from spectacular_bid.service.periodic import Periodic, TaskHealth
from spectacular_bid.service.ports import (
    JSON,
    MatchMode,
    MatchRecord,
    MatchStatus,
    MatchStore,
    Player,
)
from spectacular_bid.service.record_document import ENDED, MatchDocument
from spectacular_bid.service.records import new_match_id, read_document, records_for_import
from spectacular_bid.service.recovery import abort_orphans
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.rematches import Rematches
from spectacular_bid.service.replay import Rebuilt, Verified, check_record
from spectacular_bid.service.residency import IDLE_TTL_MS, Residency
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.service.state import Entry, MatchState, new_match
from spectacular_bid.service.telemetry import NO_TELEMETRY, Telemetry
from spectacular_bid.service.timesource import MsSource, cpu_ms, monotonic_ms, wall_ms

log = logging.getLogger(__name__)

FINISHED_TTL_MS: Final = 300_000
"""How long a finished actor stays in memory after its match ended (its sockets stay open)."""


class MatchService:
    def __init__(
        self,
        store: MatchStore,
        settings: ServiceSettings | None = None,
        *,
        now_ms: MsSource = monotonic_ms,
        wall_ms: MsSource = wall_ms,
        deck_source_for: Callable[[str], DeckSource] | None = None,
        finished_ttl_ms: int = FINISHED_TTL_MS,
        idle_ttl_ms: int = IDLE_TTL_MS,
        cpu_ms: MsSource = cpu_ms,
        telemetry: Telemetry = NO_TELEMETRY,
    ) -> None:
        self.settings = settings or ServiceSettings()
        self.store = store
        self.guests = Guests(store, now_ms=now_ms)
        self.now_ms = now_ms
        self.wall_ms = wall_ms
        self.telemetry = telemetry
        self._actors: dict[str, MatchActor] = {}
        self._summaries: dict[str, tuple[MatchState, tuple[int, int | None], MatchSummary]] = {}
        """Each actor's lobby line with the state and times it was made from (:meth:`_summary`)."""
        self._live: set[str] = set()
        """The ids of the actors whose match is waiting or being played: admission reads their
        count for every new match, and at the live-match cap for every refused request too
        (OPERATIONS.md "Under load and abuse"), so it is kept as each match ends rather than counted
        across every actor."""
        self.residency = Residency(finished_ttl_ms, idle_ttl_ms, self._evict)
        self._closing: set[asyncio.Task[None]] = set()
        self.ended = EndedMatches(store)
        self.rematches = Rematches(now_ms)
        self.invitations = Invitations()
        self.bots = BotMatches(store, self.settings.bots, now_ms, wall_ms)
        self.chat = Chats(store, now_ms, wall_ms)
        if deck_source_for is not None:
            self._deck_source_for = deck_source_for
        elif self.settings.fixed_deck_seed is not None:
            seed = self.settings.fixed_deck_seed
            self._deck_source_for = lambda _match_id: seeded_decks(seed)
        else:
            self._deck_source_for = lambda _match_id: secure_deck
        self.tasks = TaskHealth(on_failure=telemetry.task_failed)
        """Every periodic task's failures (``service.periodic``): ``/metrics``, ``/readyz``."""
        self._revise_cap: Periodic | None = None
        self.admission = Admission(self.settings.capacity, now_ms, cpu_ms)
        self.lag = LagMonitor(
            now_ms,
            self.settings.lag_threshold_ms,
            self.settings.lag_tick_ms,
            self._on_stall,
            self._on_tick,
            self.tasks,
        )
        self.failover = Failover(
            store,
            now_ms,
            self.wall_ms,
            self.settings.orphan_scan_ms,
            self._lease_lost,
            self.tasks,
        )

    async def start(self) -> None:
        """End what the previous run and dead peers left unfinished (D5), then start the lag
        monitor and the scan for peers that die later (``service.failover``)."""
        await abort_orphans(self.store, self.now_ms, self.wall_ms, own=True)
        self.lag.start()
        self.failover.start()
        cap = self.admission.cap
        if cap.is_estimated:  # the live-match cap follows what the machine does now
            self._revise_cap = Periodic("capacity", cap.every_s, cap.revise, self.tasks)
            self._revise_cap.start()

    async def _lease_lost(self) -> None:
        """A peer took this server's matches: let every one go (their sockets close and their
        players reconnect to a live server, which serves how the peer ended them). The server
        registers again at the failover's next tick (``service.failover``)."""
        actors = list(self._actors.values())
        self._actors.clear()
        self._summaries.clear()
        self._live.clear()
        self.residency.cancel()
        for actor in actors:
            self.chat.forget(actor.id)
            try:
                await actor.close()
            except Exception:  # one actor's close must not keep the others
                log.exception("match %s: could not be let go after the lease was lost", actor.id)

    async def stop(self) -> None:
        if self._revise_cap is not None:
            await self._revise_cap.stop()
        await self.failover.stop()
        await self.lag.stop()
        self.residency.cancel()
        await self.bots.stop()
        for actor in list(self._actors.values()):
            await actor.close()
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)

    def _on_tick(self, now_ms: int, lag_ms: int) -> None:
        self.admission.on_tick(now_ms, lag_ms)
        self.telemetry.loop_ticked(max(0, lag_ms))

    def _on_stall(self, _lag_ms: int) -> None:
        for actor in self._actors.values():
            if actor.is_live and actor.state.clock.running is not None:
                actor.abort_for_timing_failure()

    async def create_match(
        self,
        creator: Player,
        mode: MatchMode,
        clock: ClockSettings | None = None,
        level: int | None = None,
        seat_names: tuple[str, str] | None = None,
    ) -> MatchActor:
        """A new match with ``creator`` in the first seat (both seats on a shared device, under
        the ``seat_names`` typed for its two players when given; the computer at ``level`` in
        the second seat of a bot match).

        ``clock`` overrides the server's time control for this match (casual games, tests). Refused
        with ``server_busy`` near the server's capacity (PROTOCOL.md "When the server is busy"), and
        an open challenge with ``rate_limited`` while the creator has ``open_challenges_per_guest``
        waiting (PROTOCOL.md "Rate limits").
        """
        if self.failover.lost or self.store.lease_reason() is not None:
            raise Rejection(
                ErrorCode.SERVER_BUSY,
                "this server lost its lease on the database and takes no matches; try again",
                retry_after_s=1,
            )
        self.admission.admit(self.live_count(), "matches")
        if mode is MatchMode.OPEN:
            self._admit_challenge(creator)
        if (level is None) != (mode is not MatchMode.BOT):
            raise ValueError(f"a level goes with a bot match only: {mode}, {level!r}")
        if seat_names is not None and mode is not MatchMode.SHARED:
            raise ValueError(f"seat names go with a shared-device match only: {mode}")
        if level is not None:
            await self.bots.admit(level)
        match_id = new_match_id()
        settings = self.settings if clock is None else replace(self.settings, clock=clock)
        state = new_match(mode, creator, settings, self.now_ms(), seat_names)
        actor = self._actor(match_id, state)
        await actor.open()
        if level is not None:
            await self.bots.seat(actor, level)
        return actor

    async def again(self, match_id: str, player: Player, mode: MatchMode) -> MatchActor:
        """D3: ``player`` came to an invitation (or an open challenge) after it expired, its
        second seat empty: make a new match of theirs on its time control — an invitation back
        to its creator, listed in the creator's lobby (:attr:`invitations`), or an open
        challenge. Refused with ``wrong_phase`` for any other match, and for its own creator."""
        if mode not in (MatchMode.INVITE, MatchMode.OPEN):
            raise ValueError(f"an invitation or an open challenge, not {mode}")
        state = (await self.find(match_id)).state
        creator = state.seats[0]
        expired = (
            state.status is MatchStatus.ABORTED
            and state.mode in (MatchMode.INVITE, MatchMode.OPEN)
            and state.seats[1] is None
        )
        if not expired or creator is None:
            raise Rejection(
                ErrorCode.WRONG_PHASE,
                f"match {match_id!r} is no invitation that expired before its second player came",
            )
        if creator.id == player.id:
            raise Rejection(
                ErrorCode.WRONG_PHASE, "this was your own invitation: make a new one in the lobby"
            )
        clock = state.settings.clock
        actor = await self.create_match(player, mode, clock)
        if mode is MatchMode.INVITE:
            self.invitations.add(InvitationBack(actor.id, player, creator.id, clock))
        return actor

    def invitations_to(self, player_id: str) -> list[InvitationBack]:
        """The invitations made back to ``player_id`` that still wait for it (D3)."""
        return self.invitations.to(player_id, self._is_waiting)

    def _is_waiting(self, match_id: str) -> bool:
        actor = self._actors.get(match_id)
        return actor is not None and actor.state.status is MatchStatus.WAITING

    def _actor(self, match_id: str, state: MatchState) -> MatchActor:
        """The live shell of ``state`` on this server, kept among its actors (not started)."""
        actor = MatchActor(
            match_id,
            state,
            self.store,
            self._deck_source_for(match_id),
            self.now_ms,
            self.wall_ms,
            self.lag.is_healthy,
            self._on_actor_change,
            self.telemetry,
            self.settings.shared_abandon_ms,
        )
        self._actors[match_id] = actor
        if state.is_live:
            self._live.add(match_id)
        return actor

    def _admit_challenge(self, creator: Player) -> None:
        """One guest must not fill the lobby (one guest made 300 open challenges): past
        ``open_challenges_per_guest`` waiting ones, a new one is refused. The refusal lifts by
        itself, when one is taken or its join timeout ends it (D3), so it is ``rate_limited``
        with the time until the first one's timeout as armed now (a whole timeout for one whose
        creator is on its page: it waits while they are there)."""
        limit = self.settings.open_challenges_per_guest
        now_ms = self.now_ms()
        deadlines = [
            actor.armed_timers().join_ms or now_ms + actor.state.settings.join_timeout_ms
            for actor in self._actors.values()
            if actor.state.mode is MatchMode.OPEN
            and actor.state.status is MatchStatus.WAITING
            and (first := actor.state.seats[0]) is not None
            and first.id == creator.id
        ]
        if len(deadlines) < limit:
            return
        retry_after_s = max(1, (min(deadlines) - now_ms + 999) // 1000)  # rounded up
        raise Rejection(
            ErrorCode.RATE_LIMITED,
            f"{creator.name!r} already has the most open challenges allowed waiting for an "
            f"opponent ({limit}): wait until one is taken or expires (the oldest in "
            f"{retry_after_s} s)",
            retry_after_s=retry_after_s,
        )

    def _on_actor_change(self, actor: MatchActor) -> None:
        if not actor.is_live:
            self._live.discard(actor.id)
            self.residency.ended(actor.id)

    def unwatched(self, match_id: str) -> None:
        """Nobody has the match open any more: if it has ended, it leaves memory soon."""
        actor = self._actors.get(match_id)
        if actor is not None and not actor.is_live:
            self.residency.ended(match_id)
            self.residency.unwatched(match_id)

    def watched(self, match_id: str) -> None:
        """A socket opened the match again: if it has ended, it stays its full time."""
        self.residency.watched(match_id)

    def _evict(self, match_id: str) -> None:
        """Close a finished actor: its sockets are told to reconnect, and find() then serves
        the match from the store."""
        actor = self._actors.pop(match_id, None)
        self._summaries.pop(match_id, None)
        self._live.discard(match_id)
        if actor is None:
            return
        self.chat.forget(match_id)
        task = asyncio.get_running_loop().create_task(actor.close(), name=f"evict-{match_id}")
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def get(self, match_id: str) -> MatchActor:
        """The match's actor while it is in memory (live, or finished a short while ago)."""
        actor = self._actors.get(match_id)
        if actor is None:
            raise Rejection(ErrorCode.NOT_FOUND, f"no match {match_id!r}")
        return actor

    async def say(
        self, match_id: str, player: Player | None, text: str | None, phrase: Phrase | None
    ) -> ChatLine:
        """A chat line in a match in memory (PROTOCOL.md ``chat``): beside its actor, never through
        it, so it changes no version and waits behind no command."""
        return await self.chat.say(match_id, self.get(match_id).state, player, text, phrase)

    def at_hand(self, match_id: str) -> MatchActor | Rebuilt | None:
        """The match if this process has it at hand: its actor, or its ended record read
        lately; None without asking the store."""
        actor = self._actors.get(match_id)
        return actor if actor is not None else self.ended.kept(match_id)

    async def find(self, match_id: str) -> MatchActor | Rebuilt:
        """The match to read: its actor while in memory, else the ended match re-run from its
        stored record (D5: a player coming back sees how it ended)."""
        actor = self._actors.get(match_id)
        if actor is not None:
            return actor
        return await self.ended.read(match_id)

    async def join(self, match_id: str, player: Player) -> Seat:
        """Take the match's free seat, or get one's own seat back.

        Never refused as busy (PROTOCOL.md "When the server is busy"): a waiting match was admitted
        when it was created, and its second seat is part of that admitted work. Refusing the join
        would not shed its load, only waste it: the creator would wait until the join timeout (D3)
        ends the match, and both would come back for a new one (measured: at twice the capacity,
        refused joins tripled the refused requests and doubled the admitted matches' latency).
        """
        return await self.get(match_id).join(player)

    def any_clock_running(self) -> bool:
        """Whether a decision is being timed in any match now (R7): a pause would be charged."""
        return any(actor.state.clock.running is not None for actor in self._actors.values())

    def live_count(self) -> int:
        """Matches in memory that are waiting or being played."""
        return len(self._live)

    def summaries(
        self, *statuses: MatchStatus, mode: MatchMode | None = None
    ) -> list[MatchSummary]:
        out = []
        for actor in self._actors.values():
            state = actor.state
            if state.status not in statuses or (mode is not None and state.mode is not mode):
                continue
            out.append(self._summary(actor, state))
        out.sort(key=lambda s: s.created_at_ms, reverse=True)
        return out

    def _summary(self, actor: MatchActor, state: MatchState) -> MatchSummary:
        """``actor``'s lobby line, made again only when its state changed: each relaying
        process lists all its matches every second for the shared lobby, and
        making a thousand lines anew held its loop for milliseconds each time."""
        made = self._summaries.get(actor.id)
        key = (actor.created_wall_ms, actor.ended_wall_ms)
        if made is not None and made[0] is state and made[1] == key:
            return made[2]
        first, second = state.seats
        summary = MatchSummary(
            id=actor.id,
            mode=state.mode.value,
            status=state.status.value,
            first=state.seat_name(0),
            second=state.seat_name(1),
            first_id=first.id if first and first.account else None,
            first_handle=profile_handle(first) if first else None,
            second_handle=profile_handle(second) if second else None,
            round_number=state.match.round_number,
            created_at_ms=actor.created_wall_ms,
            bank_ms=state.settings.clock.bank_ms,
            delay_ms=state.settings.clock.delay_ms,
            ended_at_ms=actor.ended_wall_ms,
            bot_level=level_of(second.id) if second else None,
        )
        self._summaries[actor.id] = (state, key, summary)
        return summary

    def open_challenges(self) -> list[MatchSummary]:
        return self.summaries(MatchStatus.WAITING, mode=MatchMode.OPEN)

    def live_matches(self) -> list[MatchSummary]:
        return self.summaries(MatchStatus.ACTIVE)

    # -- ended matches: lists, records, imports --------------------------------------------

    async def ended_matches(
        self,
        statuses: Sequence[MatchStatus] = ENDED,
        limit: int = 20,
        before: tuple[int, str] | None = None,
        player: str | None = None,
    ) -> list[EndedMatch]:
        """Ended matches from the store, newest first, a page of ``limit`` before a cursor;
        with ``player``, only that player's (its archive, PROTOCOL.md "Players: profiles, ratings
        and archives")."""
        if any(s not in ENDED for s in statuses):
            raise ValueError(f"only ended matches are listed, not {statuses!r}")
        headers = await self.store.ended_matches(statuses, limit, before, player)
        ids = {p for h in headers for p in (h.first_player, h.second_player) if p is not None}
        players = await self.store.players(sorted(ids))
        rated = [h.id for h in headers if h.rated]
        changes = changes_by_match(await self.store.rating_changes_of(rated) if rated else [])
        return [EndedMatch.of(h, players, changes) for h in headers]

    async def record(self, match_id: str) -> JSON:
        """The versioned record document of an ended match (404 unknown, 409 not ended: D4)."""
        actor = self._actors.get(match_id)
        if actor is not None and actor.is_live:
            raise Rejection(
                ErrorCode.WRONG_PHASE,
                f"match {match_id!r} is {actor.state.status.value}: its record is public once it "
                "ends (D4)",
            )
        return (await read_document(self.store, match_id)).to_json()

    async def document(self, match_id: str) -> MatchDocument:
        """The record document of an ended match (same rules as :meth:`record`)."""
        await self.record(match_id)  # 404 unknown, 409 while live (D4)
        return await read_document(self.store, match_id)

    async def import_record(self, data: object) -> tuple[str, Verified]:
        """Verify a record document through the engine and store it as an ended match; return
        its id here — always a fresh one of this server's own form — and what was verified
        (whose ``match_id``, the document's own id, the match keeps as its ``imported_id``).

        Raise :class:`~spectacular_bid.service.record_document.RecordFormatError` for a malformed
        document, :class:`~spectacular_bid.service.record_document.NotAdmittedError` for one this
        server does not admit (its settings), and
        :class:`~spectacular_bid.service.discrepancy.RecordMismatchError` for one that does not
        verify; nothing is stored then."""
        # Off the event loop: a long record takes a while to replay, and the loop times clocks.
        document, verified = await asyncio.to_thread(_checked_for_import, data)
        rows = records_for_import(document, None, self.wall_ms())
        await self.store.import_match(rows.players, rows.match, rows.rounds, rows.events)
        return rows.match.id, verified

    # -- hand-overs between servers (``service.handover``) ------------------------------------

    def held(self) -> list[MatchActor]:
        return list(self._actors.values())

    def holds(self, match_id: str) -> bool:
        return match_id in self._actors

    async def players_of(self, header: MatchRecord) -> tuple[Player | None, Player | None]:
        return await self.ended.seated(header)

    def run_handed_over(
        self, match_id: str, state: MatchState, resumed: Entry, header: MatchRecord
    ) -> MatchActor:
        """Run a match a peer handed over, its resuming version stored."""
        actor = self._actor(match_id, state)
        actor.created_wall_ms = header.created_at_ms
        actor.resume(resumed)
        return actor

    async def let_go(self, match_ids: list[str]) -> None:
        """Close the actors of matches handed to a peer: this server runs them no more."""
        for match_id in match_ids:
            actor = self._actors.pop(match_id, None)
            self._summaries.pop(match_id, None)
            self._live.discard(match_id)
            if actor is not None:
                await actor.close()


def _checked_for_import(data: object) -> tuple[MatchDocument, Verified]:
    """The record checked as ``specbid replay --verify`` checks it (``replay.check_record``),
    then refused if this server does not admit it or if it does not verify."""
    checked = check_record(data)
    return checked.document, checked.admitted()
