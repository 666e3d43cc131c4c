"""The actor's own timers on real time with tiny settings: the flag (R7.7, D6) and the abort for
no first decision (D7), Start/Continue grace and the join timeout (D3), and the loop-lag monitor
(D5); and, with time moved by hand, the timers that wait for people (D3, D8)."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import replace

from spectacular_bid.clock import ClockSettings
from spectacular_bid.rules.actions import MatchEnd, MatchEnded
from spectacular_bid.rules.match import Phase
from spectacular_bid.service.audience import Audience
from spectacular_bid.service.commands import Start
from spectacular_bid.service.entries import header_of
from spectacular_bid.service.ports import MatchMode, MatchStatus
from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.service.timesource import monotonic_ms
from waiting import until

from .helpers import (
    ANN,
    BO,
    CY,
    DRAW_DECK,
    FIRST,
    SECOND,
    FakeTime,
    Table,
    Tables,
    fake_time_settings,
    refused,
    repeat,
)


async def header(table: Table) -> tuple[MatchStatus, str | None, str | None, bool]:
    record = await table.store.match(table.actor.id)
    assert record is not None
    return record.status, record.winner, record.reason, record.rated


# -- the flag (R7.7, D6) ----------------------------------------------------------------------


R7_ALONE = ServiceSettings(first_decision_grace_ms=None)
"""D7 off: the flag scenarios below time a seat's first decision to R7.7's deadline (D7 ends a
first decision otherwise; see the test after them)."""


async def test_r7_7_the_server_flags_at_the_deadline_with_no_message(tables: Tables) -> None:
    settings = replace(R7_ALONE, clock=ClockSettings(bank_ms=300, delay_ms=200))
    table = await tables.open(settings, start_monitor=True, deck_source_for=repeat(DRAW_DECK))
    actor = table.actor
    await table.start_round()
    assert actor.state.clock.running is FIRST
    deadline = actor.state.clock.deadline_ms()
    assert deadline == actor.state.clock.decision_started_ms + 500
    version = actor.version
    await until(lambda: actor.state.match.is_over)
    assert table.now() >= deadline
    assert actor.state.match.result == MatchEnded(SECOND, MatchEnd.TIME)
    assert actor.state.status is MatchStatus.FINISHED
    assert actor.version == version + 1
    flag = (await table.store.events(actor.id))[-1]
    assert flag.version == version + 1
    assert flag.seat is None
    assert flag.command == {"type": "flag", "seat": "first"}
    assert flag.mono_ms >= deadline
    assert flag.mono_ms - deadline < 250  # the timer flagged, not some later event
    assert flag.clock["bank_left_ms"] == {"first": 0, "second": 300}
    # Won on time, but unrated: only the default 120 s / 10 s clock is rated (service/rated.py).
    assert await header(table) == (MatchStatus.FINISHED, "second", "time", False)


class HalfSpeed:
    """A monotonic ms source running at half the speed of the loop's clock: every timer armed
    from it fires early by its own measure (timers may fire early)."""

    def __init__(self) -> None:
        self._origin_ms = monotonic_ms()

    def __call__(self) -> int:
        return self._origin_ms + (monotonic_ms() - self._origin_ms) // 2


async def test_r7_7_a_flag_timer_that_fires_early_never_flags_early(tables: Tables) -> None:
    source = HalfSpeed()
    settings = replace(R7_ALONE, clock=ClockSettings(bank_ms=100, delay_ms=100))
    table = await tables.open(
        settings, time_source=source, start_monitor=True, deck_source_for=repeat(DRAW_DECK)
    )
    actor = table.actor
    await table.start_round()
    deadline = actor.state.clock.deadline_ms()
    assert deadline == actor.state.clock.decision_started_ms + 200
    await until(lambda: actor.state.match.is_over)
    assert source() >= deadline
    assert actor.state.match.result == MatchEnded(SECOND, MatchEnd.TIME)
    flag = (await table.store.events(actor.id))[-1]
    assert flag.command == {"type": "flag", "seat": "first"}
    assert flag.mono_ms >= deadline


async def test_d7_the_server_aborts_an_undecided_seat_at_its_delay_plus_the_grace(
    tables: Tables,
) -> None:
    """No message comes: the flag timer ends the match at D7's deadline, long before the
    bank's, aborted and unrated, naming the seat that made no first decision."""
    settings = ServiceSettings(
        clock=ClockSettings(bank_ms=60_000, delay_ms=200), first_decision_grace_ms=300
    )
    table = await tables.open(settings, start_monitor=True, deck_source_for=repeat(DRAW_DECK))
    actor = table.actor
    await table.start_round()
    started = actor.state.clock.decision_started_ms
    deadline = actor.state.deadline_ms()
    assert deadline == started + 500
    assert actor.state.clock.deadline_ms() == started + 60_200
    assert table.view(Audience.SECOND)["first_decision_deadline_ms"] == deadline
    await until(lambda: actor.state.match.is_over)
    assert table.now() >= deadline
    assert actor.state.match.result == MatchEnded(None, MatchEnd.NO_FIRST_DECISION, FIRST)
    assert actor.state.status is MatchStatus.ABORTED
    ended = (await table.store.events(actor.id))[-1]
    assert ended.seat is None
    assert ended.command == {"type": "abort", "reason": "no_first_decision", "seat": "first"}
    assert ended.events[-2:][0] == {
        "type": "match_ended",
        "winner": None,
        "reason": "no_first_decision",
        "undecided": "first",
    }
    assert deadline <= ended.mono_ms < deadline + 250
    assert await header(table) == (MatchStatus.ABORTED, None, "no_first_decision", False)
    view = table.view(Audience.FIRST)
    assert view["result"] == {"winner": None, "reason": "no_first_decision", "undecided": "first"}
    assert view["first_decision_deadline_ms"] is None


