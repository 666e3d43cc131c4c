"""A match handed from one server to another (PROTOCOL.md "Several servers on one database"), as the
match machine sees it.

The owner that stops records :class:`~spectacular_bid.service.commands.HandingOver` at its last
measured time: the clocks stand there, the running decision keeping the delay and bank it has,
and no timer runs (``state.timers``). The peer that takes the match over rebuilds it from the
store and records :class:`~spectacular_bid.service.commands.Resumed` at its own first time. The
two servers' monotonic clocks need not share a base, so every time the state holds moves by
the difference between the peer's time and the stop: the running seat finds its clock where it
stood, and the pause is charged to nobody (the match's commands could reach no server, R7.7).
The pause itself, measured by both servers' wall clocks, is recorded in the resuming version:
the match's clock audit. A pause past the D5 threshold is not resumed but ended as a timing
failure (``service.handover``), as a stall of that length would be (R7.9).
"""

from __future__ import annotations

from dataclasses import replace

from spectacular_bid.service.commands import HandingOver, RecordedCommand, Resumed
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.state import Entry, MatchState, Transition


def suspend(state: MatchState, now_ms: int) -> Transition | Rejection:
    """Stand the clocks at ``now_ms`` for a hand-over: one version, no event."""
    if state.suspended_ms is not None:
        return Rejection(ErrorCode.WRONG_PHASE, "the match is already being handed over")
    stood = replace(state, version=state.version + 1, suspended_ms=now_ms)
    return Transition(stood, _entry(stood, HandingOver(), now_ms))


def resume(state: MatchState, resumed: Resumed, now_ms: int) -> Transition | Rejection:
    """Run the clocks again at ``now_ms`` (this server's time) from where they stood."""
    stopped_ms = state.suspended_ms
    if stopped_ms is None:
        return Rejection(ErrorCode.WRONG_PHASE, "the match is not being handed over")
    if resumed.paused_ms < 0:
        return Rejection(ErrorCode.BAD_MESSAGE, f"a pause of {resumed.paused_ms} ms")
    shift_ms = now_ms - stopped_ms
    clock = state.clock
    moved = replace(
        state,
        version=state.version + 1,
        suspended_ms=None,
        clock=replace(clock, decision_started_ms=clock.decision_started_ms + shift_ms),
        start_deadline_ms=_moved(state.start_deadline_ms, shift_ms),
        join_deadline_ms=_moved(state.join_deadline_ms, shift_ms),
    )
    return Transition(moved, _entry(moved, resumed, now_ms))


def refused_while_suspended() -> Rejection:
    return Rejection(
        ErrorCode.SERVER_BUSY,
        "the match is moving to another server process: reconnect and try again",
        retry_after_s=1,
    )


def _moved(deadline_ms: int | None, shift_ms: int) -> int | None:
    return None if deadline_ms is None else deadline_ms + shift_ms


def _entry(state: MatchState, command: RecordedCommand, now_ms: int) -> Entry:
    return Entry(state.version, None, command, (), now_ms, now_ms, state.reading(now_ms))
