"""The pool's pairing rules, one at a time (service/pairing.py's docstring): waves, the widening
gap, blocks, rated apart from casual, time controls apart, abandoners together, and a matching
that is the least costly one, not a greedy one."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spectacular_bid.service.pairing import (
    REACH,
    PairingParameters,
    PoolEntry,
    allowed_gap,
    can_pair,
    pair_group,
    run_waves,
    wave_due_at_ms,
)

PARAMETERS = PairingParameters()
"""The defaults: waves 10 to 30 s apart, 20 players enough, gap 100 + 50 a missed wave up to
400, 100 more for a provisional rating, abandoners apart from others for their first wave."""


def entry(
    player_id: str,
    rating: float = 1500,
    *,
    deviation: float = 60,
    is_rated: bool = True,
    time_control: str = "2+0",
    entered_at_ms: int = 0,
    abandoned_last: bool = False,
    blocked: Sequence[str] = (),
    missed_waves: int = 0,
) -> PoolEntry:
    return PoolEntry(
        player_id,
        rating,
        deviation,
        is_rated,
        time_control,
        entered_at_ms,
        abandoned_last,
        frozenset(blocked),
        missed_waves,
    )


def pair_ids(entries: Sequence[PoolEntry]) -> set[frozenset[str]]:
    """The pairs one group's matching makes, as sets of player ids."""
    return {
        frozenset((pair.first.player_id, pair.second.player_id))
        for pair in pair_group(entries, PARAMETERS)
    }


def wave_ids(entries: Sequence[PoolEntry], now_ms: int = 10**9) -> set[frozenset[str]]:
    """The pairs a due wave makes (``now_ms`` far after every entry)."""
    waves = run_waves(entries, now_ms, {}, PARAMETERS)
    return {frozenset((pair.first.player_id, pair.second.player_id)) for pair in waves.pairs}


def ids(*names: str) -> frozenset[str]:
    return frozenset(names)


# -- blocks ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a_blocks", "b_blocks"), [(("b",), ()), ((), ("a",)), (("b",), ("a",))], ids=str
)
def test_a_block_in_either_direction_keeps_two_apart(
    a_blocks: tuple[str, ...], b_blocks: tuple[str, ...]
) -> None:
    a, b = entry("a", blocked=a_blocks), entry("b", blocked=b_blocks)
    assert wave_ids([a, b]) == set()
    assert not can_pair(a, b, PARAMETERS)
    assert not can_pair(b, a, PARAMETERS)
    # However long they have waited.
    assert wave_ids([entry("a", blocked=a_blocks, missed_waves=99), b]) == set()


def test_a_block_between_neighbours_strands_neither() -> None:
    """Sorted a b c d with a and b blocked: a-c and b-d, all four play."""
    pool = [
        entry("a", 1500, blocked=["b"]),
        entry("b", 1510),
        entry("c", 1520),
        entry("d", 1530),
    ]
    assert pair_ids(pool) == {ids("a", "c"), ids("b", "d")}


# -- rated apart from casual, time controls apart ------------------------------------------------


def test_rated_never_meets_casual() -> None:
    account, guest = entry("account", is_rated=True), entry("guest", is_rated=False)
    assert wave_ids([account, guest]) == set()
    pool = [account, guest, entry("account2", 1510), entry("guest2", 1490, is_rated=False)]
    assert wave_ids(pool) == {ids("account", "account2"), ids("guest", "guest2")}


def test_time_controls_never_mix() -> None:
    pool = [
        entry("a", time_control="2+0"),
        entry("b", time_control="5+3"),
        entry("c", 1600, time_control="2+0"),
        entry("d", 1400, time_control="5+3"),
    ]
    assert wave_ids(pool) == {ids("a", "c"), ids("b", "d")}
    assert wave_ids(pool[:2]) == set()


# -- abandoners together -------------------------------------------------------------------------


