"""The match clock (§7, D6): scenarios with explicit milliseconds, and one property."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spectacular_bid.clock import ClockReading, ClockSettings, MatchClock
from spectacular_bid.rules.seats import BySeat, Seat

FIRST, SECOND = Seat.FIRST, Seat.SECOND
T0 = 1_000_000


def running_clock(seat: Seat = FIRST, now_ms: int = T0) -> MatchClock:
    return MatchClock.new().start_decision(seat, now_ms)


def test_new_clock_stands_with_full_banks() -> None:
    clock = MatchClock.new()
    assert clock.settings == ClockSettings(bank_ms=120_000, delay_ms=10_000)
    assert clock.bank_ms == BySeat(120_000, 120_000)
    assert clock.running is None
    assert clock.deadline_ms() is None


def test_r7_2_decision_in_8_s_costs_no_bank() -> None:
    clock, cost_ms = running_clock().stop(T0 + 8_000)
    assert cost_ms == 0
    assert clock.bank_ms == BySeat(120_000, 120_000)


def test_r7_2_decision_in_13_s_costs_3_s_of_bank() -> None:
    clock, cost_ms = running_clock().stop(T0 + 13_000)
    assert cost_ms == 3_000
    assert clock.bank_ms == BySeat(117_000, 120_000)


def test_r7_2_decision_using_exactly_the_delay_costs_nothing() -> None:
    _, cost_ms = running_clock().stop(T0 + 10_000)
    assert cost_ms == 0
    _, cost_ms = running_clock().stop(T0 + 10_001)
    assert cost_ms == 1


def test_r7_1_bank_lasts_the_whole_match_and_is_never_refilled() -> None:
    clock, _ = running_clock().stop(T0 + 13_000)
    clock = clock.start_decision(FIRST, T0 + 60_000)  # next round, after settlement
    clock, cost_ms = clock.stop(T0 + 75_000)
    assert cost_ms == 5_000
    assert clock.bank_ms == BySeat(112_000, 120_000)


def test_r7_2_new_decision_gets_a_fresh_delay_not_a_fresh_bank() -> None:
    clock, _ = running_clock().stop(T0 + 13_000)
    clock = clock.start_decision(FIRST, T0 + 20_000)
    assert clock.delay_ms == 10_000
    assert clock.delay_left_ms(T0 + 20_000) == 10_000
    assert clock.bank_left_ms(FIRST, T0 + 20_000) == 117_000
    assert clock.deadline_ms() == T0 + 20_000 + 10_000 + 117_000


def test_r7_2_every_new_decision_gets_the_full_delay_of_the_settings() -> None:
    """A clock restored mid-decision with part of its delay still starts the next one in full."""
    clock = MatchClock(ClockSettings(), BySeat(120_000, 120_000), FIRST, T0, 4_000)
    assert clock.deadline_ms() == T0 + 4_000 + 120_000
    clock, cost_ms = clock.switch(SECOND, T0 + 6_000)
    assert cost_ms == 2_000
    assert clock.delay_ms == 10_000
    assert clock.deadline_ms() == T0 + 6_000 + 10_000 + 120_000


def test_r7_3_a_draw_inside_a_turn_does_not_restart_the_delay() -> None:
    clock = running_clock()
    # At 6 s the player draws: not a new decision, so the clock is not touched.
    assert clock.delay_left_ms(T0 + 6_000) == 4_000
    clock, cost_ms = clock.stop(T0 + 13_000)
    assert cost_ms == 3_000
    assert clock.bank_ms == BySeat(117_000, 120_000)


def test_r7_4_bid_and_raise_switch_the_clock_and_accept_starts_the_opener() -> None:
    clock = running_clock(FIRST)  # the non-jockey's first auction decision
    clock, cost_ms = clock.switch(SECOND, T0 + 5_000)  # FIRST bids 15
    assert (clock.running, cost_ms) == (SECOND, 0)
    assert clock.decision_started_ms == T0 + 5_000
    clock, cost_ms = clock.switch(FIRST, T0 + 17_000)  # SECOND raises to 20 after 12 s
    assert (clock.running, cost_ms) == (FIRST, 2_000)
    clock, cost_ms = clock.switch(SECOND, T0 + 31_000)  # FIRST accepts after 14 s; SECOND opens
    assert (clock.running, cost_ms) == (SECOND, 4_000)
    assert clock.bank_ms == BySeat(116_000, 118_000)
    assert clock.delay_left_ms(T0 + 31_000) == 10_000
    assert clock.deadline_ms() == T0 + 31_000 + 10_000 + 118_000


def test_r7_4_decline_starts_the_jockey_who_opens() -> None:
    clock = running_clock(SECOND)  # SECOND is the non-jockey
    clock, cost_ms = clock.switch(FIRST, T0 + 11_500)  # SECOND declines; FIRST opens
    assert (clock.running, cost_ms) == (FIRST, 1_500)
    assert clock.bank_ms == BySeat(120_000, 118_500)


def test_r7_2_switch_to_the_same_seat_is_a_new_decision_with_a_fresh_delay() -> None:
    """After the opponent's forced pass (D2), the same seat decides again."""
    clock, cost_ms = running_clock(FIRST).switch(FIRST, T0 + 12_000)
    assert (clock.running, cost_ms) == (FIRST, 2_000)
    assert clock.delay_left_ms(T0 + 12_000) == 10_000
    assert clock.bank_left_ms(FIRST, T0 + 12_000) == 118_000


