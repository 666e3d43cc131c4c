"""The rating of a match's two players, as a change the group-commit writer applies with the
write that ends the match (``WriteKind.RATING``), after its header, rounds and events.

Each change reads both players' ratings as the transaction sees them, so changes of one batch
applied in queue order rate a player who ends two matches at once twice, the second from the
first's result; on PostgreSQL it locks the two rows (``SELECT … FOR UPDATE``, in id order) so
that no other writer of the database rates them in between. When the write's events are refused,
its savepoint takes the rating with it.
"""

from __future__ import annotations

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from spectacular_bid.service.match_ratings import rate
from spectacular_bid.service.ports import RatedResult
from spectacular_bid.service.ratings import Rating
from spectacular_bid.store.models import Player, ms_from_datetime
from spectacular_bid.store.models import RatingChange as RatingChangeRow
from spectacular_bid.store.records import rating_change_row, rating_values, stored_rating
from spectacular_bid.store.writes import Change, RefusedWriteError

Stored = tuple[Rating | None, int | None]
"""A player's stored rating and the wall ms it was last rated at."""


def rate_match(result: RatedResult) -> Change:
    """The change that rates ``result``'s two players from their stored ratings and keeps a
    :class:`~spectacular_bid.service.ports.RatingChange` for each."""

    async def change(conn: AsyncConnection) -> None:
        stored = await _stored_ratings(conn, result.first_player, result.second_player)
        changes = rate(result, stored[result.first_player], stored[result.second_player])
        for made in changes:
            await conn.execute(
                update(Player)
                .where(Player.id == made.player_id)
                .values(rating_values(made.after, made.at_ms))
            )
        await conn.execute(insert(RatingChangeRow), [rating_change_row(c) for c in changes])

    return change


async def _stored_ratings(conn: AsyncConnection, *player_ids: str) -> dict[str, Stored]:
    query = (
        select(
            Player.id,
            Player.rating,
            Player.rating_deviation,
            Player.rating_volatility,
            Player.rated_at,
        )
        .where(Player.id.in_(player_ids))
        .order_by(Player.id)
        .with_for_update()  # nothing on SQLite, whose writer holds the database's write lock
    )
    found: dict[str, Stored] = {}
    for row in await conn.execute(query):
        rated_at_ms = None if row.rated_at is None else ms_from_datetime(row.rated_at)
        rating = stored_rating(row.rating, row.rating_deviation, row.rating_volatility)
        found[row.id] = (rating, rated_at_ms)
    missing = [p for p in player_ids if p not in found]
    if missing:
        raise RefusedWriteError(f"no player {missing[0]} to rate")
    return found