def test_abandoners_are_each_others_partners() -> None:
    """a-b would be the closest pair, but a abandoned, as did d: a-d and b-c."""
    pool = [
        entry("a", 1500, abandoned_last=True),
        entry("b", 1500),
        entry("c", 1520),
        entry("d", 1560, abandoned_last=True),
    ]
    assert pair_ids(pool) == {ids("a", "d"), ids("b", "c")}


def test_abandoners_stay_each_others_first_choice_once_free_to_play_anyone() -> None:
    """All have waited 3 waves, so any pair is allowed; a-b and d-c would cost least (0 + 100),
    but the two abandoners are matched together first: a-d and b-c."""
    pool = [
        entry("a", 1500, abandoned_last=True, missed_waves=3),
        entry("b", 1500, missed_waves=3),
        entry("d", 1600, abandoned_last=True, missed_waves=3),
        entry("c", 1700, missed_waves=3),
    ]
    assert pair_ids(pool) == {ids("a", "d"), ids("b", "c")}


@pytest.mark.parametrize("apart", [1, 3])
def test_an_abandoner_alone_waits_for_later_waves_then_plays_anyone(apart: int) -> None:
    parameters = PairingParameters(abandoner_apart_waves=apart)
    for missed in range(apart + 2):
        pool = [entry("a", abandoned_last=True, missed_waves=missed), entry("b", missed_waves=9)]
        waves = run_waves(pool, 10**9, {}, parameters)
        assert len(waves.pairs) == (1 if missed >= apart else 0), missed
    assert PARAMETERS.abandoner_apart_waves == 1  # by default they sit out one wave


def test_two_abandoners_meet_in_their_first_wave() -> None:
    pool = [entry("a", 1500, abandoned_last=True), entry("b", 1550, abandoned_last=True)]
    assert wave_ids(pool) == {ids("a", "b")}


# -- the gap widens with each missed wave ----------------------------------------------------


def test_the_gap_widens_by_50_per_wave_both_missed_up_to_400() -> None:
    def gap(missed_a: int, missed_b: int, provisional: bool = False) -> float:
        a = entry("a", missed_waves=missed_a, deviation=350 if provisional else 60)
        return allowed_gap(a, entry("b", missed_waves=missed_b), PARAMETERS)

    assert [gap(m, m) for m in range(8)] == [100, 150, 200, 250, 300, 350, 400, 400]
    assert gap(5, 0) == gap(0, 5) == 100  # a newcomer is not handed far away
    assert gap(0, 0, provisional=True) == 200
    assert gap(6, 6, provisional=True) == 400


def test_two_players_180_apart_meet_after_two_missed_waves() -> None:
    for missed, expected in [(0, set()), (1, set()), (2, {ids("a", "b")})]:
        pool = [entry("a", 1500, missed_waves=missed), entry("b", 1680, missed_waves=missed)]
        assert wave_ids(pool) == expected, missed
    far = [entry("a", 1000, missed_waves=1000), entry("b", 1401, missed_waves=1000)]
    assert wave_ids(far) == set()


def test_each_wave_run_counts_a_miss_for_who_stays() -> None:
    """The gap widens wave by wave through run_waves alone, without the caller counting."""
    pool = [entry("a", 1500), entry("b", 1680)]
    last: dict[str, int] = {}
    now_ms = 0
    for wave in range(1, 4):
        now_ms += PARAMETERS.wave_max_interval_ms
        waves = run_waves(pool, now_ms, last, PARAMETERS)
        assert waves.ran == {"2+0"}
        last["2+0"] = now_ms
        if wave < 3:
            assert waves.pairs == ()
            assert [e.missed_waves for e in waves.staying] == [wave, wave]
            pool = list(waves.staying)
        else:
            assert {p.player_id for p in (waves.pairs[0].first, waves.pairs[0].second)} == {
                "a",
                "b",
            }
            assert waves.staying == ()
            assert waves.next_wave_at_ms is None


def test_a_provisional_rating_gets_more_room() -> None:
    pool = [entry("a", 1500, deviation=350), entry("b", 1650)]
    assert wave_ids(pool) == {ids("a", "b")}
    assert wave_ids([entry("a", 1500), entry("b", 1650)]) == set()


