"""A match's state between two commands, and what the match machine gives back (ARCHITECTURE.md
"Code map").

These are the machine's values (``machine.py`` holds the :func:`~spectacular_bid.service.machine
.step` that makes them): the :class:`MatchState`, the :class:`Entry` one new version records, the
:class:`Transition` a command leads to, and the :class:`Timers` the service must arm for a state.
"""

from __future__ import annotations

from dataclasses import dataclass

from spectacular_bid.clock import ClockReading, MatchClock
from spectacular_bid.rules.match import Match
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.tiles import Tile
from spectacular_bid.service.audience import seats_held
from spectacular_bid.service.commands import DealSeed, NeedsDeck, RecordedCommand
from spectacular_bid.service.events import DeckCommitted, DeckRevealed, MatchEvent
from spectacular_bid.service.ports import MatchMode, MatchStatus, Player
from spectacular_bid.service.refusals import Rejection
from spectacular_bid.service.settings import ServiceSettings

LIVE = (MatchStatus.WAITING, MatchStatus.ACTIVE)


@dataclass(frozen=True, slots=True)
class MatchState:
    """Everything a match is between two commands. Its ``match`` is never changed once it is in
    a state: :func:`step` works on a copy."""

    mode: MatchMode
    settings: ServiceSettings
    seats: tuple[Player | None, Player | None]
    status: MatchStatus
    version: int
    match: Match
    clock: MatchClock
    ready: frozenset[Seat] = frozenset()
    handover: Seat | None = None
    """Shared device: the seat that must press Reveal before its clock starts (R7.5)."""
    revealed: Seat | None = None
    """Shared device: the seat whose tiles the device shows."""
    dealt_version: int = 0
    """The version of the last deal: a Start made before it is already in effect."""
    handover_version: int = 0
    """The version that began the last hand-over: a Reveal made before it is in effect."""
    start_deadline_ms: int | None = None
    """D3: when the round deals even if a player never presses."""
    join_deadline_ms: int | None = None
    """D3: when a match still waiting for its second player is aborted."""
    commitment: DeckCommitted | None = None
    reveal: DeckRevealed | None = None
    secret: DealSeed | None = None
    """The current round's deck and salt, hidden until the round ends (D4)."""
    suspended_ms: int | None = None
    """When this match's owner handed it to a peer (PROTOCOL.md "Several servers on one database"):
    its clocks stand and no timer runs until the peer resumes it."""
    seat_names: tuple[str, str] | None = None
    """Shared device: the names typed for its two players (``service.seat_names``); the seats'
    player is the device's guest all the same. None when none were typed."""

    def seat_name(self, index: int) -> str | None:
        """The name seat ``index`` (0 or 1) is shown under: a typed one, else its player's."""
        if self.seat_names is not None:
            return self.seat_names[index]
        player = self.seats[index]
        return None if player is None else player.name

    decided: frozenset[Seat] = frozenset()
    """D7: the seats that have made a decision of their own (a bid or raise, an accept, a
    decline, a placement they sent). The machine adds a seat when it applies such a command, so
    a replay of the record derives it again."""

    @property
    def is_live(self) -> bool:
        return self.status in LIVE

    def seats_of(self, player_id: str | None) -> list[Seat]:
        return seats_held(self.seats, player_id)

    def first_decision_deadline_ms(self) -> int | None:
        """D7: when the running decision of a seat that has decided nothing yet ends the match
        aborted — its start, its delay and the grace, or R7.7's deadline if that is sooner.
        None while the clocks stand, with the rule off, or once the running seat has decided."""
        grace_ms = self.settings.first_decision_grace_ms
        clock = self.clock
        seat = clock.running
        deadline_ms = clock.deadline_ms()
        if grace_ms is None or seat is None or deadline_ms is None or seat in self.decided:
            return None
        return min(deadline_ms, clock.decision_started_ms + clock.delay_ms + grace_ms)

    def deadline_ms(self) -> int | None:
        """When the running decision's time is up: D7's deadline while it applies, else the
        clock's (R7.7). A command that arrives then or later is late (D6)."""
        first_ms = self.first_decision_deadline_ms()
        return first_ms if first_ms is not None else self.clock.deadline_ms()

    def is_late(self, received_ms: int) -> bool:
        """D6: whether a command received at ``received_ms`` comes at the deadline or later."""
        deadline_ms = self.deadline_ms()
        return deadline_ms is not None and received_ms >= deadline_ms

    def reading(self, now_ms: int) -> ClockReading:
        """The clocks at ``now_ms`` (never before the last time they saw)."""
        return self.clock.reading(max(now_ms, self.clock.decision_started_ms))


