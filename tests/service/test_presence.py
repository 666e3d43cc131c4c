"""The timers that wait for people (D3, D8): the join timeout held while the creator of a waiting
match has it open and counted from when they left, and the abandon timeout of a shared device
nobody has open. Pure: a match state, who is there, and the machine's timers."""

from __future__ import annotations

from dataclasses import replace

from spectacular_bid.service.commands import AbandonDue, HandingOver, Join, JoinDue
from spectacular_bid.service.ports import MatchStatus
from spectacular_bid.service.presence import Attendance, attended
from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.service.state import Timers, timers

from .machine_table import ANN, BO, CY, JOIN_TIMEOUT_MS, T0, Table

ABANDON_MS = 300_000


def arms(table: Table, attendance: Attendance) -> Timers:
    return attended(timers(table.state), table.state, attendance, ABANDON_MS)


def test_d3_nobody_ever_came_the_join_timeout_runs_from_the_creation() -> None:
    table = Table.invite(joined=False)
    assert arms(table, Attendance(T0)).join_ms == T0 + JOIN_TIMEOUT_MS


def test_d3_the_join_timeout_is_held_while_the_creator_has_the_match_open() -> None:
    table = Table.invite(joined=False)
    here = Attendance(T0).arrived(ANN.id)
    assert arms(table, here).join_ms is None
    # A visitor (the friend, not seated yet) or a spectator does not hold it.
    visitor = Attendance(T0).arrived(BO.id).arrived(CY.id)
    assert arms(table, visitor).join_ms == T0 + JOIN_TIMEOUT_MS


def test_d3_the_join_timeout_runs_from_the_creators_last_socket_closing() -> None:
    table = Table.invite(joined=False)
    left_ms = T0 + 10 * JOIN_TIMEOUT_MS
    gone = Attendance(T0).arrived(ANN.id).left(ANN.id, left_ms, table.state)
    assert arms(table, gone).join_ms == left_ms + JOIN_TIMEOUT_MS
    # Left a second after making it: a whole timeout from then, past the machine's lower bound.
    early = Attendance(T0).arrived(ANN.id).left(ANN.id, T0 + 1_000, table.state)
    assert arms(table, early).join_ms == T0 + 1_000 + JOIN_TIMEOUT_MS
    # Back again: held again.
    assert arms(table, gone.arrived(ANN.id)).join_ms is None


def test_d3_the_machine_ends_a_waiting_match_at_any_time_past_its_lower_bound() -> None:
    table = Table.invite(joined=False)
    assert table.refused(JoinDue(), T0 + JOIN_TIMEOUT_MS - 1).code is ErrorCode.WRONG_PHASE
    late = T0 + 20 * JOIN_TIMEOUT_MS  # she waited long, then left a timeout ago
    assert table.feed(JoinDue(), late).entry is not None
    assert table.state.status is MatchStatus.ABORTED


def test_d3_a_join_long_after_the_lower_bound_is_in_time_while_the_match_waits() -> None:
    """The machine holds a join to the join timeout the service armed from who is there: while
    the creator waits, none (ten timeouts after the creation, the friend still joins)."""
    table = Table.invite(joined=False)
    result = table.feed(Join(BO, None), T0 + 10 * JOIN_TIMEOUT_MS)
    assert result.entry is not None
    assert table.state.status is MatchStatus.ACTIVE
    assert arms(table, Attendance(T0)).join_ms is None  # joined: no join timeout any more


def test_d8_a_shared_device_nobody_has_open_is_abandoned_after_the_timeout() -> None:
    table = Table.shared()
    assert arms(table, Attendance(T0)).abandon_ms == T0 + ABANDON_MS
    here = Attendance(T0).arrived(ANN.id)
    assert arms(table, here).abandon_ms is None
    spectators = Attendance(T0).arrived(CY.id)  # a spectator does not hold it open
    assert arms(table, spectators).abandon_ms == T0 + ABANDON_MS
    left_ms = T0 + 60_000
    gone = here.left(ANN.id, left_ms, table.state)
    assert arms(table, gone).abandon_ms == left_ms + ABANDON_MS
    table.start_round()
    assert arms(table, gone).abandon_ms == left_ms + ABANDON_MS  # dealt, in the hand-over


def test_d8_only_a_live_shared_match_is_abandoned() -> None:
    for online in (Table.invite(), Table.invite(joined=False)):
        assert arms(online, Attendance(T0)).abandon_ms is None
        assert online.refused(AbandonDue()).code is ErrorCode.WRONG_PHASE
    table = Table.shared()
    entry = table.feed(AbandonDue(), T0 + ABANDON_MS).entry
    assert entry is not None
    assert table.state.status is MatchStatus.ABORTED
    assert arms(table, Attendance(T0)) == Timers(None, None, None)
    assert table.refused(AbandonDue()).code is ErrorCode.MATCH_OVER


def test_no_timer_runs_while_a_match_is_handed_over() -> None:
    table = Table.shared()
    table.feed(HandingOver())
    assert arms(table, Attendance(T0)) == Timers(None, None, None)
    waiting = Table.invite(joined=False)
    waiting.feed(HandingOver())
    assert arms(waiting, Attendance(T0)) == Timers(None, None, None)


def test_the_time_a_server_began_timing_a_match_bounds_the_absence() -> None:
    """A match resumed here after a hand-over: its players are away since the resumption at
    the earliest, whatever they did on the other server."""
    table = Table.shared()
    resumed_ms = T0 + 100_000
    assert arms(table, Attendance(resumed_ms)).abandon_ms == resumed_ms + ABANDON_MS
    state = replace(table.state, join_deadline_ms=None)
    assert Attendance(resumed_ms).away_since_ms(state) == resumed_ms
