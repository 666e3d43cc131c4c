"""Glicko-2 (PROTOCOL.md "Players: profiles, ratings and archives"): the worked example of
Glickman's paper, and the properties a player relies on."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spectacular_bid.service.ratings import (
    MAX_DEVIATION,
    SCALE,
    Game,
    Rating,
    aged,
    updated,
)


def test_the_papers_example_to_four_decimals() -> None:
    """Glickman (2013), "Example of the Glicko-2 system": 1500/200/0.06 against 1400/30 (won),
    1550/100 and 1700/300 (lost), τ = 0.5, gives μ' = -0.2069, φ' = 0.8722, σ' = 0.05999, that is
    1464.06 and 151.52."""
    player = Rating(1500, 200, 0.06)
    games = [
        Game(Rating(1400, 30), 1),
        Game(Rating(1550, 100), 0),
        Game(Rating(1700, 300), 0),
    ]
    new = updated(player, games, tau=0.5)
    assert (new.value - 1500) / SCALE == pytest.approx(-0.2069, abs=0.00005)
    assert new.deviation / SCALE == pytest.approx(0.8722, abs=0.00005)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)  # 0.0599960, printed cut short
    # The paper's 1464.06 and 151.52 are its rounded μ' and φ' brought back to the Glicko scale.
    assert new.value == pytest.approx(1464.06, abs=0.01)
    assert new.deviation == pytest.approx(151.52, abs=0.01)


def test_a_newcomer_is_provisional_until_the_deviation_falls_to_110() -> None:
    assert Rating().is_provisional
    assert (Rating().value, Rating().deviation, Rating().volatility) == (1500, 350, 0.06)
    assert not Rating(1500, 110).is_provisional
    assert Rating(1500, 110.01).is_provisional


def test_idle_periods_grow_the_deviation_up_to_a_newcomers() -> None:
    rating = Rating(1700, 50, 0.06)
    day, year = aged(rating, 1), aged(rating, 365)
    assert rating.deviation < day.deviation < year.deviation <= MAX_DEVIATION
    assert (day.value, day.volatility) == (1700, 0.06)
    assert aged(rating, 0) == rating
    assert aged(rating, 10**9).deviation == MAX_DEVIATION
    assert updated(rating, []) == day  # a period without a game
    with pytest.raises(ValueError, match="periods"):
        aged(rating, -1)


def test_a_score_outside_0_to_1_is_refused() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        Game(Rating(), 2)


ratings = st.builds(
    Rating,
    st.floats(500, 2500),
    st.floats(30, MAX_DEVIATION),
    st.floats(0.03, 0.1),
)


@given(ratings, ratings)
def test_a_win_never_lowers_a_rating_and_a_loss_never_raises_it(
    player: Rating, opponent: Rating
) -> None:
    assert updated(player, [Game(opponent, 1)]).value > player.value
    assert updated(player, [Game(opponent, 0)]).value < player.value


@given(ratings, ratings, st.sampled_from([0.0, 1.0]))
def test_playing_never_grows_the_deviation(player: Rating, opponent: Rating, score: float) -> None:
    new = updated(player, [Game(opponent, score)])
    assert 0 < new.deviation <= player.deviation
    assert new.volatility > 0