# -- Start/Continue and the join timeout (D3) --------------------------------------------------


async def test_d3_a_round_starts_when_both_seats_have_pressed_start(tables: Tables) -> None:
    table = await tables.open(fake_time_settings(), time_source=FakeTime())
    actor = table.actor
    version = actor.version
    await table.act(SECOND, Start())
    assert actor.version == version + 1
    assert actor.state.match.phase is Phase.AWAITING_DEAL
    assert actor.state.ready == {SECOND}
    assert table.view(Audience.FIRST)["ready"] == {"first": False, "second": True}
    pressed = (await table.store.events(actor.id))[-1]
    assert pressed.seat == "second"
    assert pressed.command == {"type": "start", "seat": "second"}
    assert pressed.events == [{"type": "ready", "seat": "second"}]
    await table.act(FIRST, Start())
    assert actor.version == version + 2
    assert actor.state.match.round_number == 1
    assert actor.state.match.phase is not Phase.AWAITING_DEAL
    assert actor.state.ready == set()
    assert actor.state.start_deadline_ms is None
    dealt = (await table.store.events(actor.id))[-1]
    assert dealt.seat == "first"
    assert dealt.command["type"] == "deal"
    again = await refused(table.act(SECOND, Start()))
    assert again.code is ErrorCode.WRONG_PHASE
    # A press made before the deal is already in effect: acknowledged, nothing new (PROTOCOL.md
    # "Client → server").
    assert await table.act(SECOND, Start(), version=version + 1) == version + 2
    assert actor.version == version + 2
    assert len(await table.store.events(actor.id)) == version + 2


async def test_d3_the_grace_period_deals_the_first_round_by_itself(tables: Tables) -> None:
    table = await tables.open(ServiceSettings(grace_ms=100), start_monitor=True)
    actor = table.actor
    joined = (await table.store.events(actor.id))[-1]
    assert joined.command == {"type": "join", "seat": "second"}
    assert joined.seat is None  # a join is no seat's command (as in record format 1)
    assert actor.state.start_deadline_ms == joined.mono_ms + 100
    start_deadline = actor.state.start_deadline_ms
    await table.act(FIRST, Start())  # one seat only: not enough by itself
    assert actor.state.match.phase is Phase.AWAITING_DEAL
    await until(lambda: actor.state.match.round_number == 1)
    deal = (await table.store.events(actor.id))[-1]
    assert deal.command["type"] == "deal"
    assert deal.seat is None
    assert deal.mono_ms >= start_deadline
    assert actor.state.ready == set()
    assert actor.state.start_deadline_ms is None
    assert actor.state.clock.running is actor.state.match.to_act


async def test_d3_the_grace_period_deals_the_next_round_after_a_settlement(
    tables: Tables,
) -> None:
    table = await tables.open(ServiceSettings(grace_ms=150, fixed_deck_seed=7), start_monitor=True)
    actor = table.actor
    await table.start_round()
    await table.play_randomly(random.Random(1), until=lambda s: s.match.is_round_over)
    assert actor.state.match.round_number == 1
    assert actor.state.match.result is None
    assert actor.state.clock.running is None
    settled = (await table.store.events(actor.id))[-1]
    assert actor.state.start_deadline_ms == settled.mono_ms + 150
    start_deadline = actor.state.start_deadline_ms
    await until(lambda: actor.state.match.round_number == 2)
    deal = (await table.store.events(actor.id))[-1]
    assert deal.command["type"] == "deal"
    assert deal.seat is None
    assert deal.mono_ms >= start_deadline


