"""The ratings a match shows beside its players' names: each seat's rating as it took the seat,
and, once a rated match has ended, each player's change, as stored with that end.

They are what the match header and its result card show (README "Play"); the match itself
never reads them. Only a match played online (an invitation or an open challenge) shows them: on
a shared device one person holds both seats, and a match against the computer is never rated
(:mod:`~spectacular_bid.service.rated`). A guest has no rating, nor has the computer.

A live match's standing is read when its seats are taken; an ended rated match's comes from the
:class:`~spectacular_bid.service.ports.RatingChange` rows stored in the same transaction as its
end (:meth:`~spectacular_bid.service.ports.MatchStore.append`), so the change shown is the one
the ratings moved by.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from spectacular_bid.service.match_ratings import current
from spectacular_bid.service.ports import MatchMode, MatchStore, Player, RatingChange
from spectacular_bid.service.rated import ONLINE
from spectacular_bid.service.ratings import Rating

Seats = tuple[Player | None, Player | None]


@dataclass(frozen=True, slots=True)
class Standing:
    ratings: tuple[Rating | None, Rating | None] = (None, None)
    """Each seat's rating: an account's as it stood when the match read it (its deviation aged
    to then, a newcomer's before its first rated match); None for a guest, the computer, an
    empty seat, or a match that shows no ratings."""
    changes: tuple[float, float] | None = None
    """After a rated end, each seat's change: its rating after the match less before it."""


NO_STANDING: Final = Standing()


async def seated(store: MatchStore, mode: MatchMode, seats: Seats, now_wall_ms: int) -> Standing:
    """The seats' ratings now, read from the store."""
    if mode not in ONLINE:
        return NO_STANDING
    ids = [p.id for p in seats if p is not None and p.account]
    if not ids:
        return NO_STANDING
    found = await store.players(ids)

    def rating(player: Player | None) -> Rating | None:
        record = found.get(player.id) if player is not None and player.account else None
        if record is None or not record.is_account:
            return None
        return current(record.rating, record.rated_at_ms, now_wall_ms)

    return Standing((rating(seats[0]), rating(seats[1])))


async def settled(store: MatchStore, match_id: str, seats: Seats) -> Standing | None:
    """The standing of a rated match that ended, from the changes stored with its end; None
    when there are none (an unrated match)."""
    changes = await store.rating_changes_of([match_id])
    return standing_of(changes, seats)


def standing_of(changes: list[RatingChange], seats: Seats) -> Standing | None:
    """Both seats' ratings before the match and their changes, from a match's stored rating
    changes; None unless both seats have one."""
    by_player = {c.player_id: c for c in changes}
    first, second = (by_player.get(p.id) if p is not None else None for p in seats)
    if first is None or second is None or first is second:
        return None
    return Standing(
        (first.before, second.before),
        (first.after.value - first.before.value, second.after.value - second.before.value),
    )
