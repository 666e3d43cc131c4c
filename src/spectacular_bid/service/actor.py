"""One live match: a thin shell that runs the match machine (ARCHITECTURE.md "The life of a
command").

One queue, one consumer task: every input — a player's command, a join, a timer, a stall — is
taken in arrival order (lila's ``RoundAsyncActor``) and handed to
:func:`~spectacular_bid.service.machine.step` with the server's time. A transition's entry is
committed through the storage port, and only then is the new state installed and published: a
refused command or a failed write changes nothing because the new state was never installed, so
there is nothing to roll back. :attr:`MatchActor.state` is therefore always a stored state, and
anyone may read it at any time.

Timers only enqueue work; the machine decides whether it is due (a flag is never early, R7.7).
Who has the match open is told by the web layer (:meth:`MatchActor.attend`) and arms the timers
that wait for people (``service.presence``: D3's join timeout, D8's abandon timeout).
Listeners (the web's rooms, later a computer opponent) get typed values, never JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from spectacular_bid.rules.seats import Seat
from spectacular_bid.service.alarms import Alarms, TimerKind
from spectacular_bid.service.commands import (
    AbandonDue,
    DealSeed,
    FlagDue,
    GraceDue,
    HandingOver,
    Input,
    Join,
    JoinDue,
    LoopStalled,
    NeedsDeck,
    PlayerCommand,
    Submit,
    with_deck,
)
from spectacular_bid.service.decks import DeckSource, new_salt
from spectacular_bid.service.entries import event_record, header_of, rated_result, round_records
from spectacular_bid.service.machine import step
from spectacular_bid.service.mailbox import Mailbox
from spectacular_bid.service.ports import LeaseLostError, MatchStore, Player
from spectacular_bid.service.presence import Attendance, attended
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.service.standings import NO_STANDING, Standing, seated, settled
from spectacular_bid.service.state import Entry, MatchState, Timers, Transition, timers
from spectacular_bid.service.telemetry import NO_TELEMETRY, Telemetry, current_match
from spectacular_bid.service.timesource import MsSource

log = logging.getLogger(__name__)

T = TypeVar("T")


class Listener(Protocol):
    """Told of every stored version of a match, in order, and of the actor's close."""

    def published(self, entry: Entry, state: MatchState) -> None: ...

    def closed(self) -> None: ...


@dataclass(slots=True)
class _Command:
    player_id: str | None
    command: PlayerCommand
    version: int
    received_ms: int
    seat: Seat | None
    reply: asyncio.Future[int]
    relayed_ms: int | None


@dataclass(slots=True)
class _Join:
    player: Player
    reply: asyncio.Future[Seat]


@dataclass(slots=True)
class _Timer:
    kind: TimerKind


@dataclass(slots=True)
class _Stall:
    """The lag monitor saw the loop stall while this match's clock ran (D5)."""


@dataclass(slots=True)
class _Leave:
    """Stand the clocks for a hand-over to a peer (PROTOCOL.md "Several servers on one database");
    nothing is taken after."""

    reply: asyncio.Future[int]


Mail = _Command | _Join | _Timer | _Stall | _Leave