async def test_d3_the_join_timeout_aborts_a_match_with_an_empty_seat(tables: Tables) -> None:
    table = await tables.open(ServiceSettings(join_timeout_ms=100), start_monitor=True, join=False)
    actor = table.actor
    assert actor.state.status is MatchStatus.WAITING
    join_deadline = actor.state.join_deadline_ms
    assert join_deadline is not None
    created_from, created_to = table.created_ms
    assert created_from + 100 <= join_deadline <= created_to + 100
    await until(lambda: actor.state.match.is_over)
    ended = header_of(actor.id, actor.state, actor.created_wall_ms, actor.ended_wall_ms)
    assert ended.status is MatchStatus.ABORTED
    assert ended.ended_at_ms is not None
    assert actor.state.match.result == MatchEnded(None, MatchEnd.JOIN_TIMEOUT)
    records = await table.store.events(actor.id)
    assert len(records) == 1
    assert records[0].command == {"type": "abort", "reason": "join_timeout"}
    assert records[0].events == [{"type": "match_ended", "winner": None, "reason": "join_timeout"}]
    assert records[0].mono_ms >= join_deadline
    assert await header(table) == (MatchStatus.ABORTED, None, "join_timeout", False)
    late = await refused(table.service.join(actor.id, BO))
    assert late.code is ErrorCode.SEAT_TAKEN


async def test_d3_the_join_timeout_waits_for_the_creator_and_runs_from_when_she_left(
    tables: Tables,
) -> None:
    """Told who is there (the web layer counts the sockets), the actor holds the join timeout
    while the creator has the match open, and arms it a whole timeout after she left."""
    time = FakeTime()
    timeout_ms = 60_000  # never rings on its own during the test: time is moved by hand
    settings = fake_time_settings(join_timeout_ms=timeout_ms)
    table = await tables.open(settings, time_source=time, join=False)
    actor = table.actor
    created = time()
    assert actor.armed_timers().join_ms == created + timeout_ms  # she never came: from then
    actor.attend(ANN.id, True)
    assert actor.armed_timers().join_ms is None
    time.advance(10 * timeout_ms)
    actor.attend(CY.id, True)  # a visitor (not seated) holds nothing
    actor.attend(CY.id, False)
    assert actor.armed_timers().join_ms is None
    actor.attend(ANN.id, False)
    left = time()
    assert actor.armed_timers().join_ms == left + timeout_ms
    time.advance(timeout_ms - 1)
    assert await table.service.join(actor.id, BO) is SECOND  # ten timeouts after, in time
    assert actor.armed_timers().join_ms is None


async def test_d3_a_join_when_the_armed_timeout_is_due_is_too_late(tables: Tables) -> None:
    time = FakeTime()
    timeout_ms = 60_000
    table = await tables.open(
        fake_time_settings(join_timeout_ms=timeout_ms), time_source=time, join=False
    )
    actor = table.actor
    actor.attend(ANN.id, True)
    time.advance(5 * timeout_ms)
    actor.attend(ANN.id, False)
    left = time()
    time.set(left + timeout_ms)
    late = await refused(table.service.join(actor.id, BO))
    assert late.code is ErrorCode.MATCH_OVER
    assert actor.state.status is MatchStatus.ABORTED
    [ended] = await table.store.events(actor.id)
    assert ended.command == {"type": "abort", "reason": "join_timeout"}
    assert ended.mono_ms == left + timeout_ms


async def test_d8_a_shared_device_is_abandoned_only_while_nobody_has_it_open(
    tables: Tables,
) -> None:
    time = FakeTime()
    abandon_ms = 60_000
    table = await tables.open(
        fake_time_settings(shared_abandon_ms=abandon_ms), time_source=time, mode=MatchMode.SHARED
    )
    actor = table.actor
    created = time()
    assert actor.armed_timers().abandon_ms == created + abandon_ms
    actor.attend(ANN.id, True)
    assert actor.armed_timers().abandon_ms is None
    actor.attend(CY.id, True)  # a spectator
    time.advance(abandon_ms)
    actor.attend(ANN.id, False)
    assert actor.armed_timers().abandon_ms == time() + abandon_ms  # the spectator holds nothing


async def test_d3_a_match_joined_in_time_is_not_aborted(tables: Tables) -> None:
    table = await tables.open(ServiceSettings(join_timeout_ms=100), start_monitor=True)
    actor = table.actor
    assert actor.state.join_deadline_ms is None
    await asyncio.sleep(0.25)  # the time under test: the join timeout passes
    assert actor.state.status is MatchStatus.ACTIVE
    assert actor.state.match.result is None


