"""``/api/lobby``: open challenges to accept, live matches to watch, the ended ones to replay,
the rematches offered to the caller (from the archive, the opponent is on no page of the
old match and learns of the offer here), and the invitations made back to the caller by a
friend who came after the caller's invitation had expired (D3).

- ``GET /api/lobby``: all of it, with the first page of ended matches;
- ``GET /api/lobby/finished?limit=10&before=CURSOR``: the next pages, by the cursor of
  ``GET /api/matches`` (docs/PROTOCOL.md "GET /api/lobby").

The ended matches come from the store, so every process on one database lists the same and a
process started after they ended lists them; the open and live ones from the processes that
run them.
"""

from __future__ import annotations

from typing import Annotated, Final

from fastapi import APIRouter, Query

from spectacular_bid.service.listings import MatchSummary, profile_handle
from spectacular_bid.service.match_ratings import current
from spectacular_bid.service.ports import MatchMode, MatchStatus
from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.service.rematches import StandingOffer
from spectacular_bid.web.appstate import RoomsDep, Service, SharedLobbyDep
from spectacular_bid.web.errors import responses
from spectacular_bid.web.finished_lines import (
    FINISHED_PAGE,
    FinishedMatch,
    FinishedPage,
    finished_page,
)
from spectacular_bid.web.identity import Caller
from spectacular_bid.web.json_body import StrictJsonRoute
from spectacular_bid.web.notation import WireModel
from spectacular_bid.web.room import Rooms
from spectacular_bid.web.routes.players import PlayerRating
from spectacular_bid.web.routes.replays import PAGE_MAX, parse_cursor, profile_path, profile_url
from spectacular_bid.web.time_controls import TimeControls, time_controls

router = APIRouter(prefix="/api/lobby", tags=["lobby"], route_class=StrictJsonRoute)

LIST_LIMIT: Final = 100
"""The most open challenges and live matches listed, newest first."""


class LobbyMatch(WireModel):
    id: str
    mode: MatchMode
    status: MatchStatus
    first: str | None
    """The first seat's display name."""
    second: str | None
    """The second seat's display name; null while the seat is free."""
    round_number: int
    spectators: int
    created_at_ms: int
    """Wall-clock ms since the Unix epoch."""
    bank_ms: int
    """The match's bank per seat (R7.1)."""
    delay_ms: int
    """The match's delay per decision (R7.2)."""
    first_rating: PlayerRating | None
    """The first seat's rating now; null for a guest (PROTOCOL.md "GET /api/lobby")."""
    first_profile: str | None
    """Each seat's player's profile page (``/@/…``); null for an empty seat."""
    second_profile: str | None
    ended_at_ms: int | None
    """Wall-clock ms of the match's end; null while it is live."""
    bot_level: int | None = None
    """The level (1-5) of the computer in the second seat; null against a person (PROTOCOL.md "POST
    /api/matches")."""


class LobbyRematch(WireModel):
    match_id: str
    """The ended match to be played again: ``POST /api/matches/{match_id}/rematch`` accepts,
    ``DELETE`` declines."""
    by: str
    """The offering player's display name."""
    by_profile: str
    by_rating: PlayerRating | None
    """The offering player's rating now; null for a guest."""
    bank_ms: int
    delay_ms: int
    expires_in_ms: int


class LobbyInvitation(WireModel):
    match_id: str
    """The new invitation, waiting for the caller: ``POST /api/matches/{match_id}/join``."""
    by: str
    """The display name of the friend who came after the caller's invitation expired (D3)."""
    by_profile: str
    by_rating: PlayerRating | None
    """The inviting player's rating now; null for a guest."""
    bank_ms: int
    delay_ms: int


class Lobby(WireModel):
    open_challenges: list[LobbyMatch]
    """Open matches waiting for a second player: ``POST /api/matches/{id}/join``."""
    live: list[LobbyMatch]
    finished: list[FinishedMatch]
    """The first page of finished or aborted matches, newest first, from the store."""
    finished_next: str | None
    """The cursor of the next page (``GET /api/lobby/finished?before=…``); null when there is
    none."""
    rematch_offers: list[LobbyRematch]
    """Rematches offered to the caller and standing, newest first (empty for nobody)."""
    invitations: list[LobbyInvitation]
    """Invitations made back to the caller by a friend who came after the caller's invitation
    had expired, still waiting, newest first (D3; empty for nobody)."""
    time_controls: TimeControls
    """The time controls a new match may be created with: the server's own, the casual
    presets, and the bounds of a custom one (R7.1, R7.2)."""


