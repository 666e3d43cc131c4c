"""One live match: a serial actor that owns the engine state, the server clock and the event log.

Everything that changes a match — a player's command, a timer, a new subscriber — goes through
one queue and one consumer task, so commands apply one at a time in arrival order (lila's
``RoundAsyncActor``). A command is charged at the server time it was *received* (R7.7), its
events are made durable through the storage port before anyone hears of them, and then every
subscriber gets a message built from its own view (STYLE rule 3): a seat's hand never reaches
the other seat or a spectator.

Timers only enqueue work. The flag decision compares the stored monotonic deadline with the
time the work runs and is never taken early; a timer that fires early is simply re-armed (R7.7).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, NamedTuple

from spectacular_bid.clock import MatchClock
from spectacular_bid.rules.actions import (
    Abort,
    AbortReason,
    Accept,
    Action,
    Bid,
    Deal,
    Decline,
    Draw,
    Event,
    Flag,
    Play,
    Resign,
    RoundEnded,
)
from spectacular_bid.rules.errors import NotYourTurnError, RulesError, WrongPhaseError
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.seats import SEATS, BySeat, Seat
from spectacular_bid.rules.tiles import Tile
from spectacular_bid.rules.views import (
    PRIVATE_FIELDS,
    MatchView,
    event_for,
    private_view,
    view_for,
)
from spectacular_bid.service.codec import JSON, action_json, event_json, to_json
from spectacular_bid.service.decks import DeckSource
from spectacular_bid.service.fairness import committed_event, new_salt, revealed_event
from spectacular_bid.service.guests import Player
from spectacular_bid.service.intents import ErrorCode, Intent, IntentKind, Rejection
from spectacular_bid.service.ports import (
    EventRecord,
    MatchMode,
    MatchRecord,
    MatchStatus,
    MatchStore,
)
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.service.timesource import MsSource

log = logging.getLogger(__name__)


class Audience(Enum):
    """Who a message is built for; each audience sees its own view (R2.2, D4)."""

    FIRST = "first"
    SECOND = "second"
    SPECTATOR = "spectator"
    DEVICE = "device"
    """A shared device holding both seats: it sees the hand of the revealed seat only."""


_SEAT_AUDIENCE = (Audience.FIRST, Audience.SECOND)
_VIEWERS: tuple[Seat | None, ...] = (Seat.FIRST, Seat.SECOND, None)
_AUDIENCE_TEXT = {Audience.FIRST: 0, Audience.SECOND: 1, Audience.SPECTATOR: 2}
"""Which of an entry's encodings each audience reads; a device's depends on the entry."""
_PUBLIC_VIEW_FIELDS = tuple(
    f.name for f in dataclasses.fields(MatchView) if f.name not in PRIVATE_FIELDS
)
_RETRY_MS = 1_000
"""How soon a timer's work that storage refused is tried again."""


def seats_held(seats: Sequence[Player | None], player: Player | None) -> list[Seat]:
    """The seats ``player`` holds: none, one, or both on a shared device."""
    if player is None:
        return []
    return [s for s in SEATS if (p := seats[s]) is not None and p.id == player.id]


def audience_of(seats: Sequence[Player | None], player: Player | None) -> Audience:
    """Who ``player`` watches as: their seat, the device holding both, or a spectator."""
    held = seats_held(seats, player)
    if len(held) == 2:
        return Audience.DEVICE
    if held:
        return _SEAT_AUDIENCE[held[0]]
    return Audience.SPECTATOR


class Subscriber:
    """One socket's outgoing queue. The actor never waits for a socket: it offers a message, and a
    socket that falls ``limit`` messages behind is dropped (its client reconnects and resyncs)."""

    def __init__(self, audience: Audience, player: Player | None, limit: int) -> None:
        self.audience = audience
        self.player = player
        self.limit = limit
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.dropped = False

    def offer(self, message: str) -> None:
        if self.dropped:
            return
        if self.queue.qsize() >= self.limit:
            self.dropped = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(message)

    def close(self) -> None:
        """Tell the socket's sender to stop (the match is gone or the server shuts down)."""
        if not self.dropped:
            self.dropped = True
            self.queue.put_nowait(None)


