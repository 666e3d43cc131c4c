"""``/api/matches``: create a match, take its free seat, answer an expired invitation, and read a
match as the caller sees it.

The modes of PROTOCOL.md "POST /api/matches": ``invite`` (joined through its link), ``open`` (listed
in the lobby), ``shared`` (both seats on one device, with the hand-over of R7.5), and ``bot`` (the
computer in the second seat, PROTOCOL.md "POST /api/matches"). The view is the caller's
audience's (``web/frames.py``), so a spectator's has no hand (R2.2, D4).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Response, status
from pydantic import BeforeValidator, Field

from spectacular_bid.clock import ClockSettings
from spectacular_bid.service.computer import LEVELS
from spectacular_bid.service.guests import NAME_MAX, DisplayNameError
from spectacular_bid.service.ports import MatchMode
from spectacular_bid.service.record_document import BANK_MS_MAX, DELAY_MS_MAX
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.seat_names import checked_names
from spectacular_bid.service.whereabouts import Elsewhere, locate
from spectacular_bid.web.appstate import RemoteRoomsDep, RoomsDep, Service
from spectacular_bid.web.errors import responses
from spectacular_bid.web.http_limits import JoinLimit, MatchLimit
from spectacular_bid.web.identity import Caller, CurrentPlayer
from spectacular_bid.web.json_body import StrictJsonRoute
from spectacular_bid.web.messages import ServerState
from spectacular_bid.web.notation import SeatName, WireModel, seat_name
from spectacular_bid.web.room import audience_for

router = APIRouter(prefix="/api/matches", tags=["matches"], route_class=StrictJsonRoute)


def _whole_number(value: object) -> object:
    """A JSON integer — ``704.0`` too, as JSON Schema counts it — but not ``true`` or
    ``"5000"``, which pydantic's lax mode would take for 1 and 5000 (the fuzzer sent them)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected a whole number, got {value!r}")
    return value


WHOLE_NUMBER = BeforeValidator(_whole_number)
"""After a field's bounds in its ``Annotated``, so the schema still shows them."""


class _TimeControl(WireModel):
    bank_ms: Annotated[int, Field(ge=0, le=BANK_MS_MAX), WHOLE_NUMBER] | None = None
    """This match's bank per seat (R7.1); the server's setting when omitted."""
    delay_ms: Annotated[int, Field(ge=0, le=DELAY_MS_MAX), WHOLE_NUMBER] | None = None
    """This match's delay per decision (R7.2); the server's setting when omitted."""

    def clock(self, default: ClockSettings) -> ClockSettings | None:
        """A casual time control for this match, or None for the server's own."""
        if self.bank_ms is None and self.delay_ms is None:
            return None
        return ClockSettings(
            bank_ms=default.bank_ms if self.bank_ms is None else self.bank_ms,
            delay_ms=default.delay_ms if self.delay_ms is None else self.delay_ms,
        )


class SeatNames(WireModel):
    """The names of the two people at a shared device: display names (1-24 visible
    characters), different from each other."""

    first: Annotated[str, Field(min_length=1, max_length=NAME_MAX)]
    second: Annotated[str, Field(min_length=1, max_length=NAME_MAX)]


class MatchRequest(_TimeControl):
    mode: Literal["invite", "open", "shared"]
    """``invite``: an invitation link; ``open``: listed in the lobby; ``shared``: one device."""
    names: SeatNames | None = None
    """Shared device only: the names its two players are shown under (the seats, the match
    header, the hand-over screen, the record, the replay); both seats stay the caller's."""

    def seat_names(self) -> tuple[str, str] | None:
        """The two names, checked, or a ``bad_message`` refusal saying what is wrong."""
        if self.names is None:
            return None
        if self.mode != "shared":
            raise Rejection(
                ErrorCode.BAD_MESSAGE,
                f"names are typed for a shared-device match only, not an {self.mode!r} one",
            )
        try:
            return checked_names(self.names.first, self.names.second)
        except DisplayNameError as exc:
            raise Rejection(ErrorCode.BAD_MESSAGE, f"names: {exc}") from None


class BotMatchRequest(_TimeControl):
    mode: Literal["bot"]
    """Against the computer, which takes the second seat (PROTOCOL.md "POST /api/matches")."""
    level: Annotated[int, Field(ge=LEVELS[0], le=LEVELS[-1]), WHOLE_NUMBER]
    """The computer's level: 1 plays at random, 2 takes the largest award now, 3 to 5 search
    the hands it cannot see, more deeply at each level."""


NewMatch = Annotated[MatchRequest | BotMatchRequest, Field(discriminator="mode")]


class MatchCreated(WireModel):
    id: str
    mode: MatchMode
    seat: SeatName
    """The creator's seat: always ``first`` (on a shared device, both seats)."""
    invite_url: str
    """The page to send the opponent (or to open on the shared device)."""
    ws_url: str
    """The WebSocket path for players and spectators."""


class JoinResult(WireModel):
    seat: SeatName


class AgainRequest(WireModel):
    mode: Literal["invite", "open"]
    """``invite``: a new invitation, listed in the lobby of the expired one's creator; ``open``:
    an open challenge in the lobby."""