# -- wave timing ---------------------------------------------------------------------------------


def test_a_wave_runs_every_30_s_while_anyone_waits() -> None:
    pool = [entry("a", entered_at_ms=1_000), entry("b", 1550, entered_at_ms=12_000)]
    assert wave_due_at_ms(pool, None, PARAMETERS) == 31_000
    early = run_waves(pool, 30_999, {}, PARAMETERS)
    assert (early.pairs, early.staying, early.ran) == ((), tuple(pool), frozenset())
    assert early.next_wave_at_ms == 31_000
    due = run_waves(pool, 31_000, {}, PARAMETERS)
    assert len(due.pairs) == 1
    assert due.ran == {"2+0"}


def test_the_clock_starts_at_the_later_of_the_last_wave_and_the_first_arrival() -> None:
    """A pool empty for a long while: the newcomer is not counted as having missed a wave."""
    pool = [entry("a", entered_at_ms=100_000)]
    assert wave_due_at_ms(pool, 5_000, PARAMETERS) == 130_000
    assert run_waves(pool, 100_000, {"2+0": 5_000}, PARAMETERS).staying == tuple(pool)
    assert wave_due_at_ms([entry("a", entered_at_ms=1_000)], 20_000, PARAMETERS) == 50_000
    assert wave_due_at_ms([], 20_000, PARAMETERS) is None


def test_enough_players_bring_the_wave_forward_but_not_before_10_s() -> None:
    crowd = [entry(f"p{i}", 1500 + i, entered_at_ms=i * 100) for i in range(20)]
    assert wave_due_at_ms(crowd, 0, PARAMETERS) == 10_000
    assert wave_due_at_ms(crowd[:19], 0, PARAMETERS) == 30_000
    assert run_waves(crowd, 9_999, {"2+0": 0}, PARAMETERS).pairs == ()
    waves = run_waves(crowd, 10_000, {"2+0": 0}, PARAMETERS)
    assert len(waves.pairs) == 10


def test_only_the_due_pool_runs_and_counts_misses() -> None:
    pool = [
        entry("a", time_control="2+0", entered_at_ms=0),
        entry("b", time_control="5+3", entered_at_ms=20_000),
    ]
    waves = run_waves(pool, 30_000, {}, PARAMETERS)
    assert waves.ran == {"2+0"}
    assert [(e.player_id, e.missed_waves) for e in waves.staying] == [("a", 1), ("b", 0)]
    assert waves.next_wave_at_ms == 50_000  # b's pool is due first


# -- the matching is the least costly, not a greedy one ------------------------------------------


def test_the_matching_pairs_all_four_where_greedy_would_strand_two() -> None:
    """Greedy takes the closest pair b-c (20) first, leaving a and d 140 apart; the least-cost
    matching pairs a-b and c-d (60 each)."""
    pool = [entry("a", 1500), entry("b", 1560), entry("c", 1580), entry("d", 1640)]
    assert pair_ids(pool) == {ids("a", "b"), ids("c", "d")}


def test_who_missed_more_waves_is_left_out_last() -> None:
    pool = [entry("a", 1530), entry("b", 1550, missed_waves=3), entry("c", 1600, missed_waves=3)]
    assert pair_ids(pool) == {ids("b", "c")}


# -- bad input -----------------------------------------------------------------------------------


def test_bad_input_is_refused_with_what_was_wrong() -> None:
    with pytest.raises(ValueError, match="'a' waits twice"):
        run_waves([entry("a"), entry("a", 1600)], 0, {}, PARAMETERS)
    with pytest.raises(ValueError, match="after now"):
        run_waves([entry("a", entered_at_ms=5)], 4, {}, PARAMETERS)
    with pytest.raises(ValueError, match="deviation"):
        entry("a", deviation=-1)
    with pytest.raises(ValueError, match="rating must be finite"):
        entry("a", float("nan"))
    with pytest.raises(ValueError, match="player id"):
        entry("")
    with pytest.raises(ValueError, match="'a': a pool entry needs a time control"):
        entry("a", time_control="")
    with pytest.raises(ValueError, match="missed_waves"):
        entry("a", missed_waves=-1)
    with pytest.raises(ValueError, match="max_gap"):
        PairingParameters(base_gap=200, max_gap=150)
    with pytest.raises(ValueError, match="wave_max_interval_ms"):
        PairingParameters(wave_min_interval_ms=20_000, wave_max_interval_ms=10_000)
    with pytest.raises(ValueError, match="enough_players"):
        PairingParameters(enough_players=1)


