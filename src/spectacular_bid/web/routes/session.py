"""``/api/session``: become a guest (a display name and a token), ask who you are (PROTOCOL.md
"Identity")."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status
from pydantic import Field

from spectacular_bid.service.guests import NAME_MAX, DisplayNameError
from spectacular_bid.service.ports import Player
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.web.appstate import Service
from spectacular_bid.web.errors import responses
from spectacular_bid.web.http_limits import GuestLimit
from spectacular_bid.web.identity import CurrentPlayer, set_token_cookie
from spectacular_bid.web.json_body import StrictJsonRoute
from spectacular_bid.web.notation import WireModel

router = APIRouter(prefix="/api/session", tags=["session"], route_class=StrictJsonRoute)


class SessionRequest(WireModel):
    name: str = Field(max_length=4 * NAME_MAX, examples=["Ann"])
    """The display name: 1–24 visible characters after folding whitespace."""


class PlayerOut(WireModel):
    id: str
    name: str
    account: bool
    """True for an account (it logs in with a password), false for a guest."""

    @classmethod
    def of(cls, player: Player) -> PlayerOut:
        return cls(id=player.id, name=player.name, account=player.account)


class SessionCreated(WireModel):
    player: PlayerOut
    token: str
    """The bearer token, shown once; also set as the HttpOnly cookie ``specbid_token``."""


class SessionOut(WireModel):
    player: PlayerOut


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=SessionCreated,
    responses=responses(ErrorCode.BAD_MESSAGE, ErrorCode.RATE_LIMITED),
)
async def create_session(
    _limit: GuestLimit, body: SessionRequest, request: Request, response: Response, service: Service
) -> SessionCreated:
    """Create a guest; a seat belongs to the token that took it, its only credential. At most
    ``guests_burst`` at once and ``guests_per_minute`` per client address (429 past them)."""
    try:
        player, token = await service.guests.create(body.name, service.wall_ms())
    except DisplayNameError as exc:
        raise Rejection(ErrorCode.BAD_MESSAGE, str(exc)) from None
    set_token_cookie(response, token, secure=request.url.scheme == "https")
    return SessionCreated(player=PlayerOut.of(player), token=token)


@router.get("", response_model=SessionOut, responses=responses(ErrorCode.UNAUTHORIZED))
async def read_session(player: CurrentPlayer) -> SessionOut:
    """The caller's guest identity, from the bearer header or the cookie."""
    return SessionOut(player=PlayerOut.of(player))
