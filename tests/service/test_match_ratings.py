"""One rated match's effect on its two players (service/match_ratings.py, PROTOCOL.md "Players:
profiles, ratings and archives"): both start from their ratings aged by whole idle days, and the
winner gains what the loser loses when they start alike."""

from __future__ import annotations

import math

from spectacular_bid.service.match_ratings import current, rate
from spectacular_bid.service.ports import RatedResult
from spectacular_bid.service.ratings import MAX_DEVIATION, RATING_PERIOD_MS, Rating, aged

DAY = RATING_PERIOD_MS
RESULT = RatedResult("m1", "ann", "bo", first_won=True, at_ms=100 * DAY)


def test_two_newcomers_move_apart_alike() -> None:
    ann, bo = rate(RESULT, (None, None), (None, None))
    assert (ann.player_id, bo.player_id, ann.match_id) == ("ann", "bo", "m1")
    assert ann.before == bo.before == Rating()
    assert ann.after.value > 1500 > bo.after.value
    assert math.isclose(ann.after.value - 1500, 1500 - bo.after.value, abs_tol=1e-9)
    assert ann.after.deviation < MAX_DEVIATION
    assert bo.after.deviation < MAX_DEVIATION


def test_idle_days_grow_the_deviation_before_the_match() -> None:
    settled = Rating(1700.0, 60.0, 0.06)
    rated_at = RESULT.at_ms - 30 * DAY - DAY // 2  # 30 whole days and a half
    ann, _ = rate(RESULT, (settled, rated_at), (None, None))
    assert ann.before == aged(settled, 30)
    assert ann.before.deviation > 60.0
    assert current(settled, RESULT.at_ms - DAY // 2, RESULT.at_ms) == settled  # under a day
    assert current(settled, 0, 10_000 * DAY).deviation == MAX_DEVIATION  # never past 350
    assert current(None, None, RESULT.at_ms) == Rating()


def test_a_loss_never_raises_and_a_win_never_lowers() -> None:
    strong, weak = Rating(2100.0, 50.0, 0.06), Rating(1200.0, 80.0, 0.06)
    for first_won in (True, False):
        result = RatedResult("m", "a", "b", first_won=first_won, at_ms=0)
        a, b = rate(result, (strong, 0), (weak, 0))
        assert (a.after.value >= strong.value) is first_won
        assert (b.after.value >= weak.value) is not first_won
