"""The registry of live matches: creating, joining, finding, listing, and shutting down.

It owns the loop-lag monitor (D5) and hands each match actor its time sources, deck source and
storage port, so everything timing-related can be replaced in tests.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace

from spectacular_bid.clock import ClockSettings
from spectacular_bid.rules.seats import Seat
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.decks import DeckSource, secure_deck, seeded_decks
from spectacular_bid.service.guests import Guests, Player
from spectacular_bid.service.intents import ErrorCode, Rejection
from spectacular_bid.service.lag import LagMonitor
from spectacular_bid.service.ports import MatchMode, MatchStatus, MatchStore
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.service.timesource import MsSource, monotonic_ms, wall_ms


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """A lobby line: enough to list a match without its state."""

    id: str
    mode: str
    status: str
    first: str | None
    second: str | None
    round_number: int
    spectators: int
    created_at_ms: int


class MatchService:
    def __init__(
        self,
        store: MatchStore,
        settings: ServiceSettings | None = None,
        *,
        now_ms: MsSource = monotonic_ms,
        wall_ms: MsSource = wall_ms,
        deck_source_for: Callable[[str], DeckSource] | None = None,
    ) -> None:
        self.settings = settings or ServiceSettings()
        self.store = store
        self.guests = Guests(store)
        self.now_ms = now_ms
        self.wall_ms = wall_ms
        self._actors: dict[str, MatchActor] = {}
        if deck_source_for is not None:
            self._deck_source_for = deck_source_for
        elif self.settings.fixed_deck_seed is not None:
            seed = self.settings.fixed_deck_seed
            self._deck_source_for = lambda _match_id: seeded_decks(seed)
        else:
            self._deck_source_for = lambda _match_id: secure_deck
        self.lag = LagMonitor(
            now_ms, self.settings.lag_threshold_ms, self.settings.lag_tick_ms, self._on_stall
        )
        self.listeners: list[Callable[[], None]] = []
        """Called after any lobby-visible change (a match created, joined, started, ended)."""

    async def start(self) -> None:
        self.lag.start()

    async def stop(self) -> None:
        await self.lag.stop()
        for actor in list(self._actors.values()):
            await actor.close()

    def _on_stall(self, _lag_ms: int) -> None:
        for actor in self._actors.values():
            if actor.is_live and actor.clock.running is not None:
                actor.abort_for_timing_failure()

    def _changed(self, _actor: MatchActor | None = None) -> None:
        for listener in list(self.listeners):
            listener()

    async def create_match(
        self, creator: Player, mode: MatchMode, clock: ClockSettings | None = None
    ) -> MatchActor:
        """A new match with ``creator`` in the first seat (both seats on a shared device).

        ``clock`` overrides the server's time control for this match (casual games, tests).
        """
        match_id = secrets.token_urlsafe(9)
        settings = self.settings if clock is None else replace(self.settings, clock=clock)
        actor = MatchActor(
            match_id,
            mode,
            creator,
            settings,
            self.store,
            self._deck_source_for(match_id),
            self.now_ms,
            self.wall_ms,
            self.lag.is_healthy,
            self._on_actor_change,
        )
        self._actors[match_id] = actor
        await actor.open()
        self._changed()
        return actor

    def _on_actor_change(self, actor: MatchActor) -> None:
        if actor.version <= 2 or not actor.is_live or actor.match.round is None:
            self._changed(actor)

    def get(self, match_id: str) -> MatchActor:
        actor = self._actors.get(match_id)
        if actor is None:
            raise Rejection(ErrorCode.NOT_FOUND, f"no match {match_id!r}")
        return actor

    async def join(self, match_id: str, player: Player) -> Seat:
        seat = await self.get(match_id).join(player)
        self._changed()
        return seat

    def summaries(
        self, *statuses: MatchStatus, mode: MatchMode | None = None
    ) -> list[MatchSummary]:
        out = []
        for actor in self._actors.values():
            if actor.status not in statuses or (mode is not None and actor.mode is not mode):
                continue
            first, second = actor.seats
            out.append(
                MatchSummary(
                    id=actor.id,
                    mode=actor.mode.value,
                    status=actor.status.value,
                    first=first.name if first else None,
                    second=second.name if second else None,
                    round_number=actor.match.round_number,
                    spectators=actor.spectator_count(),
                    created_at_ms=actor.created_wall_ms,
                )
            )
        out.sort(key=lambda s: s.created_at_ms, reverse=True)
        return out

    def open_challenges(self) -> list[MatchSummary]:
        return self.summaries(MatchStatus.WAITING, mode=MatchMode.OPEN)

    def live_matches(self) -> list[MatchSummary]:
        return self.summaries(MatchStatus.ACTIVE)

    def recently_finished(self) -> list[MatchSummary]:
        return self.summaries(MatchStatus.FINISHED, MatchStatus.ABORTED)
