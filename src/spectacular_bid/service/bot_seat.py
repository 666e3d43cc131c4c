"""The computer's seat of a bot match (PROTOCOL.md "POST /api/matches"): a player that plays through
the service like a person.

It listens to the match's actor as a socket's room does and keeps what its seat may see of each
version: the engine's events through ``views.event_for`` (R2.2, D4), never the match object, the
other hand, the boneyard order or a deck. When its seat is to act it hands those events to the
:class:`~spectacular_bid.service.thinking.Thinker` (another process) and sends the answer as a
command with the version it answered, received when it is sent: its thinking and its minimum
delay are charged to its own clock like anyone's (R7.2, R7.7). A version that comes while it
thinks (the opponent resigned, a clock fell) makes it drop the answer and look again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Callable, Iterable
from typing import Final, Literal

from spectacular_bid.bots import BUDGET_S, decide
from spectacular_bid.rules.actions import Event, SeatAction
from spectacular_bid.rules.phase import Phase
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.views import event_for
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.commands import PlayerCommand, Start, move_of
from spectacular_bid.service.events import DeckCommitted, DeckRevealed, Ready, Revealed, SeatTaken
from spectacular_bid.service.ports import MatchStatus, Player
from spectacular_bid.service.refusals import Rejection
from spectacular_bid.service.settings import BotSettings
from spectacular_bid.service.state import Entry, MatchState
from spectacular_bid.service.thinking import Thinker
from spectacular_bid.service.timesource import MsSource

log = logging.getLogger(__name__)

_SERVICE_EVENTS: Final = (SeatTaken, Ready, Revealed, DeckCommitted, DeckRevealed)
_DECISIONS: Final = (Phase.AUCTION, Phase.OPENING, Phase.PLAYING)
SPARE_MS: Final = 500
"""Kept back from the time left when the budget is cut to fit the clock."""

Duty = Literal["start", "decide"]


def duty(state: MatchState, seat: Seat) -> Duty | None:
    """What ``seat`` owes now, from the public part of the state only (whose turn, which
    phase, who pressed): Start between rounds (D3), a decision on its turn, or nothing; nothing
    either while the match stands for a hand-over to another server (PROTOCOL.md "Several servers on
    one database")."""
    if state.status is not MatchStatus.ACTIVE or state.suspended_ms is not None:
        return None
    match = state.match
    if match.phase is Phase.AWAITING_DEAL:
        return None if seat in state.ready else "start"
    if match.phase in _DECISIONS and match.to_act is seat:
        return "decide"
    return None


def budget_s(level: int, state: MatchState, seat: Seat, now_ms: int, scale: float = 1.0) -> float:
    """The level's budget (times ``scale``), cut when the clock is short: a bot spends its
    delay, not its bank, and never so much of a small bank that it flags on thinking (R7.7)."""
    reading = state.reading(now_ms)
    spare_ms = reading.delay_left_ms + reading.bank_left_ms[seat] // 20 - SPARE_MS
    return max(0.0, min(BUDGET_S[level] * scale, spare_ms / 1000))


class BotSeat:
    """One computer seat, an :class:`~spectacular_bid.service.actor.Listener` of its match."""

    def __init__(
        self,
        actor: MatchActor,
        player: Player,
        seat: Seat,
        level: int,
        thinker: Thinker,
        settings: BotSettings,
        now_ms: MsSource,
        on_close: Callable[[BotSeat], None] = lambda _seat: None,
    ) -> None:
        self.actor, self.player, self.seat, self.level = actor, player, seat, level
        self._thinker = thinker
        self._settings = settings
        self._now_ms = now_ms
        self._on_close = on_close
        self._rng = random.Random(secrets.randbits(64))
        self.seen: list[Event] = []
        """Every engine event of the match so far as this seat sees it."""
        self.sent = 0
        self.refused = 0
        """Commands sent and refused: a refusal means a bot acted out of turn or illegally."""
        self._task: asyncio.Task[None] | None = None
        self._sending = False

    def catch_up(self, entries: Iterable[Entry], state: MatchState) -> None:
        """Take over a match mid-way (a peer handed it to this server, PROTOCOL.md "Several servers
        on one database"): what the seat saw of every version so far, then its duty now, as if it
        had listened."""
        for entry in entries:
            self._see(entry)
        self._consider(state)

    def _see(self, entry: Entry) -> None:
        self.seen.extend(
            event_for(self.seat, e) for e in entry.events if not isinstance(e, _SERVICE_EVENTS)
        )

    def published(self, entry: Entry, state: MatchState) -> None:
        self._see(entry)
        if self._task is not None and not self._task.done():
            if self._sending:
                return  # its end looks at the newest state
            self._task.cancel()
        self._consider(state)

    def closed(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self._on_close(self)

    def _consider(self, state: MatchState) -> None:
        owed = duty(state, self.seat)
        self._task = None
        if owed is not None:
            name = f"bot-{self.actor.id}-{state.version}"
            self._task = asyncio.get_running_loop().create_task(self._act(owed, state), name=name)

    async def _act(self, owed: Duty, state: MatchState) -> None:
        started_ms = self._now_ms()
        command: PlayerCommand = Start()
        if owed == "decide":
            command = move_of(await self._action(state, started_ms))
        delay_ms = self._settings.min_delay_ms * self._rng.uniform(1.0, 1.5)
        wait_ms = delay_ms - (self._now_ms() - started_ms)
        if wait_ms > 0:
            await asyncio.sleep(wait_ms / 1000)
        self._sending = True
        self.sent += 1
        try:
            await self.actor.submit(self.player.id, command, state.version, self._now_ms())
        except Rejection as refusal:
            self.refused += 1
            if self.actor.version == state.version:
                # Not for a newer version: no retry, or a refusal would repeat at once.
                log.error("the bot of %s was refused: %s", self.actor.id, refusal)
                return
        finally:
            self._sending = False
        if self.actor.is_live:
            self._consider(self.actor.state)

    async def _action(self, state: MatchState, now_ms: int) -> SeatAction:
        """The level's answer from a worker; if the pool fails twice, a greedy answer from
        this process (instant: no search), so the seat never falls silent."""
        seen = tuple(self.seen)
        budget = budget_s(self.level, state, self.seat, now_ms, self._settings.budget_scale)
        try:
            return await self._thinker.decide(self.level, self.seat, seen, budget)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the bots' workers failed; %s answers greedily", self.actor.id)
            return decide(2, self.seat, seen, self._rng, clock=time.perf_counter, budget_s=0.0)

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
