"""Properties of the match machine under random play, random presses and random timers.

A Hypothesis state machine drives ``step`` with a fake clock that the rules move: each seat's
legal moves (``Match.legal_actions`` through ``move_of``), illegal and stale moves, Start and
Reveal presses made against old and current versions, joins, every timer input at random times
and exactly at its deadline, and time jumps past deadlines. After every input it checks:

- the state ``step`` was given is unchanged (R8.3), and a refusal installs nothing;
- the version moves by exactly 1 with each entry and never otherwise;
- a Flag entry appears exactly when the deadline is reached — never early (R7.7, D6); for a
  seat that has made no decision of its own it is an abort for no first decision instead, at its
  delay plus the grace or R7.7's deadline, whichever is sooner (D7), and a seat counts as having
  decided exactly once it has had a bid, an accept, a decline or a placement of its own applied;
- timers act exactly when due: the grace (D3), the join timeout (D3), a stall only while a clock
  runs (D5);
- balances add up to 300 and are never negative (R1.2, R1.4);
- a bank never grows (R7.1), is never negative, and is 0 only in a match lost on time by that
  seat or aborted for a timing failure (D5 charges a stall up to the time it was seen);
- a running clock belongs to the seat to act, and a seat to act has no running clock only in a
  shared device's hand-over (R7.5); a new decision starts now with the whole delay (R7.2), a
  draw inside a turn leaves the clock as it was (R7.3);
- a legal move sent in time is accepted; a match that ended stays ended.

Both an online (invite) match and a shared-device one are run; a module-level tally proves the
runs reached deals, auctions, flags, round ends and match ends (the properties are not vacuous).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import ClassVar

from hypothesis import HealthCheck, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    precondition,
    rule,
    run_state_machine_as_test,
)

from spectacular_bid.clock import ClockSettings
from spectacular_bid.rules.actions import (
    Abort,
    AbortReason,
    Accept,
    AuctionOpened,
    Bid,
    BidAccepted,
    Decline,
    Declined,
    Draw,
    Flag,
    MatchEnd,
    Passed,
    Play,
    RoundEnd,
    RoundEnded,
)
from spectacular_bid.rules.board import Place, Side
from spectacular_bid.rules.match import TOTAL_POINTS, Phase
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.rules.tiles import TILES
from spectacular_bid.service.commands import (
    AcceptBid,
    DealSeed,
    DeclineBid,
    DrawTile,
    FlagDue,
    GraceDue,
    Input,
    Join,
    JoinDue,
    LoopStalled,
    NeedsDeck,
    PlaceBid,
    PlayerCommand,
    PlayTile,
    PressedReveal,
    PressedStart,
    ResignMatch,
    Restarted,
    Reveal,
    SaltedDeal,
    Start,
    Submit,
    move_of,
    with_deck,
)
from spectacular_bid.service.machine import step
from spectacular_bid.service.ports import MatchMode, MatchStatus, Player
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.service.state import MatchState, Transition, new_match, timers

from .machine_table import ANN, BO, CY, T0, snapshot, unchanged

FAST = ServiceSettings(
    clock=ClockSettings(bank_ms=60_000, delay_ms=2_000),
    grace_ms=5_000,
    join_timeout_ms=8_000,
)
"""Short clocks and timers, so that random time jumps run past every kind of deadline."""

TALLY: Counter[str] = Counter()
"""What the runs of the current test reached; reset by each test."""

MOVES: tuple[PlayerCommand, ...] = (DrawTile(), AcceptBid(), DeclineBid(), ResignMatch())

times_ms = st.one_of(st.integers(0, 2_500), st.sampled_from([0, 1, 1_999, 2_000]))
"""A short pause: inside the delay, at its edge, or a little beyond."""


def is_time_up(recorded: object) -> bool:
    """The version a running seat's deadline made: a loss on time (R7.7) or, for a seat that
    decided nothing yet, an abort for no first decision (D7)."""
    return isinstance(recorded, Flag) or (
        isinstance(recorded, Abort) and recorded.reason is AbortReason.NO_FIRST_DECISION
    )


class MachineRun(RuleBasedStateMachine):
    """One player (or two) and the service's timers against ``step``, match after match."""

    mode: ClassVar[MatchMode] = MatchMode.INVITE

    def __init__(self) -> None:
        super().__init__()
        self.now_ms = T0
        self.salts = 0
        self.matches = 1
        self.state = new_match(self.mode, ANN, FAST, T0)
        TALLY["matches"] += 1

    # -- the one way in: every input goes through here and is checked -----------------------

    def feed(self, command: Input) -> Transition | Rejection:
        state = self.state
        now_ms = self.now_ms
        before = snapshot(state)
        expected_flag = self.flag_expected(state, command, now_ms)
        outcome = step(state, command, now_ms)
        assert unchanged(before, state), f"step changed its input state on {command!r}"
        if isinstance(outcome, NeedsDeck):
            assert isinstance(command, Submit | GraceDue), command
            TALLY["needs_deck"] += 1
            outcome = step(state, with_deck(command, self.seed()), now_ms)
            assert unchanged(before, state)
            assert isinstance(outcome, Transition), outcome
            assert outcome.entry is not None
            assert isinstance(outcome.entry.command, SaltedDeal)
        flagged = (
            isinstance(outcome, Transition)
            and outcome.entry is not None
            and is_time_up(outcome.entry.command)
        )
        assert flagged == expected_flag, (
            f"{command!r} at {now_ms}: deadline {state.deadline_ms()}, "
            f"flag expected {expected_flag}, got {outcome!r}"
        )
        self.check_timer(state, command, now_ms, outcome)
        if not expected_flag:
            self.check_press(state, command, outcome)
        if isinstance(outcome, Rejection):
            TALLY[f"refused {outcome.code.value}"] += 1
            return outcome
        self.check_transition(state, command, now_ms, outcome)
        self.state = outcome.state
        return outcome

    @staticmethod
    def flag_expected(state: MatchState, command: Input, now_ms: int) -> bool:
        """R7.7, D6, D7: whether this input must flag the running seat (or abort the match for
        its missing first decision)."""
        deadline_ms = state.deadline_ms()
        if not state.is_live or deadline_ms is None:
            return False
        if isinstance(command, FlagDue):
            return now_ms >= deadline_ms
        if not isinstance(command, Submit) or not state.seats_of(command.player_id):
            return False
        is_press = isinstance(command.command, Start | Reveal)
        if not is_press and command.version != state.version:
            return False
        return max(command.received_ms, state.clock.decision_started_ms) >= deadline_ms

    @staticmethod
    def check_timer(
        state: MatchState, command: Input, now_ms: int, outcome: Transition | Rejection
    ) -> None:
        """Each timer input acts exactly when it is due (D3, D5)."""
        acted = isinstance(outcome, Transition) and outcome.entry is not None
        if isinstance(command, GraceDue):
            due = (
                state.status is MatchStatus.ACTIVE
                and state.match.phase is Phase.AWAITING_DEAL
                and state.start_deadline_ms is not None
                and now_ms >= state.start_deadline_ms
            )
            assert acted == due, (command, now_ms, state.start_deadline_ms, outcome)
        elif isinstance(command, JoinDue):
            due = (
                state.status is MatchStatus.WAITING
                and state.join_deadline_ms is not None
                and now_ms >= state.join_deadline_ms
            )
            assert acted == due, (command, now_ms, state.join_deadline_ms, outcome)
        elif isinstance(command, LoopStalled):
            assert acted == (state.is_live and state.clock.running is not None)
        elif isinstance(command, Restarted):
            assert acted == state.is_live

    @staticmethod
    def check_press(state: MatchState, command: Input, outcome: Transition | Rejection) -> None:
        """A press already in effect is acknowledged with no new version — a Start
        made before the last deal or from a seat already ready, a Reveal made before the current
        hand-over began or once it was revealed."""
        if not isinstance(command, Submit) or not state.is_live:
            return
        held = state.seats_of(command.player_id)
        if not held or (command.seat is not None and command.seat not in held):
            return
        press = command.command
        if isinstance(press, Start):
            pressing = set(held) if command.seat is None else {command.seat}
            in_effect = command.version < state.dealt_version or (
                state.mode is not MatchMode.SHARED
                and state.status is MatchStatus.ACTIVE
                and state.match.phase is Phase.AWAITING_DEAL
                and pressing <= state.ready
            )
        elif isinstance(press, Reveal) and state.mode is MatchMode.SHARED:
            in_effect = command.version < state.handover_version or (
                state.handover is None and state.revealed is not None
            )
        else:
            return
        if in_effect:
            assert isinstance(outcome, Transition), (command, outcome)
            assert outcome.entry is None, (command, outcome.entry)
            TALLY["presses in effect"] += 1

    def check_transition(
        self, state: MatchState, command: Input, now_ms: int, outcome: Transition
    ) -> None:
        new = outcome.state
        entry = outcome.entry
        if entry is None:
            assert new is state, "an ack must leave the state as it was"
            assert outcome.reply is None
            TALLY["acks"] += 1
            return
        assert state.is_live, "a match that ended stays ended"
        assert entry.version == new.version == state.version + 1
        assert outcome.header_changed == (new.status != state.status or new.seats != state.seats)
        assert entry.clock == new.reading(entry.now_ms)
        assert entry.now_ms == now_ms
        if isinstance(entry.command, PressedStart):  # a lone press is charged at its receipt
            assert entry.received_ms <= now_ms
        self.tally(state, command, outcome)
        # R1.2, R1.4
        assert sum(new.match.balances) == TOTAL_POINTS
        assert min(new.match.balances) >= 0
        # R7.1: banks only fall; D5/R7.7: a bank at 0 means a loss on time or a timing failure
        result = new.match.result
        for seat in SEATS:
            bank_ms = new.clock.bank_ms[seat]
            assert 0 <= bank_ms <= state.clock.bank_ms[seat]
            assert entry.clock.bank_left_ms[seat] >= 0
            if bank_ms == 0:
                assert not new.is_live
                assert result is not None
                assert (result.reason, result.winner) in (
                    (MatchEnd.TIME, seat.other),
                    (MatchEnd.TIMING_FAILURE, None),
                    (MatchEnd.NO_FIRST_DECISION, None),
                ), (seat, result)
        self.check_charge(state, command, now_ms, outcome)
        self.check_decided(state, entry.command, new)
        recorded = entry.command
        if isinstance(recorded, Flag | Abort) and is_time_up(recorded):
            assert entry.received_ms == state.deadline_ms()
            timed = recorded.seat
            assert timed is not None
            assert timed is state.clock.running
            if isinstance(recorded, Flag):
                assert new.clock.bank_ms[timed] == 0
                assert timed in state.decided or FAST.first_decision_grace_ms is None
            else:  # D7: a seat that decided nothing, at its delay plus the grace at the latest
                assert timed not in state.decided
                grace_ms = FAST.first_decision_grace_ms
                assert grace_ms is not None
                clock = state.clock
                assert entry.received_ms <= clock.decision_started_ms + clock.delay_ms + grace_ms
                assert new.match.result is not None
                assert new.match.result.undecided is timed
            if isinstance(command, Submit):
                assert outcome.reply is not None
                assert outcome.reply.code is ErrorCode.TIME_EXPIRED
        elif isinstance(command, Join) and isinstance(entry.command, Abort):
            # D3: a join at the armed timeout or later ends the match instead, and is told so.
            assert state.join_deadline_ms is not None
            assert command.timeout_ms is not None
            assert now_ms >= max(state.join_deadline_ms, command.timeout_ms)
            TALLY["joins too late"] += 1
            assert outcome.reply is not None
            assert outcome.reply.code is ErrorCode.MATCH_OVER
        else:
            assert outcome.reply is None
        # R7.5: who may have a running clock
        clock = new.clock
        assert clock.decision_started_ms >= state.clock.decision_started_ms
        to_act = new.match.to_act
        if clock.running is not None:
            assert new.status is MatchStatus.ACTIVE
            assert to_act is clock.running
            assert new.handover is None
        elif to_act is not None:
            assert new.mode is MatchMode.SHARED
            assert new.handover is to_act
        if not new.is_live:
            assert clock.running is None
            assert to_act is None
        # R7.2 / R7.3: a new decision starts now with the whole delay; a draw changes nothing
        new_decision = new.match.decision != state.match.decision
        if clock.running is not None and (new_decision or state.clock.running is None):
            assert clock.decision_started_ms == now_ms
            assert clock.delay_ms == FAST.clock.delay_ms
        if isinstance(entry.command, Draw) and not new_decision:
            assert clock == state.clock
            TALLY["draws inside a turn"] += 1

    @staticmethod
    def check_decided(state: MatchState, recorded: object, new: MatchState) -> None:
        """D7: a seat has decided once its own bid, accept, decline or placement is applied;
        nothing else (a draw, a press, a forced move, a timer) counts."""
        own = recorded.seat if isinstance(recorded, Bid | Accept | Decline | Play) else None
        expected = state.decided if own is None else state.decided | {own}
        assert new.decided == expected, (recorded, state.decided, new.decided)
        if own is not None and own not in state.decided:
            TALLY["first decisions"] += 1

    @staticmethod
    def check_charge(state: MatchState, command: Input, now_ms: int, outcome: Transition) -> None:
        """R7.2, R7.7, D5: the decision that ends is charged at the receive time of the command
        that ended it (the deadline for a flag, the last measured time for a restart, the time
        a stall was seen), only beyond its delay; the other bank, and any bank while the clocks
        stand (R7.5) or the same decision goes on (R7.3), is untouched."""
        before, after = state.clock, outcome.state.clock
        running = before.running
        goes_on = (
            running is not None
            and after.running is running
            and after.decision_started_ms == before.decision_started_ms
        )
        if running is None or goes_on:
            assert after.bank_ms == before.bank_ms
            return
        entry = outcome.entry
        assert entry is not None
        deadline_ms = state.deadline_ms()
        assert deadline_ms is not None
        if is_time_up(entry.command):
            at_ms = deadline_ms
        elif isinstance(command, Submit | Restarted):
            at_ms = max(command.received_ms, before.decision_started_ms)
        else:
            at_ms = now_ms
        assert after.bank_ms[running] == before.bank_left_ms(running, at_ms), (command, at_ms)
        assert after.bank_ms[running.other] == before.bank_ms[running.other]

    def tally(self, state: MatchState, command: Input, outcome: Transition) -> None:
        entry = outcome.entry
        assert entry is not None
        recorded = entry.command
        if isinstance(recorded, SaltedDeal):
            TALLY["deals"] += 1
            if isinstance(command, GraceDue):
                TALLY["deals at the grace"] += 1
        if isinstance(recorded, Flag):
            TALLY["flags by a late command" if outcome.reply else "flags by the timer"] += 1
        elif is_time_up(recorded):
            TALLY["aborts for no first decision"] += 1
        if isinstance(recorded, PressedReveal):
            TALLY["reveals"] += 1
        for event in entry.events:
            if isinstance(event, AuctionOpened):
                TALLY["auctions"] += 1
            elif isinstance(event, RoundEnded) and event.reason is not RoundEnd.MATCH_OVER:
                TALLY[f"round ends by {event.reason.value}"] += 1
            elif isinstance(event, Passed):
                TALLY["forced passes"] += 1
            elif isinstance(event, Declined | BidAccepted) and event.forced:
                TALLY["forced auction decisions"] += 1
        if not outcome.state.is_live:
            result = outcome.state.match.result
            assert result is not None
            TALLY["match ends"] += 1
            TALLY[f"match ends by {result.reason.value}"] += 1

    # -- helpers ------------------------------------------------------------------------------

    def seed(self) -> DealSeed:
        self.salts += 1
        cards = list(TILES)
        random.Random(self.salts * 7919 + self.matches).shuffle(cards)
        return DealSeed(tuple(cards), f"salt-{self.salts}")

    def player_of(self, seat: Seat) -> Player:
        player = self.state.seats[seat]
        return player if player is not None else CY

    def versions(self, pick: int) -> int:
        state = self.state
        choices = (
            state.version,
            state.version - 1,
            state.dealt_version - 1,
            state.dealt_version,
            state.handover_version - 1,
            state.handover_version,
            0,
            state.version + 1,
        )
        return max(0, choices[pick % len(choices)])

    def legal_move(self, received_ms: int, rng: random.Random) -> Transition | Rejection | None:
        """The next thing a player would send, received at ``received_ms``: a join, a Start, a
        Reveal, a resignation now and then, or a legal move of the seat to act — each accepted.
        Now and then the players wait instead and the grace or the join timeout runs out (D3).
        None when the match is over."""
        state = self.state
        if not state.is_live:
            return None
        if state.status is MatchStatus.WAITING:
            if rng.random() < 0.1 and state.join_deadline_ms is not None:
                self.now_ms = max(self.now_ms, state.join_deadline_ms)
                return self.accepted(JoinDue())
            # The join timeout as the service armed it (D3): held (None) while the creator is
            # there, else at or past the machine's lower bound.
            deadline_ms = state.join_deadline_ms
            armed = (
                None
                if deadline_ms is None
                else rng.choice([None, deadline_ms, deadline_ms + 5_000])
            )
            if armed is not None and rng.random() < 0.2:
                self.now_ms = max(self.now_ms, armed)  # the friend comes just too late
            joined = self.feed(Join(BO, armed))
            if armed is None or self.now_ms < armed:
                assert isinstance(joined, Transition), joined
                assert joined.entry is not None
                assert self.state.status is MatchStatus.ACTIVE
                TALLY["joins in time"] += 1
            return joined
        if rng.random() < 0.003:
            seat = rng.choice(SEATS)
            named = seat if self.mode is MatchMode.SHARED else None
            resign = Submit(
                self.player_of(seat).id, ResignMatch(), state.version, received_ms, named
            )
            return self.feed(resign)
        match = state.match
        if match.phase is Phase.AWAITING_DEAL:
            if rng.random() < 0.1 and state.start_deadline_ms is not None:
                self.now_ms = max(self.now_ms, state.start_deadline_ms)
                return self.accepted(GraceDue())
            if state.ready and rng.random() < 0.3:  # a double click: already in effect
                again = rng.choice(sorted(state.ready))
                self.feed(Submit(self.player_of(again).id, Start(), state.version, received_ms))
            seat = rng.choice([s for s in SEATS if s not in state.ready])
            return self.accepted(
                Submit(self.player_of(seat).id, Start(), state.version, received_ms)
            )
        if state.handover is not None:
            self.accepted(Submit(ANN.id, Reveal(), state.version, received_ms))
            state, match = self.state, self.state.match
        to_act = match.to_act
        assert to_act is not None
        legal = match.legal_actions(to_act)
        assert legal, "a seat to act always has a move (D2 applies forced ones)"
        move = move_of(rng.choice(legal))
        named = to_act if self.mode is MatchMode.SHARED and rng.random() < 0.5 else None
        deadline_ms = state.deadline_ms()
        outcome = self.feed(
            Submit(self.player_of(to_act).id, move, state.version, received_ms, named)
        )
        in_time = deadline_ms is None or received_ms < deadline_ms
        if in_time:
            assert isinstance(outcome, Transition), f"legal {move!r} refused: {outcome}"
            assert outcome.entry is not None
            TALLY["legal moves"] += 1
        return outcome

    def reveal_if_handed_over(self) -> None:
        """Shared device: end a pending hand-over, so that a clock runs (R7.5)."""
        state = self.state
        if state.is_live and state.handover is not None:
            self.accepted(Submit(ANN.id, Reveal(), state.version, self.now_ms))

    def accepted(self, command: Input) -> Transition:
        outcome = self.feed(command)
        assert isinstance(outcome, Transition), f"{command!r} refused: {outcome}"
        assert outcome.entry is not None, f"{command!r} changed nothing"
        return outcome

    # -- rules --------------------------------------------------------------------------------

    @rule(ms=times_ms)
    def time_passes(self, ms: int) -> None:
        self.now_ms += ms

    @rule(ms=st.integers(2_500, 70_000), gate=st.integers(0, 3))
    def a_long_pause(self, ms: int, gate: int) -> None:
        """Sometimes past a deadline, a grace or the join timeout."""
        if gate == 0:
            self.now_ms += ms

    @rule(seed=st.integers(0, 2**32), count=st.integers(1, 80), gap_ms=st.integers(0, 1_500))
    def players_move(self, seed: int, count: int, gap_ms: int) -> None:
        """``count`` legal moves (or joins and presses), up to ``gap_ms`` apart; a match that
        ends is followed by a new one."""
        rng = random.Random(seed)
        for _ in range(count):
            self.now_ms += rng.randint(0, gap_ms)
            if self.legal_move(self.now_ms, rng) is None:
                self.start_new_match()

    @rule(seed=st.integers(0, 2**32))
    def the_seat_to_act_tries_a_random_tile(self, seed: int) -> None:
        """Usually illegal (R8.3), now and then a legal play."""
        self.reveal_if_handed_over()
        rng = random.Random(seed)
        to_act = self.state.match.to_act
        seat = to_act if to_act is not None else rng.choice(SEATS)
        tile = rng.choice(TILES)
        board = self.state.match.round.board if self.state.match.round else None
        places = list(board.open_places()) if board is not None else []
        at = rng.choice([None, *places])
        named = seat if self.mode is MatchMode.SHARED else None
        self.feed(
            Submit(
                self.player_of(seat).id, PlayTile(tile, at), self.state.version, self.now_ms, named
            )
        )

    @rule(seed=st.integers(0, 2**32), lag_ms=st.integers(0, 3_000))
    def a_move_waits_in_the_queue(self, seed: int, lag_ms: int) -> None:
        """Received ``lag_ms`` before it is processed (R7.7: the receive time counts)."""
        self.legal_move(max(T0, self.now_ms - lag_ms), random.Random(seed))

    @rule(seed=st.integers(0, 2**32), offset_ms=st.sampled_from([-1, -1, 0, 1]))
    def a_move_arrives_at_the_deadline(self, seed: int, offset_ms: int) -> None:
        """D6: at the deadline or later is a loss on time (or D7's abort); a ms before is in
        time."""
        self.reveal_if_handed_over()
        deadline_ms = self.state.deadline_ms()
        if deadline_ms is None:
            return
        received_ms = deadline_ms + offset_ms
        self.now_ms = max(self.now_ms, received_ms)
        self.legal_move(received_ms, random.Random(seed))

    @rule(offset_ms=st.sampled_from([-1, -1, -1, 0, 1, 777]))
    def the_flag_timer_runs_near_the_deadline(self, offset_ms: int) -> None:
        """R7.7, D7: never early — a ms before the deadline is refused, at it the seat flags
        (or, undecided, is aborted)."""
        self.reveal_if_handed_over()
        deadline_ms = self.state.deadline_ms()
        if deadline_ms is not None:
            self.now_ms = max(self.now_ms, deadline_ms + offset_ms)
        self.feed(FlagDue())

    @rule()
    def due_timers_run(self) -> None:
        """What the actor does: each armed timer that is due now is fed."""
        due = timers(self.state)
        if due.flag_ms is not None and due.flag_ms <= self.now_ms:
            self.feed(FlagDue())
        due = timers(self.state)
        if due.grace_ms is not None and due.grace_ms <= self.now_ms:
            self.feed(GraceDue())
        due = timers(self.state)
        if due.join_ms is not None and due.join_ms <= self.now_ms:
            self.feed(JoinDue())

    @rule(
        kind=st.sampled_from([FlagDue(), GraceDue(), JoinDue(), LoopStalled()]),
        gate=st.integers(0, 5),
    )
    def a_timer_runs_at_a_random_time(self, kind: Input, gate: int) -> None:
        running = self.state.clock.running is not None
        if isinstance(kind, LoopStalled) and running and gate:
            kind = FlagDue()  # a stall aborts a running match: keep that rare
        self.feed(kind)

    @rule(kind=st.sampled_from([GraceDue(), JoinDue()]), offset_ms=st.sampled_from([-1, -1, 0, 1]))
    def a_start_timer_runs_near_its_deadline(self, kind: Input, offset_ms: int) -> None:
        """D3: the grace and the join timeout act at their deadline, not a ms before."""
        state = self.state
        due_ms = state.start_deadline_ms if isinstance(kind, GraceDue) else state.join_deadline_ms
        if due_ms is not None:
            self.now_ms = max(self.now_ms, due_ms + offset_ms)
        self.feed(kind)

    @rule(lag_ms=st.integers(0, 5_000), gate=st.integers(0, 9))
    def the_server_restarts(self, lag_ms: int, gate: int) -> None:
        if gate == 0:
            self.feed(Restarted(max(T0, self.now_ms - lag_ms)))

    @rule(
        press=st.sampled_from([Start(), Reveal()]),
        seat=st.sampled_from(SEATS),
        named=st.booleans(),
        pick=st.integers(0, 15),
    )
    def a_press_from_any_version(
        self, press: PlayerCommand, seat: Seat, named: bool, pick: int
    ) -> None:
        """Presses are idempotent: old versions, current ones, repeats (PROTOCOL.md "Client →
        server")."""
        shared = self.mode is MatchMode.SHARED
        self.feed(
            Submit(
                self.player_of(seat).id,
                press,
                self.versions(pick),
                self.now_ms,
                seat if shared and named else None,
            )
        )

    @rule(
        who=st.sampled_from([ANN, BO, CY]),
        command=st.one_of(
            st.sampled_from(MOVES[:3]),
            st.builds(PlaceBid, st.integers(0, 80)),
            st.builds(
                PlayTile,
                st.sampled_from(TILES),
                st.one_of(
                    st.none(), st.builds(Place, st.sampled_from(TILES), st.sampled_from(Side))
                ),
            ),
        ),
        seat=st.one_of(st.none(), st.sampled_from(SEATS)),
        pick=st.integers(0, 15),
    )
    def anything_from_anyone(
        self, who: Player, command: PlayerCommand, seat: Seat | None, pick: int
    ) -> None:
        """Mostly illegal, stale or from a spectator: refused and changing nothing (R8.3)."""
        self.feed(Submit(who.id, command, self.versions(pick), self.now_ms, seat))

    @rule(seed=st.integers(0, 2**32))
    def a_move_before_the_reveal(self, seed: int) -> None:
        """Shared device: a move of the seat in hand-over waits for its Reveal (R7.5)."""
        state = self.state
        seat = state.handover
        if not state.is_live or seat is None:
            return
        legal = state.match.legal_actions(seat)
        move = move_of(random.Random(seed).choice(legal))
        outcome = self.feed(Submit(ANN.id, move, state.version, self.now_ms))
        assert isinstance(outcome, Rejection)
        assert outcome.code is ErrorCode.HANDOVER_PENDING

    @rule(seat=st.sampled_from(SEATS), gate=st.integers(0, 7), pick=st.integers(0, 2))
    def someone_resigns(self, seat: Seat, gate: int, pick: int) -> None:
        """R5.2, at any time, by either seat (rare, or no match would last)."""
        if gate == 0:
            named = seat if self.mode is MatchMode.SHARED else None
            self.feed(
                Submit(
                    self.player_of(seat).id,
                    ResignMatch(),
                    self.versions(pick),
                    self.now_ms,
                    named,
                )
            )

    @rule(who=st.sampled_from([BO, CY, ANN]))
    def someone_joins(self, who: Player) -> None:
        self.feed(Join(who))

    @precondition(lambda self: not self.state.is_live)
    @rule(gap_ms=times_ms)
    def a_new_match(self, gap_ms: int) -> None:
        self.now_ms += gap_ms
        self.start_new_match()

    def start_new_match(self) -> None:
        self.state = new_match(self.mode, ANN, FAST, self.now_ms)
        self.matches += 1
        TALLY["matches"] += 1


