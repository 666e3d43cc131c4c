"""Drivers for the match machine's tests: a table that feeds ``step`` by hand, and positions.

No asyncio and no actor: a :class:`Table` holds the last state, a hand-moved ``now_ms`` and the
decks to deal, and checks on every input that ``step`` left the state it was given as it was
(R8.3: the machine works on a copy). Moves are written in Appendix A notation (``tests/rules``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from rules.decks import action, deck
from spectacular_bid.clock import MatchClock
from spectacular_bid.rules.actions import Draw, Play
from spectacular_bid.rules.match import Match
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import Tile
from spectacular_bid.service.commands import (
    DealSeed,
    Input,
    Join,
    NeedsDeck,
    PlayerCommand,
    Reveal,
    SaltedDeal,
    Start,
    Submit,
    move_of,
    with_deck,
)
from spectacular_bid.service.machine import step
from spectacular_bid.service.ports import MatchMode, MatchStatus, Player
from spectacular_bid.service.refusals import Rejection
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.service.state import Entry, MatchState, Outcome, Transition, new_match

FIRST, SECOND = Seat.FIRST, Seat.SECOND
ANN = Player("player-ann", "Ann")
BO = Player("player-bo", "Bo")
CY = Player("player-cy", "Cy")
"""Never seated: a spectator."""

T0 = 1_000_000
DELAY_MS = 10_000
BANK_MS = 120_000
GRACE_MS = 20_000
JOIN_TIMEOUT_MS = 60_000
SETTINGS = replace(ServiceSettings(), join_timeout_ms=JOIN_TIMEOUT_MS)
"""The rules' values: 120 s bank, 10 s delay (R7.1, R7.2), 20 s grace (D3), a 20 s grace after
a first decision's delay (D7); and a 60 s join timeout (D3's lower bound, kept short here)."""
R7_ALONE = replace(SETTINGS, first_decision_grace_ms=None)
"""The rules' values with D7 off, as records before format 4 replay: for scenarios that time a
seat's first decision up to R7.7's own deadline (D7 would end it sooner; R7.7 is unchanged for
every decision after a seat's first)."""

DRAW_DECK = deck(
    first="6-6 0-0 0-1 0-2 0-3 0-4 0-5",
    second="1-1 1-2 1-3 1-4 1-5 2-2 2-3",
    boneyard="2-4 2-5 3-3 0-6",
)
"""The first seat holds the highest double and must open [6|6] (R2.3). The second seat holds no
6, so it must draw [2|4], [2|5] and [3|3] (none fits a 6) and then [0|6], which it must play
(R4.1, R4.2): four commands inside one turn (R4.3, R7.3)."""


def snapshot(state: MatchState) -> MatchState:
    """An equal state that shares no mutable part with ``state``: its match is a copy."""
    return replace(state, match=state.match.copy())


def unchanged(before: MatchState, after: MatchState) -> bool:
    """True when ``after`` (a state ``step`` was given) still equals the snapshot ``before``."""
    return after == before and after.match == before.match


def settled(
    match: Match,
    *,
    mode: MatchMode = MatchMode.INVITE,
    now_ms: int = T0,
    version: int = 10,
    bank_ms: BySeat[int] | None = None,
) -> MatchState:
    """A hand-built position: ``match`` (awaiting its next deal) in a live match at ``version``,
    both seats taken, the clocks standing since ``now_ms`` and the grace armed from then."""
    shared = mode is MatchMode.SHARED
    base = new_match(mode, ANN, SETTINGS, now_ms)
    clock = MatchClock(
        SETTINGS.clock,
        bank_ms or BySeat(BANK_MS, BANK_MS),
        None,
        now_ms,
        SETTINGS.clock.delay_ms,
    )
    return replace(
        base,
        seats=(ANN, ANN if shared else BO),
        status=MatchStatus.ACTIVE,
        version=version,
        match=match,
        clock=clock,
        dealt_version=1,
        start_deadline_ms=now_ms + SETTINGS.grace_ms,
        join_deadline_ms=None,
    )


@dataclass
class Table:
    """One match fed by hand: :meth:`outcome` asks ``step`` without installing, :meth:`feed`
    installs a :class:`Transition` (dealing from :attr:`decks` when the machine asks)."""

    state: MatchState
    now_ms: int = T0
    decks: list[tuple[Tile, ...]] = field(default_factory=lambda: [DRAW_DECK])
    log: list[Entry] = field(default_factory=list)
    dealt: int = 0

    @classmethod
    def invite(
        cls, *decks: tuple[Tile, ...], joined: bool = True, settings: ServiceSettings = SETTINGS
    ) -> Table:
        """Ann's invite match created at ``T0``, joined by Bo at ``T0`` unless ``joined`` is
        false (version 1, the grace armed until ``T0 + GRACE_MS``)."""
        table = cls(
            new_match(MatchMode.INVITE, ANN, settings, T0), decks=list(decks or [DRAW_DECK])
        )
        if joined:
            table.feed(Join(BO))
        return table

    @classmethod
    def shared(cls, *decks: tuple[Tile, ...]) -> Table:
        """Ann's shared-device match created at ``T0`` (version 0, both seats hers)."""
        return cls(new_match(MatchMode.SHARED, ANN, SETTINGS, T0), decks=list(decks or [DRAW_DECK]))

    @classmethod
    def at(cls, state: MatchState, *decks: tuple[Tile, ...]) -> Table:
        return cls(state, now_ms=state.clock.decision_started_ms, decks=list(decks or [DRAW_DECK]))

    # -- time ---------------------------------------------------------------------------------

    def advance(self, ms: int) -> int:
        self.now_ms += ms
        return self.now_ms

    def set(self, ms: int) -> int:
        assert ms >= self.now_ms, f"time only moves forward: {ms} < {self.now_ms}"
        self.now_ms = ms
        return ms

    # -- inputs -------------------------------------------------------------------------------

    def next_seed(self) -> DealSeed:
        cards = self.decks[min(self.dealt, len(self.decks) - 1)]
        self.dealt += 1
        return DealSeed(cards, f"salt-{self.dealt}")

    def outcome(self, command: Input, now_ms: int | None = None) -> Outcome:
        """``step``'s answer at ``now_ms`` (the table's time by default), not installed; the
        state it was given is checked to be left exactly as it was."""
        before = snapshot(self.state)
        result = step(self.state, command, self.now_ms if now_ms is None else now_ms)
        assert unchanged(before, self.state), "step changed the state it was given"
        return result

    def feed(self, command: Input, now_ms: int | None = None) -> Transition:
        """Apply ``command``; it must be accepted. A :class:`NeedsDeck` is answered with the next
        deck. The new state is installed and its entry (if any) logged."""
        result = self.outcome(command, now_ms)
        if isinstance(result, NeedsDeck):
            result = self.outcome(with_deck(command, self.next_seed()), now_ms)
        assert isinstance(result, Transition), f"{command!r} was refused: {result}"
        if result.entry is None:
            assert result.state is self.state, "an ack must not change the state"
        else:
            assert result.entry.version == self.state.version + 1 == result.state.version
            self.log.append(result.entry)
        self.state = result.state
        return result

    def refused(self, command: Input, now_ms: int | None = None) -> Rejection:
        """The :class:`Rejection` ``command`` gets (it must get one); nothing is installed."""
        result = self.outcome(command, now_ms)
        assert isinstance(result, Rejection), f"{command!r} was not refused: {result!r}"
        return result

    def player(self, seat: Seat) -> Player:
        player = self.state.seats[seat]
        assert player is not None, f"the {seat} seat is empty"
        return player

    def submit(
        self,
        by: Seat | Player,
        command: PlayerCommand,
        *,
        version: int | None = None,
        received_ms: int | None = None,
        seat: Seat | None = None,
    ) -> Submit:
        """``command`` from the player holding ``by`` (or the player ``by``), made against the
        current version and received now unless told otherwise."""
        player = by if isinstance(by, Player) else self.player(by)
        return Submit(
            player.id,
            command,
            self.state.version if version is None else version,
            self.now_ms if received_ms is None else received_ms,
            seat,
        )

    def send(self, by: Seat | Player, command: PlayerCommand, **fields: object) -> Transition:
        """:meth:`submit` then :meth:`feed`: the command must be accepted."""
        return self.feed(self.submit(by, command, **fields))  # type: ignore[arg-type]

    def start_round(self) -> Transition:
        """Start/Continue from every seat not yet ready (one press on a shared device, D3)."""
        if self.state.mode is MatchMode.SHARED:
            return self.send(FIRST, Start())
        result = None
        for seat in (FIRST, SECOND):
            if seat not in self.state.ready:
                result = self.send(seat, Start())
        assert result is not None
        assert isinstance(self.log[-1].command, SaltedDeal)
        return result

    def reveal(self) -> Transition:
        """Shared device: the seat in hand-over presses Reveal (R7.5)."""
        seat = self.state.handover
        assert seat is not None, "no hand-over is pending"
        return self.send(seat, Reveal())

    def play(self, moves: str, *, step_ms: int = 0, reveal: bool = True) -> Transition:
        """``moves`` in notation (``draw``, ``1-4``, ``1-1@1-4:smaller``), each by the seat to act,
        ``step_ms`` apart; on a shared device each hand-over is revealed first unless told not."""
        result = None
        for move in moves.split():
            if reveal and self.state.handover is not None:
                self.reveal()
            self.advance(step_ms)
            seat_action = action(self.state.match, move)
            assert isinstance(seat_action, Play | Draw)
            result = self.send(seat_action.seat, move_of(seat_action))
        assert result is not None, "no moves given"
        return result