def invite_url(match_id: str) -> str:
    return f"/m/{match_id}"


def ws_url(match_id: str) -> str:
    return f"/ws/matches/{match_id}"


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=MatchCreated,
    responses=responses(
        ErrorCode.UNAUTHORIZED,
        ErrorCode.BAD_MESSAGE,
        ErrorCode.RATE_LIMITED,
        ErrorCode.SERVER_BUSY,
    ),
)
async def create_match(
    _limit: MatchLimit, body: NewMatch, player: CurrentPlayer, service: Service
) -> MatchCreated:
    """Create a match with the caller in the first seat, with the server's time control or its
    own (``bank_ms``, ``delay_ms``); on a shared device, both seats, under the ``names`` typed
    for its two players when given. A match whose second seat stays empty past the join timeout
    is aborted with no result (D3).

    Refused with 429 past ``matches_burst`` / ``matches_per_minute`` per guest or per client
    address, or when the caller already has ``open_challenges_per_guest`` open challenges
    waiting; with 503 near the server's capacity."""
    clock = body.clock(service.settings.clock)
    level = body.level if isinstance(body, BotMatchRequest) else None
    names = body.seat_names() if isinstance(body, MatchRequest) else None
    actor = await service.create_match(player, MatchMode(body.mode), clock, level, names)
    return MatchCreated(
        id=actor.id,
        mode=actor.state.mode,
        seat="first",
        invite_url=invite_url(actor.id),
        ws_url=ws_url(actor.id),
    )


@router.post(
    "/{match_id}/join",
    response_model=JoinResult,
    responses=responses(
        ErrorCode.UNAUTHORIZED,
        ErrorCode.NOT_FOUND,
        ErrorCode.SEAT_TAKEN,
        ErrorCode.MATCH_OVER,
        ErrorCode.RATE_LIMITED,
        ErrorCode.SERVER_BUSY,
    ),
)
async def join_match(
    _limit: JoinLimit,
    match_id: str,
    player: CurrentPlayer,
    service: Service,
    remote: RemoteRoomsDep,
) -> JoinResult:
    """Take the free seat; a player already seated gets their seat back (idempotent).

    Refused with 429 past ``joins_burst`` / ``joins_per_minute`` per guest or per client
    address, and with 503 near the server's capacity (taking a free seat starts a match). A
    match another server process runs is joined there (PROTOCOL.md "Several servers on one
    database")."""
    match = await locate(service, match_id, relaying=remote is not None)
    if isinstance(match, Elsewhere) and remote is not None:
        seat = await remote.join(match.server_id, match_id, player)
    else:
        seat = await service.join(match_id, player)
    return JoinResult(seat=seat_name(seat))


@router.post(
    "/{match_id}/again",
    status_code=status.HTTP_201_CREATED,
    response_model=MatchCreated,
    responses=responses(
        ErrorCode.UNAUTHORIZED,
        ErrorCode.BAD_MESSAGE,
        ErrorCode.NOT_FOUND,
        ErrorCode.WRONG_PHASE,
        ErrorCode.RATE_LIMITED,
        ErrorCode.SERVER_BUSY,
    ),
)
async def answer_expired(
    _limit: MatchLimit, match_id: str, body: AgainRequest, player: CurrentPlayer, service: Service
) -> MatchCreated:
    """For the friend who came to an invitation (or an open challenge) after it expired, its
    second seat empty (D3): a new match of the caller's on the same time control — an
    invitation back to the expired one's creator, which their lobby lists
    (``invitations``), or an open challenge. The answer is the new match, as ``POST
    /api/matches`` gives it; its ``invite_url`` is the link to send.

    ``409 wrong_phase`` for a match that is not such an expired invitation, or for its creator;
    the limits of creating a match apply (429, 503)."""
    actor = await service.again(match_id, player, MatchMode(body.mode))
    return MatchCreated(
        id=actor.id,
        mode=actor.state.mode,
        seat="first",
        invite_url=invite_url(actor.id),
        ws_url=ws_url(actor.id),
    )


@router.get(
    "/{match_id}",
    response_model=ServerState,
    responses=responses(ErrorCode.NOT_FOUND, ErrorCode.SERVER_BUSY),
)
async def read_match(
    match_id: str, caller: Caller, service: Service, rooms: RoomsDep, remote: RemoteRoomsDep
) -> Response:
    """The match as the caller sees it: their seat, both seats on a shared device, or a
    spectator's view when anonymous or not seated (R2.2, D4); as the server process that runs
    it encodes it, when that is another (PROTOCOL.md "Several servers on one database")."""
    # An ended match may come from its record (D5).
    match = await locate(service, match_id, relaying=remote is not None)
    if isinstance(match, Elsewhere):
        assert remote is not None
        text = await remote.view(match.server_id, match_id, caller)
        return Response(text, media_type="application/json")
    # The actor's state is always a stored one (install after commit), so no unsaved state
    # is shown; the text is already JSON and is not re-validated.
    audience = audience_for(match.state, caller, None)
    return Response(rooms.state_text(match, audience), media_type="application/json")
