"""``/api/lobby``: open challenges to accept, live matches to watch, recently finished ones."""

from __future__ import annotations

from typing import Final

from fastapi import APIRouter

from spectacular_bid.service.listings import MatchSummary
from spectacular_bid.service.ports import MatchMode, MatchStatus
from spectacular_bid.web.appstate import RoomsDep, Service
from spectacular_bid.web.notation import WireModel
from spectacular_bid.web.room import Rooms

router = APIRouter(prefix="/api/lobby", tags=["lobby"])

LIST_LIMIT: Final = 100
"""The most matches listed per kind, newest first."""


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


class Lobby(WireModel):
    open_challenges: list[LobbyMatch]
    """Open matches waiting for a second player: ``POST /api/matches/{id}/join``."""
    live: list[LobbyMatch]
    finished: list[LobbyMatch]
    """Finished or aborted matches, newest first."""


def _lines(summaries: list[MatchSummary], rooms: Rooms) -> list[LobbyMatch]:
    return [
        LobbyMatch(
            id=s.id,
            mode=MatchMode(s.mode),
            status=MatchStatus(s.status),
            first=s.first,
            second=s.second,
            round_number=s.round_number,
            spectators=rooms.spectators(s.id),
            created_at_ms=s.created_at_ms,
            bank_ms=s.bank_ms,
            delay_ms=s.delay_ms,
        )
        for s in summaries[:LIST_LIMIT]
    ]


@router.get("", response_model=Lobby)
async def read_lobby(service: Service, rooms: RoomsDep) -> Lobby:
    return Lobby(
        open_challenges=_lines(service.open_challenges(), rooms),
        live=_lines(service.live_matches(), rooms),
        finished=_lines(service.recently_finished(), rooms),
    )