# -- properties ----------------------------------------------------------------------------------

players = st.builds(
    entry,
    st.sampled_from("abcdefgh"),
    st.integers(1200, 1800),
    deviation=st.sampled_from([60, 350]),
    is_rated=st.booleans(),
    time_control=st.sampled_from(["2+0", "5+3"]),
    abandoned_last=st.booleans(),
    blocked=st.lists(st.sampled_from("abcdefgh"), max_size=3),
    missed_waves=st.integers(0, 6),
)
pools = st.lists(players, max_size=8, unique_by=lambda e: e.player_id)


@given(pools)
def test_every_pair_keeps_every_rule_and_nobody_is_lost(pool: list[PoolEntry]) -> None:
    waves = run_waves(pool, 10**9, {}, PARAMETERS)
    seated = [e.player_id for pair in waves.pairs for e in (pair.first, pair.second)]
    assert len(seated) == len(set(seated))
    assert sorted(seated + [e.player_id for e in waves.staying]) == sorted(
        e.player_id for e in pool
    )
    for pair in waves.pairs:
        assert can_pair(pair.first, pair.second, PARAMETERS)
        assert not pair.first.is_blocked_with(pair.second)
        assert pair.first.time_control == pair.second.time_control
        assert pair.first.is_rated is pair.second.is_rated
        assert pair.gap <= PARAMETERS.max_gap


def _brute_force_cost(group: Sequence[PoolEntry]) -> float:
    """The least cost over every matching of ``group``, with the programme's costs."""
    if not group:
        return 0.0
    first, rest = group[0], group[1:]
    leave_out = 2 * PARAMETERS.max_gap + 1 + PARAMETERS.widen_per_missed_wave * first.missed_waves
    best = leave_out + _brute_force_cost(rest)
    for k, other in enumerate(rest):
        if can_pair(first, other, PARAMETERS):
            cost = abs(first.rating - other.rating) + _brute_force_cost([*rest[:k], *rest[k + 1 :]])
            best = min(best, cost)
    return best


@given(
    st.lists(
        st.builds(
            entry,
            st.sampled_from("abcdefgh"),
            st.integers(1300, 1700),
            deviation=st.sampled_from([60, 350]),
            blocked=st.lists(st.sampled_from("abcdefgh"), max_size=2),
            missed_waves=st.integers(0, 4),
        ),
        max_size=REACH,
        unique_by=lambda e: e.player_id,
    )
)
def test_within_reach_the_matching_is_the_least_costly(group: list[PoolEntry]) -> None:
    pairs = pair_group(group, PARAMETERS)
    seated = {e.player_id for pair in pairs for e in (pair.first, pair.second)}
    cost = sum(pair.gap for pair in pairs) + sum(
        2 * PARAMETERS.max_gap + 1 + PARAMETERS.widen_per_missed_wave * e.missed_waves
        for e in group
        if e.player_id not in seated
    )
    assert cost == pytest.approx(_brute_force_cost(group))


def test_brute_force_sees_every_matching() -> None:
    """The oracle itself: four players all compatible, three matchings, the least is chosen."""
    group = [entry("a", 1500), entry("b", 1510), entry("c", 1590), entry("d", 1600)]
    costs = [
        abs(p.rating - q.rating) + abs(r.rating - s.rating)
        for p, q, r, s in itertools.permutations(group)
    ]
    assert _brute_force_cost(group) == min(costs) == 20