async def test_d3_a_join_refused_for_storage_keeps_the_join_timeout(tables: Tables) -> None:
    table = await tables.open(ServiceSettings(join_timeout_ms=300), start_monitor=True, join=False)
    actor = table.actor
    join_deadline = actor.state.join_deadline_ms
    table.store.fail_appends = True
    rejection = await refused(table.service.join(actor.id, BO))
    assert rejection.code is ErrorCode.STORAGE_FAILED
    table.store.fail_appends = False
    assert actor.state.seats[1] is None
    assert actor.state.status is MatchStatus.WAITING
    assert actor.state.join_deadline_ms == join_deadline  # "nothing changed" (R8.3)
    await until(lambda: actor.state.match.is_over, within_s=1.5)
    ended = header_of(actor.id, actor.state, actor.created_wall_ms, actor.ended_wall_ms)
    assert ended.status is MatchStatus.ABORTED
    assert ended.ended_at_ms is not None
    assert actor.state.match.result == MatchEnded(None, MatchEnd.JOIN_TIMEOUT)


async def test_d3_a_deal_refused_for_storage_keeps_the_grace_period(tables: Tables) -> None:
    table = await tables.open(ServiceSettings(grace_ms=300), start_monitor=True)
    actor = table.actor
    await table.act(FIRST, Start())
    start_deadline = actor.state.start_deadline_ms
    assert start_deadline is not None
    table.store.fail_appends = True
    rejection = await refused(table.act(SECOND, Start()))
    assert rejection.code is ErrorCode.STORAGE_FAILED
    table.store.fail_appends = False
    assert actor.state.match.phase is Phase.AWAITING_DEAL
    assert actor.state.ready == {FIRST}
    assert actor.state.start_deadline_ms == start_deadline
    # Nobody presses again: the grace period must still deal the round (D3: no stalling).
    await until(lambda: actor.state.match.round_number == 1, within_s=1.5)


# -- the loop-lag monitor (D5) -----------------------------------------------------------------


async def test_d5_a_stall_while_a_clock_runs_aborts_the_match_unrated(tables: Tables) -> None:
    """Between two accounts, so that only the abort keeps it from moving their ratings."""
    settings = ServiceSettings(lag_threshold_ms=150)
    table = await tables.open(
        settings, start_monitor=True, deck_source_for=repeat(DRAW_DECK), accounts=True
    )
    actor = table.actor
    await table.start_round()
    assert actor.state.clock.running is FIRST
    version = actor.version
    time.sleep(0.4)  # the loop is blocked: no timer, no monitor tick, nothing runs
    await until(lambda: actor.state.match.is_over)
    assert table.service.lag.stalls == 1
    assert actor.state.match.result == MatchEnded(None, MatchEnd.TIMING_FAILURE)
    assert actor.state.status is MatchStatus.ABORTED
    assert actor.version == version + 1
    records = await table.store.events(actor.id)
    assert [r.version for r in records] == list(range(1, version + 2))
    assert [r.command["type"] for r in records] == ["join", "start", "deal", "abort"]
    assert records[-1].command == {"type": "abort", "reason": "timing_failure"}
    ended = [e for e in records[-1].events if e["type"] == "match_ended"]
    assert ended == [{"type": "match_ended", "winner": None, "reason": "timing_failure"}]
    assert await header(table) == (MatchStatus.ABORTED, None, "timing_failure", False)
    players = await table.store.players([ANN.id, BO.id])
    assert [p.rating for p in players.values()] == [None, None]  # no rating moved
    assert await table.store.rating_changes(ANN.id, 10) == []


async def test_d5_a_stall_while_the_clocks_stand_aborts_nothing(tables: Tables) -> None:
    settings = ServiceSettings(lag_threshold_ms=150)
    table = await tables.open(settings, start_monitor=True, deck_source_for=repeat(DRAW_DECK))
    actor = table.actor
    assert actor.state.match.phase is Phase.AWAITING_DEAL
    assert actor.state.clock.running is None
    time.sleep(0.4)  # the stall itself: the loop is blocked, on purpose
    await until(lambda: table.service.lag.stalls == 1)
    await asyncio.sleep(0.05)  # a window for a wrong abort: nothing may end the match in it
    assert actor.state.status is MatchStatus.ACTIVE
    assert actor.state.match.result is None
    await table.start_round()
    assert actor.state.clock.running is FIRST
    await table.do(actor.state.match.legal_actions()[0])
    assert actor.state.match.result is None
    assert actor.state.clock.running is SECOND