class SharedRun(MachineRun):
    mode = MatchMode.SHARED


RUN_SETTINGS = settings(
    max_examples=40,
    stateful_step_count=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

REACHED = (
    "deals",
    "deals at the grace",
    "auctions",
    "flags by the timer",
    "flags by a late command",
    "aborts for no first decision",
    "first decisions",
    "round ends by domino",
    "round ends by block",
    "match ends",
    "match ends by time",
    "match ends by resignation",
    "match ends by timing_failure",
    "match ends by no_first_decision",
    "forced passes",
    "draws inside a turn",
    "legal moves",
    "acks",
    "presses in effect",
    "needs_deck",
    f"refused {ErrorCode.STALE_VERSION.value}",
    f"refused {ErrorCode.NOT_A_PLAYER.value}",
    f"refused {ErrorCode.ILLEGAL.value}",
)


RUN_SEED = 20_261_202
"""The runs' seed, fixed. ``derandomize`` alone did not fix them: the seed it derives for a state
machine changed with what the same process had run before (the same file passed alone and
missed every block end after ``tests/durable``), so the tally below held or failed by the
suite's order."""


def run(machine: type[MachineRun], max_examples: int) -> Counter[str]:
    """Run ``machine`` and return what its runs reached."""
    TALLY.clear()
    run_state_machine_as_test(
        seed(RUN_SEED)(machine), settings=settings(RUN_SETTINGS, max_examples=max_examples)
    )
    return Counter(TALLY)


def test_properties_of_an_online_match() -> None:
    reached = run(MachineRun, 60)
    online = ("match ends by join_timeout", "joins in time", "joins too late")
    missing = [name for name in (*REACHED, *online) if not reached[name]]
    assert not missing, f"never reached {missing}: {dict(reached)}"


RARE_IN_SHORT_RUNS = frozenset({"round ends by block", "forced passes"})
"""Reached by the online run, which is twice as long; how a block or a forced pass is applied
does not depend on the mode, and the hand-over cases are what the shared run must reach."""


def test_properties_of_a_shared_device_match() -> None:
    reached = run(SharedRun, 30)
    demanded = (*REACHED, "reveals", f"refused {ErrorCode.HANDOVER_PENDING.value}")
    missing = [name for name in demanded if name not in RARE_IN_SHORT_RUNS and not reached[name]]
    assert not missing, f"never reached {missing}: {dict(reached)}"
