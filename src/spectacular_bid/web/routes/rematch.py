"""``/api/matches/{id}/rematch`` (PROTOCOL.md "rematch"): after an online match has ended, either
player offers a rematch (``POST``), which the other accepts by offering too; ``DELETE`` declines
the opponent's offer or withdraws one's own. Every change reaches every socket of the match as a
``rematch`` message; once the rematch has started, its ``match_id`` takes everyone there.

The same routes serve a match of one's archive, long ended and re-run from the store: nobody is
on its page then, so the opponent finds the offer in its lobby (``rematch_offers``) and the page
that made it reads ``GET`` until the rematch starts.

An offer lapses after three minutes or, while the match is in memory, when either player's last
socket of the match closes (:func:`lapse_on_leave`). The offer is no command of the match: the
ended match's version and record stay as they were.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter

from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.service.rematches import RematchState
from spectacular_bid.service.replay import Rebuilt
from spectacular_bid.web.appstate import RoomsDep, Service
from spectacular_bid.web.errors import responses
from spectacular_bid.web.frames import rematch_message
from spectacular_bid.web.identity import Caller, CurrentPlayer
from spectacular_bid.web.json_body import StrictJsonRoute
from spectacular_bid.web.notation import SeatName, WireModel, seat_name
from spectacular_bid.web.room import Room, Rooms

router = APIRouter(prefix="/api/matches", tags=["matches"], route_class=StrictJsonRoute)

REFUSALS = responses(
    ErrorCode.UNAUTHORIZED,
    ErrorCode.NOT_FOUND,
    ErrorCode.NOT_YOUR_SEAT,
    ErrorCode.WRONG_PHASE,
    ErrorCode.SERVER_BUSY,
)


class Rematch(WireModel):
    offered_by: SeatName | None
    """The seat whose offer stands; null when none does."""
    expires_in_ms: int | None
    """How long the standing offer has left."""
    match_id: str | None
    """The rematch once it has started; null until then."""

    @classmethod
    def of(cls, state: RematchState) -> Rematch:
        by = state.offered_by
        return cls(
            offered_by=seat_name(by) if by is not None else None,
            expires_in_ms=state.expires_in_ms,
            match_id=state.next_id,
        )


def _tell(rooms: Rooms, match: MatchActor | Rebuilt, state: RematchState) -> Rematch:
    room = rooms.get(match.id)
    if room is not None:
        room.notice(rematch_message(match.version, state))
    return Rematch.of(state)


@router.get("/{match_id}/rematch", response_model=Rematch, responses=REFUSALS)
async def read_rematch(match_id: str, service: Service, caller: Caller) -> Rematch:
    """The rematch as it stands (what the last ``rematch`` message said). Read by the player
    whose offer stands, it keeps the offer standing: an offer lapses when its player has not
    been heard from for 15 s."""
    found = await service.find(match_id)
    if caller is not None:
        service.rematches.seen(found.id, caller.id)
    return Rematch.of(service.rematches.state(found.id))


@router.post("/{match_id}/rematch", response_model=Rematch, responses=REFUSALS)
async def offer_rematch(
    match_id: str, player: CurrentPlayer, service: Service, rooms: RoomsDep
) -> Rematch:
    """Offer a rematch; when the opponent's offer stands, accept it: the rematch starts, the
    seats swapped, on the same time control (503 ``server_busy`` near capacity)."""
    match = await service.find(match_id)
    state = await service.rematches.offer(service, match, player)
    return _tell(rooms, match, state)


@router.delete("/{match_id}/rematch", response_model=Rematch, responses=REFUSALS)
async def decline_rematch(
    match_id: str, player: CurrentPlayer, service: Service, rooms: RoomsDep
) -> Rematch:
    """Decline the opponent's offer, or withdraw one's own."""
    match = await service.find(match_id)
    return _tell(rooms, match, service.rematches.decline(match, player))


def lapse_on_leave(service: MatchService) -> Callable[[Room, str], None]:
    """For :attr:`Rooms.on_player_left`: a player who leaves lets the offer lapse, and the
    sockets still open are told."""

    def left(room: Room, _player_id: str) -> None:
        match_id = room.actor.id
        if service.rematches.lapse(match_id):
            room.notice(rematch_message(room.actor.version, service.rematches.state(match_id)))

    return left