class MatchActor:
    def __init__(
        self,
        match_id: str,
        state: MatchState,
        store: MatchStore,
        decks: DeckSource,
        now_ms: MsSource,
        wall_ms: MsSource,
        is_loop_healthy: Callable[[int, int], bool],
        on_change: Callable[[MatchActor], None] | None = None,
        telemetry: Telemetry = NO_TELEMETRY,
        abandon_ms: int = ServiceSettings().shared_abandon_ms,
    ) -> None:
        self.id = match_id
        self.state = state
        """The last stored state (install after commit)."""
        self.standing: Standing = NO_STANDING
        """The ratings shown beside the players (``service.standings``): read as the seats are
        taken, and with a rated end's stored changes before that end is published."""
        self.created_wall_ms = wall_ms()
        self.ended_wall_ms: int | None = None
        self._log: list[Entry] | None = []
        """The versions made before a listener took them (:meth:`take_log`)."""
        self._store = store
        self._decks = decks
        self._now_ms = now_ms
        self._wall_ms = wall_ms
        self._is_loop_healthy = is_loop_healthy
        self._on_change = on_change
        self._telemetry = telemetry
        self._listeners: list[Listener] = []
        self._queue: Mailbox[Mail] = Mailbox()
        self._task: asyncio.Task[None] | None = None
        queue = self._queue  # not self: an actor must not be in a reference cycle (collector.py)
        self._alarms = Alarms(lambda kind: queue.put_nowait(_Timer(kind)))
        self._closed = False
        self._here_since_ms: int | None = None
        """When a match handed over by a peer began to be timed here (:meth:`resume`)."""
        self._attendance = Attendance(now_ms())
        """Who has the match open (D3, D8); nobody until the web layer says so."""
        self._abandon_ms = abandon_ms

    @property
    def version(self) -> int:
        return self.state.version

    @property
    def is_live(self) -> bool:
        return self.state.is_live

    # -- lifecycle --------------------------------------------------------------------------

    async def open(self) -> None:
        """Record the match and start its consumer task and first timers."""
        await self._store.save_match(header_of(self.id, self.state, self.created_wall_ms, None))
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"match-{self.id}")
        self._arm_all()

    def resume(self, resumed: Entry) -> None:
        """Run a match a peer handed over, whose header and resuming version are stored
        (``service.handover``): its consumer task and timers, as :meth:`open` starts them. The
        resuming version is the log's first, so a socket that saw the one before gets it as
        an update, not a full state."""
        self._log = [resumed]
        self._here_since_ms = resumed.now_ms
        # Its sockets were closed for the move and reconnect here: absent until they do.
        self._attendance = Attendance(resumed.now_ms)
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"match-{self.id}")
        self._arm_all()

    async def hand_over(self) -> int:
        """Stand the clocks after every input already queued, store that version, and take nothing
        more (PROTOCOL.md "Several servers on one database"); return the version. Raise
        :class:`Rejection` when the version could not be stored: the match then goes on here."""
        reply: asyncio.Future[int] = self._future()
        self._queue.put_nowait(_Leave(reply))
        try:
            return await reply
        finally:
            del reply  # no cycle through a refusal's traceback (see submit)

    async def close(self) -> None:
        """Stop the actor: its timers, its task, its listeners; calls after this are refused."""
        self._closed = True
        self._alarms.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        while not self._queue.empty():
            mail = self._queue.get_nowait()
            if isinstance(mail, _Command | _Join) and not mail.reply.done():
                mail.reply.set_exception(_closed())
        for listener in list(self._listeners):
            listener.closed()
        self._listeners.clear()

    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def take_log(self) -> list[Entry]:
        """Every version so far, once: the first listener keeps the move list from then on
        (the web layer's room), so the actor stops keeping it. A match's whole
        log held twice, as entries here and as text there, was most of a loaded server's
        memory (OPERATIONS.md "Under load and abuse")."""
        log, self._log = self._log, None
        return log or []

    def unlisten(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    # -- the entry points -------------------------------------------------------------------

    async def submit(
        self,
        player_id: str | None,
        command: PlayerCommand,
        version: int,
        received_ms: int,
        seat: Seat | None = None,
        relayed_ms: int | None = None,
    ) -> int:
        """Apply a player's command; return the version it leaves, or raise :class:`Rejection`.
        ``relayed_ms``: how long before ``received_ms``'s owner-side reading the command spent in
        the relay from another server process (recorded as the clock audit, never charged).

        The future is dropped before a refusal leaves: raised by ``await reply``, the refusal holds
        a traceback through this frame, whose ``reply`` holds the refusal, a cycle through the
        caller's frame too (a socket, its transport, its request: ~70 objects). The collector
        freezes such objects and sweeps only while no clock runs (``web/collector.py``), which under
        load is never: a one-hour soak kept every refused command's socket (OPERATIONS.md "Under
        load and abuse")."""
        reply: asyncio.Future[int] = self._future()
        self._queue.put_nowait(
            _Command(player_id, command, version, received_ms, seat, reply, relayed_ms)
        )
        try:
            return await reply
        finally:
            del reply

    async def join(self, player: Player) -> Seat:
        reply: asyncio.Future[Seat] = self._future()
        self._queue.put_nowait(_Join(player, reply))
        try:
            return await reply
        finally:
            del reply  # no cycle through a refusal's traceback (see submit)

    def attend(self, player_id: str, here: bool) -> None:
        """A player's first socket on the match opened (``here``), or its last closed, on any
        server process (the web layer counts them): the timers that wait for people follow
        (D3, D8)."""
        if here:
            self._attendance = self._attendance.arrived(player_id)
        else:
            self._attendance = self._attendance.left(player_id, self._now_ms(), self.state)
        if self._task is not None and not self._closed:
            self._arm_all()

    def abort_for_timing_failure(self) -> None:
        """D5: the loop stalled while this match's clock ran (called by the lag monitor)."""
        self._queue.put_nowait(_Stall())

    def _future(self) -> asyncio.Future[T]:
        if self._closed:
            raise _closed()
        return asyncio.get_running_loop().create_future()

    # -- the consumer -----------------------------------------------------------------------

    async def _run(self) -> None:
        current_match.set(self.id)  # this task's own context: its logs name the match
        self.standing = await self._standing(self.state, rated=False)
        while True:
            mail = await self._queue.get()
            try:
                await self._handle(mail)
            except Exception as exc:  # a bug must not kill the match's actor
                log.exception("match %s: %s failed", self.id, type(mail).__name__)
                if isinstance(mail, _Command | _Join) and not mail.reply.done():
                    mail.reply.set_exception(exc)

    async def _handle(self, mail: Mail) -> None:
        if isinstance(mail, _Command):
            await self._guard_timing()
            submit = Submit(mail.player_id, mail.command, mail.version, mail.received_ms, mail.seat)
            outcome = await self._advance(submit, mail.relayed_ms)
            if _applied(outcome):
                self._telemetry.command_applied(self._now_ms() - mail.received_ms)
            _answer(mail.reply, outcome, self.state.version)
        elif isinstance(mail, _Join):
            outcome = await self._advance(Join(mail.player, self.armed_timers().join_ms))
            seats = self.state.seats_of(mail.player.id)
            _answer(mail.reply, outcome, seats[0] if seats else Seat.SECOND)
        elif isinstance(mail, _Timer):
            timer_input = self._timer_input(mail.kind)
            due_ms = self.state.deadline_ms() if isinstance(timer_input, FlagDue) else None
            outcome = await self._advance(timer_input)
            if due_ms is not None and _applied(outcome):
                self._telemetry.flag_fell(self._now_ms() - due_ms)
        elif isinstance(mail, _Leave):
            await self._guard_timing()  # a stall here ends the match (D5); none is handed over
            outcome = await self._advance(HandingOver())
            if isinstance(outcome, Transition):
                self._closed = True  # what a socket sends from now on is refused
                self._alarms.close()
            _answer(mail.reply, outcome, self.state.version)
        else:
            await self._advance(LoopStalled())

    def _timer_input(self, kind: TimerKind) -> Input:
        if kind is TimerKind.FLAG:
            return FlagDue() if self._healthy() else LoopStalled()
        if kind is TimerKind.GRACE:
            return GraceDue()
        if kind is TimerKind.ABANDON:
            return AbandonDue()
        return JoinDue()

    async def _guard_timing(self) -> None:
        """A command after an unnoticed stall first ends the match (D5)."""
        if not self._healthy():
            await self._advance(LoopStalled())

    def _healthy(self) -> bool:
        """D5 over the span this server timed the running decision: a decision resumed from a
        peer began before it came here, and this loop's stalls before then timed nothing."""
        clock = self.state.clock
        since_ms = clock.decision_started_ms
        if self._here_since_ms is not None:
            since_ms = max(since_ms, self._here_since_ms)
        return clock.running is None or self._is_loop_healthy(since_ms, self._now_ms())

    def _seed(self) -> DealSeed:
        return DealSeed(self._decks(), new_salt())

    async def _advance(
        self, command: Input, relayed_ms: int | None = None
    ) -> Transition | Rejection:
        """Step, commit, install, publish (durability order: stored before anyone is told).
        ``relayed_ms`` is the command's time in the relay, recorded with its version."""
        now = self._now_ms()
        outcome = step(self.state, command, now)
        if isinstance(outcome, NeedsDeck):  # a deck is drawn only for a deal: no global randomness
            outcome = step(self.state, with_deck(command, self._seed()), now)
        assert not isinstance(outcome, NeedsDeck)
        if isinstance(outcome, Rejection) or outcome.entry is None:
            self._arm_all(retry=True)
            return outcome
        entry = outcome.entry
        wall = self._wall_ms()
        new = outcome.state
        header = None
        if outcome.header_changed:
            header = header_of(self.id, new, self.created_wall_ms, wall)
        try:
            await self._store.append(
                [event_record(self.id, entry, wall, relayed_ms)],
                rounds=round_records(self.id, entry),
                match=header,
                rated=rated_result(header) if header is not None and not new.is_live else None,
            )
        except Exception as exc:
            log.warning("match %s: version %d not stored: %s", self.id, entry.version, exc)
            self._arm_all(retry=True)
            if isinstance(exc, LeaseLostError):  # a peer runs the match now: go and find it
                return Rejection(
                    ErrorCode.SERVER_BUSY,
                    "this server lost its lease on the database; nothing changed: reconnect "
                    "and try again",
                    retry_after_s=1,
                )
            return Rejection(
                ErrorCode.STORAGE_FAILED, "the move could not be saved; nothing changed"
            )
        if new.seats != self.state.seats or (header is not None and header.rated):
            self.standing = await self._standing(new, rated=header is not None and header.rated)
        self.state = new
        if not new.is_live:
            self.ended_wall_ms = wall
        if self._log is not None:
            self._log.append(entry)
        self._arm_all()
        for listener in list(self._listeners):
            try:
                listener.published(entry, new)
            except Exception:
                log.exception("match %s: a listener failed on version %d", self.id, entry.version)
        if self._on_change is not None:
            self._on_change(self)
        return outcome

    async def _standing(self, state: MatchState, *, rated: bool) -> Standing:
        """The seats' ratings as the store has them, or after a rated end the changes stored
        with it; the last standing when they cannot be read (they are only shown)."""
        try:
            if rated:
                found = await settled(self._store, self.id, state.seats)
                return found if found is not None else self.standing
            return await seated(self._store, state.mode, state.seats, self._wall_ms())
        except Exception as exc:
            log.warning("match %s: its players' ratings were not read: %s", self.id, exc)
            return self.standing

    def armed_timers(self) -> Timers:
        """The timers as armed now: the machine's, waiting for people as the attendance says
        (D3: the join timeout is None while the creator is there; D8)."""
        return attended(timers(self.state), self.state, self._attendance, self._abandon_ms)

    def _arm_all(self, *, retry: bool = False) -> None:
        self._alarms.arm(self.armed_timers(), self._now_ms(), retry=retry)


def _applied(outcome: Transition | Rejection) -> bool:
    """Whether ``outcome`` stored a version that was what its input asked for (not a refusal,
    not a command that only flagged its own late seat)."""
    return isinstance(outcome, Transition) and outcome.entry is not None and outcome.reply is None


def _answer(reply: asyncio.Future[T], outcome: Transition | Rejection, value: T) -> None:
    if reply.done():
        return
    if isinstance(outcome, Rejection):
        reply.set_exception(outcome)
    elif outcome.reply is not None:
        reply.set_exception(outcome.reply)
    else:
        reply.set_result(value)


def _closed() -> Rejection:
    return Rejection(ErrorCode.NOT_FOUND, "the match is closed: the server is shutting down")