def new_match(
    mode: MatchMode,
    creator: Player,
    settings: ServiceSettings,
    now_ms: int,
    seat_names: tuple[str, str] | None = None,
) -> MatchState:
    """A match just created: the creator in the first seat (both on a shared device, with the
    names typed for its two players), waiting for the second player under the join timeout, or
    on a shared device waiting for Start."""
    shared = mode is MatchMode.SHARED
    return MatchState(
        mode=mode,
        settings=settings,
        seats=(creator, creator if shared else None),
        status=MatchStatus.ACTIVE if shared else MatchStatus.WAITING,
        version=0,
        match=Match(),
        clock=MatchClock.new(settings.clock),
        start_deadline_ms=now_ms + settings.grace_ms if shared else None,
        join_deadline_ms=None if shared else now_ms + settings.join_timeout_ms,
        seat_names=seat_names if shared else None,
    )


@dataclass(frozen=True, slots=True)
class RoundRow:
    """A round's deck commitment, and its salt and deck once it ended (D4)."""

    number: int
    commitment: str
    salt: str | None = None
    deck: tuple[Tile, ...] | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """One new version: what made it, what it caused, and the clocks after it."""

    version: int
    seat: Seat | None
    """The seat whose command this was (the press that dealt, for a deal); None for timers."""
    command: RecordedCommand
    events: tuple[MatchEvent, ...]
    received_ms: int
    now_ms: int
    clock: ClockReading

    @property
    def rounds(self) -> tuple[RoundRow, ...]:
        """The round rows this version writes: a deal's commitment, a round end's reveal."""
        rows = []
        for event in self.events:
            if isinstance(event, DeckCommitted):
                rows.append(RoundRow(event.round, event.commitment))
            elif isinstance(event, DeckRevealed) and event.commitment is not None:
                rows.append(RoundRow(event.round, event.commitment, event.salt, event.deck))
        return tuple(rows)


@dataclass(frozen=True, slots=True)
class Transition:
    """A command's outcome: the new state and its entry (None: nothing changed, the sender gets
    ``ack``), and a refusal still owed to the sender (D6: the late command flagged its seat)."""

    state: MatchState
    entry: Entry | None = None
    reply: Rejection | None = None
    header_changed: bool = False
    """The match's header (seats, status, result) changed with this version."""


Outcome = Transition | Rejection | NeedsDeck


@dataclass(frozen=True, slots=True)
class Timers:
    """When the service must feed the machine a timer input (R7.7, D3, D7, D8). ``join_ms`` is
    the join timeout's lower bound; the actor holds it while the creator is there (D3)."""

    flag_ms: int | None
    grace_ms: int | None
    join_ms: int | None
    abandon_ms: int | None = None
    """D8: never from the machine, which does not know who is there; the actor adds it from the
    match's attendance (``service.presence``)."""


def timers(state: MatchState) -> Timers:
    live = state.is_live and state.suspended_ms is None
    return Timers(
        flag_ms=state.deadline_ms() if live else None,
        grace_ms=state.start_deadline_ms if live else None,
        join_ms=state.join_deadline_ms if live and state.status is MatchStatus.WAITING else None,
    )