def _lines(
    summaries: list[MatchSummary],
    rooms: Rooms,
    ratings: dict[str, PlayerRating],
    elsewhere: dict[str, int],
) -> list[LobbyMatch]:
    return [
        LobbyMatch(
            id=s.id,
            mode=MatchMode(s.mode),
            status=MatchStatus(s.status),
            first=s.first,
            second=s.second,
            round_number=s.round_number,
            spectators=elsewhere[s.id] if s.id in elsewhere else rooms.spectators(s.id),
            created_at_ms=s.created_at_ms,
            bank_ms=s.bank_ms,
            delay_ms=s.delay_ms,
            first_rating=ratings.get(s.first_id) if s.first_id is not None else None,
            first_profile=profile_url(s.first_handle),
            second_profile=profile_url(s.second_handle),
            ended_at_ms=s.ended_at_ms,
            bot_level=s.bot_level,
        )
        for s in summaries[:LIST_LIMIT]
    ]


def _offers(offers: list[StandingOffer], ratings: dict[str, PlayerRating]) -> list[LobbyRematch]:
    return [
        LobbyRematch(
            match_id=o.match_id,
            by=o.by.name,
            by_profile=profile_path(profile_handle(o.by)),
            by_rating=ratings.get(o.by.id) if o.by.account else None,
            bank_ms=o.clock.bank_ms,
            delay_ms=o.clock.delay_ms,
            expires_in_ms=o.expires_in_ms,
        )
        for o in offers
    ]


@router.get("", response_model=Lobby)
async def read_lobby(
    service: Service, rooms: RoomsDep, caller: Caller, shared: SharedLobbyDep
) -> Lobby:
    """Open and live matches of every server process when they relay (docs/PROTOCOL.md
    "Several servers on one database"), else this one's; ended ones from the store, which every
    process shares."""
    elsewhere: dict[str, int] = {}
    if shared is not None:
        kinds, elsewhere = await shared.lines()
    else:
        kinds = (service.open_challenges(), service.live_matches())
    finished = await finished_page(service, FINISHED_PAGE, None)
    offers = service.rematches.offers_to(caller.id) if caller is not None else []
    invited = service.invitations_to(caller.id) if caller is not None else []
    ids = {s.first_id for kind in kinds for s in kind[:LIST_LIMIT] if s.first_id is not None}
    ids.update(o.by.id for o in offers)
    ids.update(i.by.id for i in invited if i.by.account)
    found = await service.store.players(sorted(ids)) if ids else {}
    now_ms = service.wall_ms()
    ratings = {
        player_id: PlayerRating.of(current(p.rating, p.rated_at_ms, now_ms))
        for player_id, p in found.items()
    }
    open_challenges, live = (_lines(kind, rooms, ratings, elsewhere) for kind in kinds)
    return Lobby(
        open_challenges=open_challenges,
        live=live,
        finished=finished.matches,
        finished_next=finished.next,
        rematch_offers=_offers(offers, ratings),
        invitations=[
            LobbyInvitation(
                match_id=i.match_id,
                by=i.by.name,
                by_profile=profile_path(profile_handle(i.by)),
                by_rating=ratings.get(i.by.id) if i.by.account else None,
                bank_ms=i.clock.bank_ms,
                delay_ms=i.clock.delay_ms,
            )
            for i in invited
        ],
        time_controls=time_controls(service.settings.clock),
    )


@router.get("/finished", response_model=FinishedPage, responses=responses(ErrorCode.BAD_MESSAGE))
async def read_finished(
    service: Service,
    limit: Annotated[int, Query(ge=1, le=PAGE_MAX)] = FINISHED_PAGE,
    before: Annotated[str | None, Query(max_length=200)] = None,
) -> FinishedPage:
    """A page of the lobby's finished list: ``limit`` ended matches, newest first, strictly
    before the cursor ``before`` (the lobby's ``finished_next``, or the ``next`` of a page: the
    cursor of ``GET /api/matches``)."""
    cursor = parse_cursor(before) if before is not None else None
    return await finished_page(service, limit, cursor)
