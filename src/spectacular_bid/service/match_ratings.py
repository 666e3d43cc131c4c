"""What one rated match does to its two players' ratings (PROTOCOL.md "Players: profiles, ratings
and archives").

Each player's rating is first aged by the whole rating periods since its last rated match (its
deviation grows, :func:`~spectacular_bid.service.ratings.aged`), then updated with one game
against the other's aged rating, so both updates start from the same pair. The store calls
:func:`rate` inside the transaction that stores the match's ending, with the ratings it holds
then, so two matches of one player that end at once are rated one after the other.
"""

from __future__ import annotations

from spectacular_bid.service.ports import RatedResult, RatingChange
from spectacular_bid.service.ratings import RATING_PERIOD_MS, Game, Rating, aged, updated


def current(rating: Rating | None, rated_at_ms: int | None, now_ms: int) -> Rating:
    """A stored rating as it stands at ``now_ms``: aged by the whole idle periods since it was
    last rated; a newcomer's for a player never rated."""
    if rating is None or rated_at_ms is None:
        return Rating()
    periods = max(0, now_ms - rated_at_ms) // RATING_PERIOD_MS
    return aged(rating, periods) if periods else rating


def rate(
    result: RatedResult,
    first: tuple[Rating | None, int | None],
    second: tuple[Rating | None, int | None],
) -> tuple[RatingChange, RatingChange]:
    """Both players' changes; ``first`` and ``second`` are each player's stored rating and the
    wall ms it was last rated at (None, None for a player never rated)."""
    a = current(*first, result.at_ms)
    b = current(*second, result.at_ms)
    score = 1.0 if result.first_won else 0.0
    a_after = updated(a, [Game(b, score)])
    b_after = updated(b, [Game(a, 1.0 - score)])
    return (
        RatingChange(result.match_id, result.first_player, result.at_ms, a, a_after),
        RatingChange(result.match_id, result.second_player, result.at_ms, b, b_after),
    )
