"""Players' profiles and archives (PROTOCOL.md "Players: profiles, ratings and archives").

- ``GET /api/players/{name}``: the player, its rating now (null for a guest), wins and losses,
  and its rating history for the profile's chart;
- ``GET /api/players/{name}/matches?limit=20&before=CURSOR``: its ended matches, newest first,
  paged as ``GET /api/matches`` is.

``{name}`` is an account's name (compared as at login) or a guest's id: guests' names need not
be unique, so a guest's profile is addressed by its id (``first_profile`` in match lists says
each seat's address).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from spectacular_bid.service.computer import level_of
from spectacular_bid.service.listings import profile_handle
from spectacular_bid.service.profiles import find_player, profile_of
from spectacular_bid.service.ratings import PROVISIONAL_DEVIATION, Rating
from spectacular_bid.service.record_document import ENDED
from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.web.appstate import Service
from spectacular_bid.web.errors import responses
from spectacular_bid.web.json_body import StrictJsonRoute
from spectacular_bid.web.notation import WireModel
from spectacular_bid.web.routes.replays import (
    PAGE_MAX,
    EndedMatchPage,
    ended_page,
    parse_cursor,
    profile_url,
)

router = APIRouter(prefix="/api/players", tags=["players"], route_class=StrictJsonRoute)

Handle = Annotated[str, Path(min_length=1, max_length=200)]


class PlayerRating(WireModel):
    value: float
    """Glicko-2's rating on the Glicko scale (a newcomer's is 1500)."""
    deviation: float
    """Its uncertainty (RD): 350 for a newcomer, growing with the time since the last rated
    match."""
    volatility: float
    provisional: bool
    """True while the deviation is above 110: shown as ``1500?``."""

    @classmethod
    def of(cls, rating: Rating) -> PlayerRating:
        return cls(
            value=round(rating.value, 2),
            deviation=round(rating.deviation, 2),
            volatility=round(rating.volatility, 6),
            provisional=rating.deviation > PROVISIONAL_DEVIATION,
        )


class RatingPoint(WireModel):
    match_id: str
    at_ms: int
    """Wall-clock ms of the rated match's end."""
    value: float
    """The rating after the match."""
    deviation: float
    before: float
    """The rating the match started from: a chart of one match still draws a line, from this
    to ``value``."""


class PlayerProfile(WireModel):
    id: str
    name: str
    account: bool
    rating: PlayerRating | None
    """Null for a guest, which is never rated."""
    wins: int
    losses: int
    ratings: list[RatingPoint]
    """The latest rating changes (at most 200), oldest first: the profile's chart."""
    profile_url: str
    matches_url: str
    """The player's ended matches, newest first, paged (``before``)."""
    bot_level: int | None = None
    """The level (1-5) this player plays at when it is the computer; null for a person."""


@router.get(
    "/{name}",
    response_model=PlayerProfile,
    responses=responses(ErrorCode.NOT_FOUND),
)
async def read_player(name: Handle, service: Service) -> PlayerProfile:
    """An account by its name, or a guest by its id."""
    player = await find_player(service.store, name)
    profile = await profile_of(service.store, player, service.wall_ms())
    handle = profile_url(profile_handle(player)) or ""
    return PlayerProfile(
        bot_level=level_of(player.id),
        id=player.id,
        name=player.name,
        account=player.is_account,
        rating=PlayerRating.of(profile.rating) if profile.rating is not None else None,
        wins=profile.wins,
        losses=profile.losses,
        ratings=[
            RatingPoint(
                match_id=c.match_id,
                at_ms=c.at_ms,
                value=round(c.after.value, 2),
                deviation=round(c.after.deviation, 2),
                before=round(c.before.value, 2),
            )
            for c in profile.history
        ],
        profile_url=handle,
        matches_url=f"/api/players/{handle.removeprefix('/@/')}/matches",
    )


@router.get(
    "/{name}/matches",
    response_model=EndedMatchPage,
    responses=responses(ErrorCode.NOT_FOUND, ErrorCode.BAD_MESSAGE),
)
async def read_player_matches(
    name: Handle,
    service: Service,
    limit: Annotated[int, Query(ge=1, le=PAGE_MAX)] = 20,
    before: Annotated[str | None, Query(max_length=200)] = None,
) -> EndedMatchPage:
    """The player's finished and aborted matches, newest first, ``limit`` per page."""
    player = await find_player(service.store, name)
    cursor = parse_cursor(before) if before is not None else None
    found = await service.ended_matches(list(ENDED), limit + 1, cursor, player.id)
    return ended_page(found, limit)
