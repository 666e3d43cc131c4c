"""A player's profile and archive (PROTOCOL.md "Players: profiles, ratings and archives"): who it
is, its rating as it stands now, its wins and losses, and its rating history for the chart; its
matches come page by page from
:meth:`~spectacular_bid.service.matches.MatchService.ended_matches`.

A profile's address names an account by its name (unique once folded, as at login) and a guest by
its id, since guests' names need not be unique (:func:`~spectacular_bid.service.listings.
profile_handle`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from spectacular_bid.service.accounts import name_key
from spectacular_bid.service.guests import DisplayNameError
from spectacular_bid.service.match_ratings import current
from spectacular_bid.service.ports import MatchStore, PlayerRecord, RatingChange
from spectacular_bid.service.ratings import Rating
from spectacular_bid.service.refusals import ErrorCode, Rejection

HISTORY_POINTS: Final = 200
"""The rating changes a profile's chart shows: the latest, oldest first."""
PLAYER_ID: Final = re.compile(r"[0-9a-f]{32}")
"""A player id (a UUID's hex), how a guest's profile is addressed."""


@dataclass(frozen=True, slots=True)
class Profile:
    player: PlayerRecord
    rating: Rating | None
    """An account's rating now — its deviation grown by the idle time since its last rated
    match — or a newcomer's before its first; None for a guest, which is never rated."""
    wins: int
    losses: int
    history: list[RatingChange]


async def find_player(store: MatchStore, handle: str) -> PlayerRecord:
    """The player a profile address names, or a ``not_found`` refusal."""
    try:
        key: str | None = name_key(handle)
    except (DisplayNameError, ValueError):
        key = None
    if key is not None:
        account = await store.player_by_name_key(key)
        if account is not None:
            return account
    if PLAYER_ID.fullmatch(handle):
        found = (await store.players([handle])).get(handle)
        if found is not None:
            return found
    raise Rejection(ErrorCode.NOT_FOUND, f"no player {handle!r:.80}")


async def profile_of(store: MatchStore, player: PlayerRecord, now_ms: int) -> Profile:
    wins, losses = await store.results(player.id)
    if not player.is_account:
        return Profile(player, None, wins, losses, [])
    history = await store.rating_changes(player.id, HISTORY_POINTS)
    rating = current(player.rating, player.rated_at_ms, now_ms)
    return Profile(player, rating, wins, losses, history)