@dataclass(slots=True)
class _Job:
    kind: str
    future: asyncio.Future[Any] | None = None
    args: tuple[Any, ...] = ()


@dataclass(slots=True)
class _Rollback:
    """What a command may change, kept so a failed write can undo it (durability order)."""

    match: Match
    clock: MatchClock
    handover: Seat | None
    revealed: Seat | None
    ready: set[Seat]
    status: MatchStatus
    seats: list[Player | None]
    start_deadline_ms: int | None
    join_deadline_ms: int | None
    commitment: JSON
    reveal: JSON
    secret: tuple[tuple[Tile, ...], str] | None


class _Entry(NamedTuple):
    """One version's events, already encoded for each audience.

    Only strings and ints: CPython's garbage collector stops tracking such tuples, so thousands
    of matches' resend windows add nothing to the full collections that would otherwise stall
    every match at once.
    """

    version: int
    texts: tuple[str, str, str]
    """The events as comma-separated JSON objects for the first seat, the second, a spectator."""
    device: int
    """Which of ``texts`` a shared device saw when the version was published."""


class MatchActor:
    def __init__(
        self,
        match_id: str,
        mode: MatchMode,
        creator: Player,
        settings: ServiceSettings,
        store: MatchStore,
        decks: DeckSource,
        now_ms: MsSource,
        wall_ms: MsSource,
        is_loop_healthy: Callable[[int, int], bool],
        on_change: Callable[[MatchActor], None] | None = None,
    ) -> None:
        self.id = match_id
        self.mode = mode
        self.settings = settings
        self._store = store
        self._decks = decks
        self._now_ms = now_ms
        self._wall_ms = wall_ms
        self._is_loop_healthy = is_loop_healthy
        self._on_change = on_change
        self.match = Match()
        self.clock = MatchClock.new(settings.clock)
        self.version = 0
        self.seats: list[Player | None] = [creator, creator if mode is MatchMode.SHARED else None]
        self.status = MatchStatus.ACTIVE if mode is MatchMode.SHARED else MatchStatus.WAITING
        self.created_at_ms = now_ms()
        self.created_wall_ms = wall_ms()
        self.ended_wall_ms: int | None = None
        self.ready: set[Seat] = set()
        self.handover: Seat | None = None
        """Shared device: the seat that must press Reveal before its clock starts (R7.5)."""
        self.revealed: Seat | None = None
        self.start_deadline_ms: int | None = None
        self.join_deadline_ms: int | None = (
            self.created_at_ms + settings.join_timeout_ms
            if self.status is MatchStatus.WAITING
            else None
        )
        self.subscribers: list[Subscriber] = []
        self.commitment: JSON = None
        """The current round's deck commitment, shown to everyone from the deal on."""
        self.reveal: JSON = None
        """The last finished round's salt and deck, so anyone can check its commitment."""
        self._secret: tuple[tuple[Tile, ...], str] | None = None
        self._log: list[_Entry] = []
        self._queue: asyncio.Queue[_Job] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._closed = False
        self._shared_cache: tuple[int, str] | None = None

    # -- lifecycle ------------------------------------------------------------------------

    async def open(self) -> None:
        """Record the match and start its consumer task and first timers."""
        await self._store.save_match(self.record())
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"match-{self.id}")
        if self.join_deadline_ms is not None:
            self._arm("join", self.join_deadline_ms)
        if self.status is MatchStatus.ACTIVE:
            self._arm_start_grace(self._now_ms())

    async def close(self) -> None:
        """Stop the actor: its timers, its task, its sockets; calls after this are refused."""
        self._closed = True
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        while not self._queue.empty():
            job = self._queue.get_nowait()
            if job.future is not None and not job.future.done():
                job.future.set_exception(_closed_rejection())
        for sub in self.subscribers:
            sub.close()

    @property
    def is_live(self) -> bool:
        return self.status in (MatchStatus.WAITING, MatchStatus.ACTIVE)

    def record(self) -> MatchRecord:
        result = self.match.result
        return MatchRecord(
            id=self.id,
            mode=self.mode,
            settings={
                "bank_ms": self.settings.clock.bank_ms,
                "delay_ms": self.settings.clock.delay_ms,
                "grace_ms": self.settings.grace_ms,
                "join_timeout_ms": self.settings.join_timeout_ms,
            },
            first_player=self.seats[0].id if self.seats[0] else None,
            second_player=self.seats[1].id if self.seats[1] else None,
            status=self.status,
            winner=str(result.winner) if result is not None and result.winner is not None else None,
            reason=result.reason.value if result is not None else None,
            rated=result is not None and result.is_rated,
            created_at_ms=self.created_wall_ms,
            ended_at_ms=self.ended_wall_ms,
        )

    # -- the public, awaitable entry points -----------------------------------------------

    async def submit(self, player: Player | None, intent: Intent, received_ms: int) -> int:
        """Apply a player's intent; return the new version or raise :class:`Rejection`."""
        result: int = await self._call("intent", player, intent, received_ms)
        return result

    async def join(self, player: Player) -> Seat:
        result: Seat = await self._call("join", player)
        return result

    async def subscribe(
        self, player: Player | None, since: int | None, audience: Audience | None = None
    ) -> Subscriber:
        """Attach a socket. Its first message is either the missed events since ``since`` plus
        the state, or the full state alone (lila-ws resync)."""
        result: Subscriber = await self._call("subscribe", player, since, audience)
        return result

    async def unsubscribe(self, sub: Subscriber) -> None:
        await self._call("unsubscribe", sub)

    def abort_for_timing_failure(self) -> None:
        """D5: the loop stalled while this match's clock ran (called by the lag monitor)."""
        self._enqueue("timing_failure")

    async def _call(self, kind: str, *args: Any) -> Any:
        if self._closed:
            raise _closed_rejection()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Job(kind, future, args))
        return await future

    def _enqueue(self, kind: str, *args: Any) -> None:
        self._queue.put_nowait(_Job(kind, None, args))

    # -- the consumer ---------------------------------------------------------------------

    async def _run(self) -> None:
        handlers: dict[str, Callable[..., Any]] = {
            "intent": self._on_intent,
            "join": self._on_join,
            "subscribe": self._on_subscribe,
            "unsubscribe": self._on_unsubscribe,
            "flag": self._on_flag_timer,
            "join_timeout": self._on_join_timeout,
            "grace": self._on_grace,
            "timing_failure": self._on_timing_failure,
            "snapshot": self._on_snapshot,
        }
        while True:
            job = await self._queue.get()
            try:
                result = await handlers[job.kind](*job.args)
            except Rejection as rejection:
                if job.future is not None and not job.future.done():
                    job.future.set_exception(rejection)
            except Exception as exc:  # a bug must not kill the match's actor
                log.exception("match %s: %s failed", self.id, job.kind)
                if job.future is not None and not job.future.done():
                    job.future.set_exception(exc)
            else:
                if job.future is not None and not job.future.done():
                    job.future.set_result(result)

    # -- seats and subscribers ------------------------------------------------------------

    def seats_of(self, player: Player | None) -> list[Seat]:
        return seats_held(self.seats, player)

    def default_audience(self, player: Player | None) -> Audience:
        return audience_of(self.seats, player)

    async def _on_join(self, player: Player) -> Seat:
        if self.seats_of(player):
            return self.seats_of(player)[0]
        if self.status is not MatchStatus.WAITING or self.seats[1] is not None:
            raise Rejection(ErrorCode.SEAT_TAKEN, "this match has no free seat")
        rollback = self._snapshot()
        now = self._now_ms()
        self.seats[1] = player
        self.status = MatchStatus.ACTIVE
        self.join_deadline_ms = None
        self._disarm("join")
        self._arm_start_grace(now)
        extra = ({"type": "seat_taken", "seat": "second", "name": player.name},)
        await self._commit(rollback, None, {"type": "join", "seat": "second"}, (), extra, now)
        await self._store.save_match(self.record())
        return Seat.SECOND

    async def _on_subscribe(
        self, player: Player | None, since: int | None, audience: Audience | None
    ) -> Subscriber:
        allowed = self.default_audience(player)
        if audience is None or audience is Audience.SPECTATOR:
            audience = allowed if audience is None else Audience.SPECTATOR
        elif audience is not allowed:
            raise Rejection(ErrorCode.NOT_YOUR_SEAT, f"you cannot watch as {audience.value}")
        sub = Subscriber(audience, player, self.settings.subscriber_queue)
        oldest_kept = self._log[0].version if self._log else self.version + 1
        self.subscribers.append(sub)
        if since is not None and 0 <= since <= self.version and since + 1 >= oldest_kept:
            missed = [e for e in self._log if e.version > since]
            sub.offer(self._message("update", audience, self._events_text(missed, audience)))
        else:
            sub.offer(self._message("state", audience, None))
        self._broadcast_presence()
        return sub

    async def _on_unsubscribe(self, sub: Subscriber) -> None:
        if sub in self.subscribers:
            self.subscribers.remove(sub)
            self._broadcast_presence()

    def online(self) -> BySeat[bool]:
        flags = [False, False]
        for sub in self.subscribers:
            if sub.player is None or sub.dropped:
                continue
            for seat in self.seats_of(sub.player):
                flags[seat] = True
        return BySeat(flags[0], flags[1])

    def spectator_count(self) -> int:
        return sum(
            1 for s in self.subscribers if s.audience is Audience.SPECTATOR and not s.dropped
        )

    # -- commands -------------------------------------------------------------------------

    async def _on_intent(self, player: Player | None, intent: Intent, received_ms: int) -> int:
        seats = self.seats_of(player)
        if not seats:
            raise Rejection(ErrorCode.NOT_A_PLAYER, "spectators cannot act for a seat")
        if self.clock.running is not None and not self._is_loop_healthy(
            self.clock.decision_started_ms, self._now_ms()
        ):
            await self._on_timing_failure()
        if self.match.is_over or not self.is_live:
            raise Rejection(ErrorCode.MATCH_OVER, "the match is over")
        if intent.version != self.version:
            raise Rejection(
                ErrorCode.STALE_VERSION,
                f"made against version {intent.version}, the match is at {self.version}",
            )
        if self.clock.running is not None and self.clock.is_flagged(received_ms):
            # D6: at the deadline or later is a loss on time, not an illegal request.
            await self._flag_now(self.clock.deadline_ms() or received_ms)
            raise Rejection(ErrorCode.TIME_EXPIRED, "your command arrived after the deadline")
        if intent.seat is not None and intent.seat not in seats:
            raise Rejection(ErrorCode.NOT_YOUR_SEAT, f"you do not hold the {intent.seat} seat")
        kind = intent.kind
        if kind is IntentKind.START:
            return await self._start(seats, received_ms)
        if kind is IntentKind.REVEAL:
            return await self._reveal(seats, intent)
        if self.status is MatchStatus.WAITING:
            raise Rejection(ErrorCode.WRONG_PHASE, "the match waits for its second player")
        seat = self._acting_seat(seats, intent)
        if kind is not IntentKind.RESIGN and self.handover is not None:
            raise Rejection(
                ErrorCode.HANDOVER_PENDING, f"pass the device to {self.handover}: reveal first"
            )
        action = self._action(kind, seat, intent)
        return await self._apply(action, seat, received_ms)

    def _acting_seat(self, seats: list[Seat], intent: Intent) -> Seat:
        if intent.seat is not None:
            return intent.seat
        if len(seats) == 1:
            return seats[0]
        to_act = self.match.to_act
        if to_act is not None:
            return to_act
        if intent.kind is IntentKind.RESIGN:
            raise Rejection(ErrorCode.BAD_MESSAGE, "say which seat resigns on a shared device")
        raise Rejection(ErrorCode.WRONG_PHASE, "no seat is to act now")

    @staticmethod
    def _action(kind: IntentKind, seat: Seat, intent: Intent) -> Action:
        if kind is IntentKind.PLAY:
            if intent.tile is None:
                raise Rejection(ErrorCode.BAD_MESSAGE, "a play needs a tile")
            return Play(seat, intent.tile, intent.at)
        if kind is IntentKind.BID:
            if intent.amount is None:
                raise Rejection(ErrorCode.BAD_MESSAGE, "a bid needs an amount")
            return Bid(seat, intent.amount)
        simple: dict[IntentKind, Callable[[Seat], Action]] = {
            IntentKind.DRAW: Draw,
            IntentKind.ACCEPT: Accept,
            IntentKind.DECLINE: Decline,
            IntentKind.RESIGN: Resign,
        }
        return simple[kind](seat)

    async def _apply(self, action: Action, seat: Seat | None, charge_ms: int) -> int:
        """Apply an engine command, move the clock, make it durable, then tell everyone."""
        rollback = self._snapshot()
        match = self.match
        before_decision = match.decision
        try:
            events = match.apply(action)
        except RulesError as exc:
            raise Rejection(_rules_code(exc), str(exc)) from None
        now = self._now_ms()
        self._move_clock(before_decision, charge_ms, now, events)
        command = action_json(action)
        await self._commit(rollback, seat, command, tuple(events), self._reveal_deck(events), now)
        return self.version

    def _reveal_deck(self, events: list[Event]) -> tuple[JSON, ...]:
        """When a round ends, publish its salt and deck so its commitment can be checked."""
        if self._secret is None or not any(isinstance(e, RoundEnded) for e in events):
            return ()
        deck, salt = self._secret
        self._secret = None
        commitment = self.commitment["commitment"] if self.commitment else None
        self.reveal = revealed_event(self.match.round_number, commitment, deck, salt)
        return (self.reveal,)

    async def _start(self, seats: list[Seat], now: int) -> int:
        """D3: Start/Continue. Both seats, or one press on a shared device, deal the round."""
        if self.status is not MatchStatus.ACTIVE or self.match.phase is not Phase.AWAITING_DEAL:
            raise Rejection(ErrorCode.WRONG_PHASE, "there is no round to start now")
        if self.mode is MatchMode.SHARED or len(self.ready | set(seats)) == 2:
            return await self._deal(None, seats[0] if len(seats) == 1 else None)
        rollback = self._snapshot()
        self.ready.update(seats)
        extra = tuple({"type": "ready", "seat": str(s)} for s in seats)
        await self._commit(
            rollback, seats[0], {"type": "start", "seat": str(seats[0])}, (), extra, now
        )
        return self.version

    async def _deal(self, _reason: str | None, pressed_by: Seat | None) -> int:
        rollback = self._snapshot()
        self.ready.clear()
        self.start_deadline_ms = None
        self._disarm("grace")
        self.revealed = None
        deal = Deal(self._decks())
        before_decision = self.match.decision
        events = self.match.apply(deal)
        now = self._now_ms()
        self._move_clock(before_decision, now, now, events)
        salt = new_salt()
        self._secret = (deal.deck, salt)
        self.commitment = committed_event(self.match.round_number, deal.deck, salt)
        extra: tuple[JSON, ...] = (self.commitment,)
        command = {**action_json(deal), "salt": salt}
        await self._commit(rollback, pressed_by, command, tuple(events), extra, now)
        return self.version

    async def _reveal(self, seats: list[Seat], intent: Intent) -> int:
        if self.handover is None:
            raise Rejection(ErrorCode.WRONG_PHASE, "there is no hand-over to end")
        if self.handover not in seats or (intent.seat is not None and intent.seat != self.handover):
            raise Rejection(ErrorCode.NOT_YOUR_SEAT, f"only {self.handover} can reveal now")
        rollback = self._snapshot()
        now = self._now_ms()
        seat = self.handover
        self.handover = None
        self.revealed = seat
        self.clock = self.clock.start_decision(seat, now)
        extra = ({"type": "revealed", "seat": str(seat)},)
        await self._commit(rollback, seat, {"type": "reveal", "seat": str(seat)}, (), extra, now)
        return self.version

    def _move_clock(
        self, before_decision: int, charge_ms: int, now: int, events: Iterable[Event]
    ) -> None:
        """Charge the decision that just ended and time the next one (R7.2–R7.5, D2).

        A draw that leaves the same decision open changes nothing (R7.3). On a shared device a
        decision for the other seat waits, clocks standing, for that player's Reveal (R7.5).
        """
        match = self.match
        clock = self.clock
        seat = match.to_act
        if seat is None:
            if clock.running is not None:
                self.clock, _ = clock.stop(max(charge_ms, clock.decision_started_ms))
            self._after_round_or_match(now)
            return
        if match.decision == before_decision:
            return
        if clock.running is not None:
            clock, _ = clock.stop(max(charge_ms, clock.decision_started_ms))
        if self.mode is MatchMode.SHARED and seat != self.revealed:
            self.handover = seat
            self.revealed = None
        else:
            clock = clock.start_decision(seat, max(now, clock.decision_started_ms))
        self.clock = clock

    def _after_round_or_match(self, now: int) -> None:
        self.handover = None
        self.revealed = None
        if self.match.is_over:
            result = self.match.result
            self.status = (
                MatchStatus.FINISHED
                if result is not None and result.winner is not None
                else MatchStatus.ABORTED
            )
            self.ended_wall_ms = self._wall_ms()
            self.start_deadline_ms = None
            for name in list(self._timers):
                self._disarm(name)
        elif self.match.phase is Phase.AWAITING_DEAL:
            self._arm_start_grace(now)

    async def _commit(
        self,
        rollback: _Rollback,
        seat: Seat | None,
        command: JSON,
        events: tuple[Event, ...],
        extra: tuple[JSON, ...],
        now: int,
    ) -> None:
        """Durability order: the new version is written before anyone is told (issue 4)."""
        version = self.version + 1
        record = EventRecord(
            match_id=self.id,
            version=version,
            seat=str(seat) if seat is not None else None,
            command=command,
            events=[event_json(e) for e in events] + list(extra),
            wall_ms=self._wall_ms(),
            mono_ms=now,
            clock=to_json(self.clock.reading(max(now, self.clock.decision_started_ms))),
        )
        ending = self.match.is_over and rollback.status in (MatchStatus.WAITING, MatchStatus.ACTIVE)
        try:
            # The header of an ending match is written with its last version: one commit, and
            # never a stored ending under a header that still says the match is live.
            await self._store.append([record], match=self.record() if ending else None)
        except Exception as exc:
            self._restore(rollback)
            log.warning("match %s: version %d not stored: %s", self.id, version, exc)
            raise Rejection(
                ErrorCode.STORAGE_FAILED, "the move could not be saved; nothing changed"
            ) from None
        self.version = version
        entry = self._encode_entry(version, events, extra)
        self._log.append(entry)
        if len(self._log) > self.settings.resend_limit:
            del self._log[: len(self._log) - self.settings.resend_limit]
        self._rearm_flag()
        self._publish(entry)
        if self._on_change is not None:
            self._on_change(self)

    def _snapshot(self) -> _Rollback:
        return _Rollback(
            self.match.copy(),
            self.clock,
            self.handover,
            self.revealed,
            set(self.ready),
            self.status,
            list(self.seats),
            self.start_deadline_ms,
            self.join_deadline_ms,
            self.commitment,
            self.reveal,
            self._secret,
        )

    def _restore(self, rollback: _Rollback) -> None:
        self.match = rollback.match
        self.clock = rollback.clock
        self.handover = rollback.handover
        self.revealed = rollback.revealed
        self.ready = rollback.ready
        self.status = rollback.status
        self.seats = rollback.seats
        self.start_deadline_ms = rollback.start_deadline_ms
        self.join_deadline_ms = rollback.join_deadline_ms
        self.commitment = rollback.commitment
        self.reveal = rollback.reveal
        self._secret = rollback.secret
        self._shared_cache = None
        self._rearm_all()

    def _rearm_all(self) -> None:
        """Arm exactly the timers the current state needs (after a refused write, too)."""
        self._rearm_flag()
        now = self._now_ms()
        for name, deadline in (("join", self.join_deadline_ms), ("grace", self.start_deadline_ms)):
            if deadline is None or not self.is_live:
                self._disarm(name)
            else:
                # A deadline already passed (its work was refused by storage) is retried soon,
                # not in a tight loop.
                self._arm(name, deadline if deadline > now else now + _RETRY_MS)

    # -- timers ---------------------------------------------------------------------------

    def _arm(self, name: str, at_ms: int) -> None:
        self._disarm(name)
        delay_s = max(0, at_ms - self._now_ms()) / 1000
        loop = asyncio.get_running_loop()
        job = "join_timeout" if name == "join" else name
        self._timers[name] = loop.call_later(delay_s, self._enqueue, job)

    def _disarm(self, name: str) -> None:
        handle = self._timers.pop(name, None)
        if handle is not None:
            handle.cancel()

    def _rearm_flag(self) -> None:
        deadline = self.clock.deadline_ms()
        if deadline is None or self.match.is_over:
            self._disarm("flag")
        else:
            self._arm("flag", deadline)

    def _arm_start_grace(self, now: int) -> None:
        self.start_deadline_ms = now + self.settings.grace_ms
        self._arm("grace", self.start_deadline_ms)

    async def _on_flag_timer(self) -> None:
        now = self._now_ms()
        if self.clock.running is None or self.match.is_over:
            return
        if not self._is_loop_healthy(self.clock.decision_started_ms, now):
            await self._on_timing_failure()
            return
        if not self.clock.is_flagged(now):
            self._rearm_flag()  # fired early: never flag before the deadline (R7.7)
            return
        await self._flag_now(now)

    async def _flag_now(self, now: int) -> None:
        seat = self.clock.running
        if seat is None or self.match.to_act != seat:
            return
        await self._apply(Flag(seat), None, now)

    async def _on_join_timeout(self) -> None:
        if self.status is MatchStatus.WAITING:
            await self._apply(Abort(AbortReason.JOIN_TIMEOUT), None, self._now_ms())

    async def _on_grace(self) -> None:
        if (
            self.status is MatchStatus.ACTIVE
            and self.match.phase is Phase.AWAITING_DEAL
            and self.start_deadline_ms is not None
        ):
            if self._now_ms() < self.start_deadline_ms:
                self._arm("grace", self.start_deadline_ms)
                return
            await self._deal("grace", None)

    async def _on_timing_failure(self) -> None:
        """D5: end the match unrated, keeping every recorded event."""
        if self.is_live and not self.match.is_over and self.clock.running is not None:
            await self._apply(Abort(AbortReason.TIMING_FAILURE), None, self._now_ms())

    # -- messages -------------------------------------------------------------------------

    def _viewer(self, audience: Audience) -> Seat | None:
        if audience is Audience.FIRST:
            return Seat.FIRST
        if audience is Audience.SECOND:
            return Seat.SECOND
        if audience is Audience.DEVICE:
            return self.revealed if self.handover is None else None
        return None

    def _encode_entry(
        self, version: int, events: tuple[Event, ...], extra: tuple[JSON, ...]
    ) -> _Entry:
        """Filter the events for each audience (R2.2, D4) and encode them once."""
        texts = []
        for viewer in _VIEWERS:
            items = [
                {"version": version, **event_json(event_for(viewer, event))} for event in events
            ]
            items.extend({"version": version, **e} for e in extra)
            texts.append(",".join(json.dumps(i, separators=(",", ":")) for i in items))
        device = _VIEWERS.index(self._viewer(Audience.DEVICE))
        return _Entry(version, (texts[0], texts[1], texts[2]), device)

    @staticmethod
    def _events_text(entries: Iterable[_Entry], audience: Audience) -> str:
        index = _AUDIENCE_TEXT.get(audience)
        return ",".join(
            text
            for entry in entries
            if (text := entry.texts[entry.device if index is None else index])
        )

    def snapshot_json(self, audience: Audience) -> JSON:
        """Everything ``audience`` needs to draw the match and act (issue 3 §5)."""
        loaded: JSON = json.loads(self.snapshot_text(audience))
        return loaded

    async def snapshot(self, audience: Audience) -> tuple[int, JSON]:
        """The version and the snapshot, taken between two commands: never a state whose write
        is still pending (durability order)."""
        result: tuple[int, JSON] = await self._call("snapshot", audience)
        return result

    async def _on_snapshot(self, audience: Audience) -> tuple[int, JSON]:
        return self.version, self.snapshot_json(audience)

    def snapshot_text(self, audience: Audience) -> str:
        """:meth:`snapshot_json` as JSON text, built from a shared part encoded once per version
        and the few fields that differ by viewer or by the moment (clock, presence)."""
        viewer = self._viewer(audience)
        private = private_view(self.match, viewer)
        if audience is Audience.DEVICE and viewer is None:
            private = replace(private, opening_tile=None)
        now = self._now_ms()
        online = self.online()
        players = [
            None if p is None else {"name": p.name, "online": online[i]}
            for i, p in enumerate(self.seats)
        ]
        fresh = {
            "audience": audience.value,
            "players": {"first": players[0], "second": players[1]},
            "spectators": self.spectator_count(),
            "clock": to_json(self.clock.reading(max(now, self.clock.decision_started_ms))),
            **to_json(private),
        }
        fresh_text = json.dumps(fresh, separators=(",", ":"))
        return f"{fresh_text[:-1]},{self._shared_text()}}}"

    def _shared_text(self) -> str:
        """The members of the snapshot that every audience shares, encoded once per version."""
        cached = self._shared_cache
        if cached is not None and cached[0] == self.version:
            return cached[1]
        public = view_for(self.match, None)
        shared: dict[str, JSON] = {
            "id": self.id,
            "mode": self.mode.value,
            "status": self.status.value,
        }
        for name in _PUBLIC_VIEW_FIELDS:
            shared[name] = to_json(getattr(public, name))
        shared.update(
            {
                "handover": str(self.handover) if self.handover is not None else None,
                "ready": {"first": Seat.FIRST in self.ready, "second": Seat.SECOND in self.ready},
                "start_deadline_ms": self.start_deadline_ms,
                "join_deadline_ms": self.join_deadline_ms,
                "deck_commitment": self.commitment,
                "deck_reveal": self.reveal,
            }
        )
        text = json.dumps(shared, separators=(",", ":"))[1:-1]
        self._shared_cache = (self.version, text)
        return text

    def _message(self, kind: str, audience: Audience, events: str | None) -> str:
        snapshot = self.snapshot_text(audience)
        if events is None:
            return f'{{"type":"{kind}","version":{self.version},"match":{snapshot}}}'
        return (
            f'{{"type":"{kind}","version":{self.version},"events":[{events}],"match":{snapshot}}}'
        )

    def _publish(self, entry: _Entry) -> None:
        built: dict[Audience, str] = {}
        for sub in self.subscribers:
            message = built.get(sub.audience)
            if message is None:
                events = self._events_text((entry,), sub.audience)
                message = built[sub.audience] = self._message("update", sub.audience, events)
            sub.offer(message)

    def _broadcast_presence(self) -> None:
        online = self.online()
        message = json.dumps(
            {
                "type": "presence",
                "version": self.version,
                "online": {"first": online.first, "second": online.second},
                "spectators": self.spectator_count(),
            },
            separators=(",", ":"),
        )
        for sub in self.subscribers:
            sub.offer(message)


def _closed_rejection() -> Rejection:
    return Rejection(ErrorCode.NOT_FOUND, "the match is closed: the server is shutting down")


def _rules_code(exc: RulesError) -> ErrorCode:
    if isinstance(exc, NotYourTurnError):
        return ErrorCode.NOT_YOUR_TURN
    if isinstance(exc, WrongPhaseError):
        return ErrorCode.WRONG_PHASE
    return ErrorCode.ILLEGAL
