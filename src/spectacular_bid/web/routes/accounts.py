"""``/api/account``, ``/api/login``, ``/api/logout`` (PROTOCOL.md "Identity"): a guest claims its
name with a password, and then logs in from any browser; a new password ends the other sessions.

A state-changing request from another site's page is refused by the check every POST passes
(``web.csrf``: its ``Origin``, ``Sec-Fetch-Site`` or ``Referer``), and the session cookie is
HttpOnly and SameSite=Lax. A token that ends, ends on every server process (``service.sessions``).
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status
from pydantic import Field

from spectacular_bid.service.guests import NAME_MAX
from spectacular_bid.service.passwords import (
    NEW_PASSWORD_PATTERN,
    PASSWORD_MAX,
    PASSWORD_MIN,
    PasswordRuleError,
)
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.web.appstate import AccountsDep, Service
from spectacular_bid.web.errors import responses
from spectacular_bid.web.http_limits import Limits, limit_logins
from spectacular_bid.web.identity import (
    CurrentPlayer,
    clear_token_cookie,
    set_token_cookie,
    token_of,
)
from spectacular_bid.web.json_body import StrictJsonRoute
from spectacular_bid.web.notation import WireModel
from spectacular_bid.web.routes.session import PlayerOut

router = APIRouter(tags=["accounts"], route_class=StrictJsonRoute)

Password = Field(min_length=1, max_length=4 * PASSWORD_MAX, examples=["correct horse battery"])
NewPassword = Field(
    min_length=PASSWORD_MIN,
    max_length=PASSWORD_MAX,
    pattern=NEW_PASSWORD_PATTERN,
    examples=["correct horse battery"],
)


class AccountRequest(WireModel):
    password: str = NewPassword
    """8 to 256 characters, none of them a control character; no other rule."""


class LoginRequest(WireModel):
    name: str = Field(min_length=1, max_length=4 * NAME_MAX, examples=["Ann"])
    password: str = Password


class PasswordChange(WireModel):
    current: str = Password
    password: str = NewPassword


class LoggedIn(WireModel):
    player: PlayerOut
    token: str
    """The session's bearer token, shown once; also set as the HttpOnly cookie."""


@router.post(
    "/api/account",
    status_code=status.HTTP_201_CREATED,
    response_model=LoggedIn,
    responses=responses(
        ErrorCode.BAD_MESSAGE, ErrorCode.UNAUTHORIZED, ErrorCode.NAME_TAKEN, ErrorCode.SERVER_BUSY
    ),
)
async def create_account(
    body: AccountRequest,
    player: CurrentPlayer,
    request: Request,
    response: Response,
    accounts: AccountsDep,
) -> LoggedIn:
    """Make the calling guest an account under its name, with its matches; the guest's token is
    replaced by a session token (409 ``name_taken`` if an account has the name)."""
    guest_token = token_of(request) or ""
    try:
        token = await accounts.claim(player, guest_token, body.password)
    except PasswordRuleError as exc:
        raise Rejection(ErrorCode.BAD_MESSAGE, str(exc)) from None
    set_token_cookie(response, token, secure=request.url.scheme == "https")
    return LoggedIn(player=PlayerOut(id=player.id, name=player.name, account=True), token=token)


@router.post(
    "/api/login",
    response_model=LoggedIn,
    responses=responses(
        ErrorCode.BAD_MESSAGE,
        ErrorCode.UNAUTHORIZED,
        ErrorCode.RATE_LIMITED,
        ErrorCode.SERVER_BUSY,
    ),
)
async def login(
    body: LoginRequest,
    request: Request,
    response: Response,
    service: Service,
    limits: Limits,
    accounts: AccountsDep,
) -> LoggedIn:
    """A new session of an account, in this browser. 401 alike for a wrong password and a name
    without an account; 429 past 10 tries a minute from one address, 5 at one name from one
    address, or 30 at one name from all addresses together."""
    limit_logins(request, service, limits, body.name)
    player, token = await accounts.login(body.name, body.password)
    set_token_cookie(response, token, secure=request.url.scheme == "https")
    return LoggedIn(player=PlayerOut.of(player), token=token)


@router.post(
    "/api/logout",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses=responses(ErrorCode.UNAUTHORIZED),
)
async def logout(player: CurrentPlayer, request: Request, accounts: AccountsDep) -> Response:
    """End this browser's session, on every server (a guest's token is forgotten by this browser
    only)."""
    token = token_of(request)
    if token is not None:
        await accounts.logout(player, token)
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    clear_token_cookie(response, secure=request.url.scheme == "https")
    return response


@router.post(
    "/api/account/password",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses=responses(ErrorCode.BAD_MESSAGE, ErrorCode.UNAUTHORIZED, ErrorCode.SERVER_BUSY),
)
async def change_password(
    body: PasswordChange, player: CurrentPlayer, request: Request, accounts: AccountsDep
) -> Response:
    """Replace the password, given the current one; every other session of the account ends."""
    try:
        await accounts.change_password(player, token_of(request) or "", body.current, body.password)
    except PasswordRuleError as exc:
        raise Rejection(ErrorCode.BAD_MESSAGE, str(exc)) from None
    return Response(status_code=status.HTTP_204_NO_CONTENT)
