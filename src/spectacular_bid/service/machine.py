"""The match machine: one pure definition of a match's whole life (ARCHITECTURE.md "Code map").

``step(state, input, now_ms)`` returns either a :class:`Rejection` — nothing changed (R8.3) — or
a :class:`Transition` (the values are in ``state.py``): the new state and, when the version
moves, the :class:`Entry` to record.
The live actor commits that entry and only then installs the state; replay, ``--verify``, the
replay frames, ended matches read back from the store and start-up recovery run the same
``step`` over the recorded inputs. Nothing here reads a clock, draws a random number or does I/O:
``now_ms`` is the server's monotonic millisecond, and every deck comes in with its input.

It owns the service's policy around the rules engine: the R7 clock (a genuinely new decision gets
a fresh delay, R7.2; a command is charged at the server's receive time, R7.7; at the deadline is
already late, D6; a seat's first decision is aborted, not lost, D7), D2's forced moves (the
engine applies them; they take no time), D3's Start/Continue presses, grace and join timeout
(its lower bound: when it runs is the service's, which knows who is there), R7.5's
shared-device hand-over, resignation (R5.2), the D5 abort and D8's abort of an abandoned shared
device.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from spectacular_bid.rules.actions import (
    Abort,
    AbortReason,
    Accept,
    Action,
    Bid,
    Deal,
    Decline,
    Flag,
    Play,
    RoundEnded,
)
from spectacular_bid.rules.errors import NotYourTurnError, RulesError, WrongPhaseError
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.seats import Seat
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
    PressedReveal,
    PressedStart,
    RecordedCommand,
    ResignMatch,
    Restarted,
    Resumed,
    Reveal,
    SaltedDeal,
    Start,
    Submit,
    TookSeat,
)
from spectacular_bid.service.events import (
    MatchEvent,
    Ready,
    Revealed,
    SeatTaken,
)
from spectacular_bid.service.fairness import committed, revealed
from spectacular_bid.service.ports import MatchMode, MatchStatus
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.state import Entry, MatchState, Outcome, Transition
from spectacular_bid.service.suspension import refused_while_suspended, resume, suspend

OWN_DECISIONS: Final = (Bid, Accept, Decline, Play)
"""D7: the commands that are a decision of the seat that sends them. A draw is not (a client
may draw for its player, D1), nor a press (D3, R7.5), nor a resignation, which ends the match
anyway (R5.2); forced moves are never commands at all (D2)."""


def step(state: MatchState, command: Input, now_ms: int) -> Outcome:
    """Apply one input at ``now_ms``; see the module docstring."""
    if isinstance(command, Resumed):  # on another server, whose time may be anything
        return resume(state, command, now_ms)
    if state.suspended_ms is not None and not isinstance(command, Restarted):
        return refused_while_suspended()
    now_ms = max(now_ms, state.clock.decision_started_ms)
    if isinstance(command, HandingOver):
        return suspend(state, now_ms) if state.is_live else _over()
    if isinstance(command, Submit):
        return _submit(state, command, now_ms)
    if isinstance(command, Join):
        return _join(state, command, now_ms)
    if not state.is_live:
        return _over()
    if isinstance(command, FlagDue):
        return _flag_due(state, now_ms)
    if isinstance(command, GraceDue):
        return _grace_due(state, command.deal, now_ms)
    if isinstance(command, JoinDue):
        if state.status is not MatchStatus.WAITING or state.join_deadline_ms is None:
            return Rejection(ErrorCode.WRONG_PHASE, "the match is not waiting for a player")
        if now_ms < state.join_deadline_ms:
            return Rejection(ErrorCode.WRONG_PHASE, "the join timeout has not run out")
        return _apply(state, Abort(AbortReason.JOIN_TIMEOUT), None, now_ms, now_ms)
    if isinstance(command, AbandonDue):
        if state.mode is not MatchMode.SHARED:
            return Rejection(ErrorCode.WRONG_PHASE, "only a shared-device match is abandoned")
        return _apply(state, Abort(AbortReason.ABANDONED), None, now_ms, now_ms)  # D8
    if isinstance(command, LoopStalled):
        if state.clock.running is None:
            return Rejection(ErrorCode.WRONG_PHASE, "no clock ran during the stall")
        return _apply(state, Abort(AbortReason.TIMING_FAILURE), None, now_ms, now_ms)
    assert isinstance(command, Restarted)
    charge = max(command.received_ms, state.clock.decision_started_ms)
    standing = replace(state, suspended_ms=None)
    return _apply(standing, Abort(AbortReason.TIMING_FAILURE), None, charge, now_ms)


def _over() -> Rejection:
    return Rejection(ErrorCode.MATCH_OVER, "the match is over")


# -- players ------------------------------------------------------------------------------------


def _submit(state: MatchState, submit: Submit, now_ms: int) -> Outcome:
    seats = state.seats_of(submit.player_id)
    if not seats:
        return Rejection(ErrorCode.NOT_A_PLAYER, "spectators cannot act for a seat")
    if not state.is_live:
        return Rejection(ErrorCode.MATCH_OVER, "the match is over")
    command = submit.command
    is_press = isinstance(command, Start | Reveal)
    if not is_press and submit.version != state.version:
        return Rejection(
            ErrorCode.STALE_VERSION,
            f"made against version {submit.version}, the match is at {state.version}",
        )
    clock = state.clock
    received = max(submit.received_ms, clock.decision_started_ms)
    if state.is_late(received):
        # D6: at the deadline or later is a loss on time (or D7's abort), not an illegal request.
        flagged = _flag(state, now_ms)
        late = Rejection(ErrorCode.TIME_EXPIRED, _too_late(state))
        return late if isinstance(flagged, Rejection) else replace(flagged, reply=late)
    if submit.seat is not None and submit.seat not in seats:
        return Rejection(ErrorCode.NOT_YOUR_SEAT, f"you do not hold the {submit.seat} seat")
    if isinstance(command, Start):
        return _press_start(state, seats, submit, now_ms)
    if isinstance(command, Reveal):
        return _press_reveal(state, seats, submit, now_ms)
    if state.status is MatchStatus.WAITING:
        return Rejection(ErrorCode.WRONG_PHASE, "the match waits for its second player")
    seat = _acting_seat(state, seats, submit)
    if isinstance(seat, Rejection):
        return seat
    if state.handover is not None and not isinstance(command, ResignMatch):
        return Rejection(
            ErrorCode.HANDOVER_PENDING, f"pass the device to {state.handover}: reveal first"
        )
    return _apply(state, command.action(seat), seat, received, now_ms)


def _acting_seat(state: MatchState, seats: list[Seat], submit: Submit) -> Seat | Rejection:
    if submit.seat is not None:
        return submit.seat
    if len(seats) == 1:
        return seats[0]
    if state.match.to_act is not None:
        return state.match.to_act
    if isinstance(submit.command, ResignMatch):
        return Rejection(ErrorCode.BAD_MESSAGE, "say which seat resigns on a shared device")
    return Rejection(ErrorCode.WRONG_PHASE, "no seat is to act now")


def _join(state: MatchState, join: Join, now_ms: int) -> Transition | Rejection:
    player = join.player
    if state.seats_of(player.id):
        return Transition(state)
    if state.status is not MatchStatus.WAITING or state.seats[1] is not None:
        return Rejection(ErrorCode.SEAT_TAKEN, "this match has no free seat")
    timeout_ms = join.timeout_ms  # as the service armed it; never before the machine's bound
    if timeout_ms is not None and now_ms >= max(timeout_ms, state.join_deadline_ms or 0):
        # D3, as D6 for moves: a join at the timeout or later is too late; the match ends.
        aborted = _apply(state, Abort(AbortReason.JOIN_TIMEOUT), None, now_ms, now_ms)
        late = Rejection(ErrorCode.MATCH_OVER, "too late: the match was not joined in time (D3)")
        return late if isinstance(aborted, Rejection) else replace(aborted, reply=late)
    version = state.version + 1
    joined = replace(
        state,
        seats=(state.seats[0], player),
        status=MatchStatus.ACTIVE,
        version=version,
        join_deadline_ms=None,
        start_deadline_ms=now_ms + state.settings.grace_ms,
    )
    events = (SeatTaken(Seat.SECOND, player.name),)
    entry = _entry(joined, None, TookSeat(Seat.SECOND), events, now_ms, now_ms)
    return Transition(joined, entry, header_changed=True)


# -- presses (D3, R7.5): idempotent, never stale ------------------------------------------------


def _press_start(state: MatchState, seats: list[Seat], submit: Submit, now_ms: int) -> Outcome:
    if submit.version < state.dealt_version:
        return Transition(state)  # made before the last deal: already in effect
    if state.status is not MatchStatus.ACTIVE or state.match.phase is not Phase.AWAITING_DEAL:
        return Rejection(ErrorCode.WRONG_PHASE, "there is no round to start now")
    pressing = set(seats) if submit.seat is None else {submit.seat}
    if state.mode is not MatchMode.SHARED and pressing <= state.ready:
        return Transition(state)  # this seat's press is already in effect
    if state.mode is MatchMode.SHARED or len(state.ready | pressing) == 2:
        if submit.deal is None:
            return NeedsDeck()
        by = seats[0] if len(seats) == 1 else None
        return _deal(state, submit.deal, by, submit.received_ms, now_ms)
    version = state.version + 1
    ordered = sorted(pressing)
    ready = replace(state, version=version, ready=state.ready | pressing)
    events = tuple(Ready(s) for s in ordered)
    received = max(submit.received_ms, state.clock.decision_started_ms)
    return Transition(
        ready, _entry(ready, ordered[0], PressedStart(ordered[0]), events, received, now_ms)
    )


def _press_reveal(
    state: MatchState, seats: list[Seat], submit: Submit, now_ms: int
) -> Transition | Rejection:
    if state.mode is not MatchMode.SHARED:
        return Rejection(ErrorCode.WRONG_PHASE, "there is no hand-over to end")
    seat = state.handover
    if submit.version < state.handover_version or (seat is None and state.revealed is not None):
        return Transition(state)  # made before this hand-over, or this reveal is in effect
    if seat is None:
        return Rejection(ErrorCode.WRONG_PHASE, "there is no hand-over to end")
    if seat not in seats or (submit.seat is not None and submit.seat != seat):
        return Rejection(ErrorCode.NOT_YOUR_SEAT, f"only {seat} can reveal now")
    version = state.version + 1
    shown = replace(
        state,
        version=version,
        handover=None,
        revealed=seat,
        clock=state.clock.start_decision(seat, now_ms),
    )
    entry = _entry(shown, seat, PressedReveal(seat), (Revealed(seat),), now_ms, now_ms)
    return Transition(shown, entry)


# -- timers -------------------------------------------------------------------------------------


def _flag_due(state: MatchState, now_ms: int) -> Transition | Rejection:
    if state.clock.running is None:
        return Rejection(ErrorCode.WRONG_PHASE, "no clock is running")
    if not state.is_late(now_ms):
        return Rejection(ErrorCode.WRONG_PHASE, "the deadline has not passed")  # never early
    return _flag(state, now_ms)


def _flag(state: MatchState, now_ms: int) -> Transition | Rejection:
    """The running seat's time is up, charged at its deadline: a loss on time (R7.7), or, for
    a seat that has made no decision of its own yet, an abort without a result (D7)."""
    seat = state.clock.running
    deadline = state.deadline_ms()
    if seat is None or deadline is None or state.match.to_act != seat:
        return Rejection(ErrorCode.WRONG_PHASE, "no seat's clock can run out now")
    undecided = state.first_decision_deadline_ms() is not None
    ending = Abort(AbortReason.NO_FIRST_DECISION, seat) if undecided else Flag(seat)
    return _apply(state, ending, None, deadline, max(now_ms, deadline))


def _too_late(state: MatchState) -> str:
    seat = state.clock.running
    if state.first_decision_deadline_ms() is not None:
        return f"{seat} made no first decision in time: the match is aborted (D7)"
    return f"{seat}'s time ran out before this arrived"


def _grace_due(state: MatchState, seed: DealSeed | None, now_ms: int) -> Outcome:
    deadline = state.start_deadline_ms
    if state.status is not MatchStatus.ACTIVE or state.match.phase is not Phase.AWAITING_DEAL:
        return Rejection(ErrorCode.WRONG_PHASE, "there is no round to start now")
    if deadline is None or now_ms < deadline:
        return Rejection(ErrorCode.WRONG_PHASE, "the grace period has not run out")
    if seed is None:
        return NeedsDeck()
    return _deal(state, seed, None, now_ms, now_ms)


# -- applying the rules -------------------------------------------------------------------------


def _deal(
    state: MatchState, seed: DealSeed, by: Seat | None, received_ms: int, now_ms: int
) -> Transition | Rejection:
    cleared = replace(state, ready=frozenset(), start_deadline_ms=None, revealed=None)
    return _apply(cleared, Deal(seed.deck), by, received_ms, now_ms, seed)


def _apply(
    state: MatchState,
    action: Action,
    seat: Seat | None,
    charge_ms: int,
    now_ms: int,
    seed: DealSeed | None = None,
) -> Transition | Rejection:
    """Apply an engine command, then the clock policy, the round's reveal and the status; the
    new state is made once, from all the changes (this is the path of every move)."""
    match = state.match.copy()
    before = match.decision
    try:
        events: tuple[MatchEvent, ...] = tuple(match.apply(action))
    except RulesError as exc:
        return Rejection(_rules_code(exc), str(exc))
    version = state.version + 1
    changes = _clock_changes(state, match, version, before, charge_ms, now_ms)
    command: RecordedCommand
    if seed is not None:
        command = SaltedDeal(seed.deck, seed.salt)
        commitment = committed(match.round_number, seed)
        changes.update(secret=seed, commitment=commitment, dealt_version=version)
        events = (*events, commitment)
    else:
        assert not isinstance(action, Deal), "a deal comes with its seed"
        command = action
        if state.secret is not None and any(isinstance(e, RoundEnded) for e in events):
            shown = state.commitment.commitment if state.commitment is not None else None
            reveal = revealed(match.round_number, shown, state.secret)
            changes.update(secret=None, reveal=reveal)
            events = (*events, reveal)
    if seat is not None and isinstance(action, OWN_DECISIONS) and seat not in state.decided:
        changes["decided"] = state.decided | {seat}  # D7
    new = replace(state, match=match, version=version, **changes)
    entry = _entry(new, seat, command, events, charge_ms, now_ms)
    return Transition(new, entry, header_changed=match.is_over)


def _clock_changes(
    state: MatchState, match: Match, version: int, before: int, charge_ms: int, now_ms: int
) -> dict[str, Any]:
    """Charge the decision that just ended and time the next one (R7.2–R7.5, D2).

    A draw that leaves the same decision open changes nothing (R7.3). On a shared device a
    decision for the other seat waits, clocks standing, for that player's Reveal (R7.5). When
    nobody is to act the round or the match is over: the grace runs (D3) or the match ends.
    """
    clock = state.clock
    seat = match.to_act
    if seat is not None and match.decision == before:
        return {}
    if clock.running is not None:
        clock, _ = clock.stop(max(charge_ms, clock.decision_started_ms))
    if seat is None:
        changes: dict[str, Any] = {"clock": clock, "handover": None, "revealed": None}
        if match.is_over:
            won = match.result is not None and match.result.winner is not None
            changes.update(
                status=MatchStatus.FINISHED if won else MatchStatus.ABORTED,
                start_deadline_ms=None,
                join_deadline_ms=None,
            )
        elif match.phase is Phase.AWAITING_DEAL:
            changes["start_deadline_ms"] = now_ms + state.settings.grace_ms
        return changes
    if state.mode is MatchMode.SHARED and seat != state.revealed:
        return {"clock": clock, "handover": seat, "revealed": None, "handover_version": version}
    return {"clock": clock.start_decision(seat, max(now_ms, clock.decision_started_ms))}


def _entry(
    state: MatchState,
    seat: Seat | None,
    command: RecordedCommand,
    events: tuple[MatchEvent, ...],
    received_ms: int,
    now_ms: int,
) -> Entry:
    return Entry(state.version, seat, command, events, received_ms, now_ms, state.reading(now_ms))


def _rules_code(exc: RulesError) -> ErrorCode:
    if isinstance(exc, NotYourTurnError):
        return ErrorCode.NOT_YOUR_TURN
    if isinstance(exc, WrongPhaseError):
        return ErrorCode.WRONG_PHASE
    return ErrorCode.ILLEGAL
