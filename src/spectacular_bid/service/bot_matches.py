"""The service's bot matches (PROTOCOL.md "POST /api/matches"): the computer seats of this process
and their workers.

A bot match is made like any other, then the computer takes the second seat through the same
join as a person (its ``SeatTaken`` is in the record), with its :class:`BotSeat` listening from
version 0, so it has seen every version. A process thinks for a bounded number of bot matches at
once (``BotSettings``); one more is refused as busy before anything is made (PROTOCOL.md "When the
server is busy").
"""

from __future__ import annotations

from collections.abc import Iterable

from spectacular_bid.rules.seats import Seat
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.bot_seat import BotSeat
from spectacular_bid.service.computer import computer, ensure_computers, level_of
from spectacular_bid.service.ports import MatchStore
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.settings import BotSettings
from spectacular_bid.service.state import Entry
from spectacular_bid.service.thinking import Thinker
from spectacular_bid.service.timesource import MsSource


class BotMatches:
    def __init__(
        self, store: MatchStore, settings: BotSettings, now_ms: MsSource, wall_ms: MsSource
    ) -> None:
        self.settings = settings
        self.thinker = Thinker(settings.workers)
        self._store = store
        self._now_ms = now_ms
        self._wall_ms = wall_ms
        self._seats: dict[str, BotSeat] = {}
        self._stored = False

    @property
    def limit(self) -> int:
        return self.settings.workers * self.settings.matches_per_worker

    def __len__(self) -> int:
        """The bot matches of this process that are still being played."""
        return sum(1 for bot in self._seats.values() if bot.actor.is_live)

    async def admit(self, level: int) -> None:
        """Refuse a new bot match while this process's workers serve their most; store the
        computer players the first time."""
        computer(level)  # a level out of range is refused before anything is made
        if len(self) >= self.limit:
            raise Rejection(
                ErrorCode.SERVER_BUSY,
                f"the computer opponents of this server are all busy ({self.limit} matches); "
                "try again shortly",
                retry_after_s=5,
            )
        if not self._stored:
            await ensure_computers(self._store, self._wall_ms())
            self._stored = True

    async def seat(self, actor: MatchActor, level: int) -> BotSeat:
        """Put the computer at ``level`` in ``actor``'s second seat."""
        bot = self._listening(actor, level)
        await actor.join(bot.player)
        return bot

    def resume(self, actor: MatchActor, log: Iterable[Entry]) -> BotSeat | None:
        """The computer of a bot match handed to this server, caught up on ``log`` (every
        version so far); None when ``actor``'s second seat is a person's."""
        second = actor.state.seats[1]
        level = level_of(second.id) if second is not None else None
        if level is None:
            return None
        bot = self._listening(actor, level)
        bot.catch_up(log, actor.state)
        return bot

    def _listening(self, actor: MatchActor, level: int) -> BotSeat:
        bot = BotSeat(
            actor,
            computer(level),
            Seat.SECOND,
            level,
            self.thinker,
            self.settings,
            self._now_ms,
            on_close=self._forget,
        )
        self._seats[actor.id] = bot
        actor.listen(bot)
        return bot

    def _forget(self, bot: BotSeat) -> None:
        if self._seats.get(bot.actor.id) is bot:
            del self._seats[bot.actor.id]

    def of(self, match_id: str) -> BotSeat | None:
        return self._seats.get(match_id)

    async def stop(self) -> None:
        for bot in list(self._seats.values()):
            await bot.stop()
        self._seats.clear()
        self.thinker.close()