def test_r7_5_time_passing_while_the_clocks_stand_costs_nothing() -> None:
    clock, _ = running_clock().stop(T0 + 13_000)  # the round is settled
    later = T0 + 600_000
    assert clock.deadline_ms() is None
    assert not clock.is_flagged(later)
    assert clock.reading(later) == ClockReading(
        now_ms=later,
        running=None,
        bank_left_ms=BySeat(117_000, 120_000),
        delay_left_ms=0,
        deadline_ms=None,
    )
    clock = clock.start_decision(SECOND, later)  # Continue: the next round starts
    assert clock.bank_left_ms(FIRST, later) == 117_000
    assert clock.bank_left_ms(SECOND, later) == 120_000


def test_r7_7_deadline_is_decision_start_plus_delay_plus_bank() -> None:
    assert running_clock(SECOND).deadline_ms() == T0 + 10_000 + 120_000


def test_d6_flagged_at_the_deadline_but_not_one_ms_before() -> None:
    clock = running_clock()
    deadline_ms = T0 + 130_000
    assert clock.deadline_ms() == deadline_ms
    assert not clock.is_flagged(deadline_ms - 1)
    assert clock.is_flagged(deadline_ms)
    assert clock.is_flagged(deadline_ms + 1)


def test_r7_7_bank_never_goes_negative_when_charged_past_the_deadline() -> None:
    clock, cost_ms = running_clock().stop(T0 + 200_000)
    assert cost_ms == 120_000
    assert clock.bank_ms == BySeat(0, 120_000)
    clock = clock.start_decision(FIRST, T0 + 300_000)
    assert clock.deadline_ms() == T0 + 310_000
    assert not clock.is_flagged(T0 + 309_999)
    assert clock.is_flagged(T0 + 310_000)


def test_r7_2_display_empties_the_delay_first_then_the_bank() -> None:
    clock = running_clock()
    shown = [
        (clock.delay_left_ms(t), clock.bank_left_ms(FIRST, t), clock.bank_left_ms(SECOND, t))
        for t in (T0, T0 + 4_000, T0 + 10_000, T0 + 13_000, T0 + 130_000, T0 + 500_000)
    ]
    assert shown == [
        (10_000, 120_000, 120_000),
        (6_000, 120_000, 120_000),
        (0, 120_000, 120_000),
        (0, 117_000, 120_000),
        (0, 0, 120_000),
        (0, 0, 120_000),
    ]


def test_reading_while_running() -> None:
    clock, _ = running_clock(FIRST).switch(SECOND, T0 + 15_000)
    assert clock.reading(T0 + 29_000) == ClockReading(
        now_ms=T0 + 29_000,
        running=SECOND,
        bank_left_ms=BySeat(115_000, 116_000),
        delay_left_ms=0,
        deadline_ms=T0 + 15_000 + 10_000 + 120_000,
    )


def test_custom_settings_small_bank_and_delay() -> None:
    settings = ClockSettings(bank_ms=5_000, delay_ms=2_000)
    clock = MatchClock.new(settings).start_decision(FIRST, 0)
    assert clock.deadline_ms() == 7_000
    clock, cost_ms = clock.switch(SECOND, 4_500)
    assert cost_ms == 2_500
    assert clock.bank_ms == BySeat(2_500, 5_000)
    assert clock.deadline_ms() == 4_500 + 2_000 + 5_000


def test_zero_delay_runs_the_bank_at_once() -> None:
    clock = MatchClock.new(ClockSettings(bank_ms=1_000, delay_ms=0)).start_decision(SECOND, 0)
    assert clock.bank_left_ms(SECOND, 1) == 999
    assert clock.deadline_ms() == 1_000
    assert clock.is_flagged(1_000)


@pytest.mark.parametrize(
    ("bank_ms", "delay_ms", "message"),
    [(-1, 10_000, "bank_ms must be >= 0, got -1"), (120_000, -5, "delay_ms must be >= 0, got -5")],
)
def test_invalid_settings_raise_value_error_quoting_the_value(
    bank_ms: int, delay_ms: int, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        ClockSettings(bank_ms=bank_ms, delay_ms=delay_ms)


def test_bank_outside_the_settings_is_refused() -> None:
    with pytest.raises(ValueError, match=r"bank_ms must be in \[0, 120000\]"):
        MatchClock(ClockSettings(), BySeat(120_001, 0), None, 0, 10_000)
    with pytest.raises(ValueError, match="bank_ms must be in"):
        MatchClock(ClockSettings(), BySeat(0, -1), None, 0, 10_000)


def test_starting_while_a_clock_runs_raises_and_changes_nothing() -> None:
    clock = running_clock(FIRST)
    with pytest.raises(ValueError, match="first's clock is running"):
        clock.start_decision(SECOND, T0 + 1_000)
    assert clock == running_clock(FIRST)


def test_stopping_standing_clocks_raises() -> None:
    clock = MatchClock.new()
    with pytest.raises(ValueError, match="no clock is running"):
        clock.stop(T0)
    with pytest.raises(ValueError, match="no clock is running"):
        clock.switch(FIRST, T0)
    assert clock == MatchClock.new()


def test_time_never_runs_backwards() -> None:
    clock = running_clock()
    before = T0 - 1
    with pytest.raises(ValueError, match=f"now_ms {before} is before"):
        clock.stop(before)
    with pytest.raises(ValueError, match="is before"):
        clock.switch(SECOND, before)
    with pytest.raises(ValueError, match="is before"):
        clock.is_flagged(before)
    with pytest.raises(ValueError, match="is before"):
        clock.delay_left_ms(before)
    with pytest.raises(ValueError, match="is before"):
        clock.bank_left_ms(SECOND, before)
    with pytest.raises(ValueError, match="is before"):
        clock.reading(before)
    assert clock == running_clock()


def test_a_new_decision_cannot_start_before_the_clocks_stopped() -> None:
    stopped, _ = running_clock().stop(T0 + 5_000)
    with pytest.raises(ValueError, match="is before"):
        stopped.start_decision(SECOND, T0 + 4_999)
    assert stopped.start_decision(SECOND, T0 + 5_000).running is SECOND


def test_clock_is_frozen() -> None:
    clock = running_clock()
    with pytest.raises(dataclasses.FrozenInstanceError):
        clock.running = SECOND  # type: ignore[misc]
    assert clock.running is FIRST


decisions = st.lists(
    st.tuples(
        st.sampled_from([FIRST, SECOND]),
        st.integers(min_value=0, max_value=60_000),
        st.integers(min_value=0, max_value=30_000),
    ),
    max_size=40,
)


@given(
    bank_ms=st.integers(min_value=0, max_value=150_000),
    delay_ms=st.integers(min_value=0, max_value=15_000),
    decisions=decisions,
)
def test_r7_1_r7_2_bank_charged_is_only_time_beyond_the_delay_and_never_below_zero(
    bank_ms: int, delay_ms: int, decisions: list[tuple[Seat, int, int]]
) -> None:
    """Each decision costs max(0, min(duration - delay, bank left)); standing time costs nothing.

    A decision is followed by a ``switch`` when the next one starts at once (R7.4), else by a
    ``stop`` and a standing gap (R7.5).
    """
    settings = ClockSettings(bank_ms=bank_ms, delay_ms=delay_ms)
    clock = MatchClock.new(settings)
    expected_left = {FIRST: bank_ms, SECOND: bank_ms}
    charged = {FIRST: 0, SECOND: 0}
    now_ms = 0
    for index, (seat, duration_ms, standing_ms) in enumerate(decisions):
        if clock.running is None:
            now_ms += standing_ms
            clock = clock.start_decision(seat, now_ms)
        assert clock.running is seat
        assert clock.deadline_ms() == now_ms + delay_ms + expected_left[seat]
        now_ms += duration_ms
        following = decisions[index + 1] if index + 1 < len(decisions) else None
        if following is not None and following[2] == 0:
            clock, cost_ms = clock.switch(following[0], now_ms)
        else:
            clock, cost_ms = clock.stop(now_ms)
        expected_cost_ms = max(0, min(duration_ms - delay_ms, expected_left[seat]))
        assert cost_ms == expected_cost_ms
        expected_left[seat] -= expected_cost_ms
        charged[seat] += cost_ms
        for any_seat in (FIRST, SECOND):
            assert 0 <= clock.bank_left_ms(any_seat, now_ms) <= bank_ms
    assert clock.running is None
    assert clock.bank_ms == BySeat(expected_left[FIRST], expected_left[SECOND])
    assert charged == {seat: bank_ms - clock.bank_ms[seat] for seat in (FIRST, SECOND)}
