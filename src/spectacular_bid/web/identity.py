"""Who is calling: a guest's or an account session's bearer token from ``Authorization``,
``?token=`` or the cookie.

A seat belongs to the token that took it (PROTOCOL.md "Identity"): the service compares players, and
the web layer's only job is to find the player behind a request. A missing or unknown token is
simply nobody — a spectator — except where a route requires a player (401 ``unauthorized``).
"""

from __future__ import annotations

from typing import Annotated, Final

from fastapi import Depends, Response
from starlette.requests import HTTPConnection

from spectacular_bid.service.ports import Player
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.web.appstate import accounts_of, service_of

COOKIE: Final = "specbid_token"
COOKIE_MAX_AGE_S: Final = 365 * 24 * 3600


def token_of(conn: HTTPConnection) -> str | None:
    """The caller's token: a bearer header first, then ``?token=`` (WebSocket clients that
    cannot set headers), then the HttpOnly cookie a browser sends by itself."""
    return presented_token(conn) or conn.cookies.get(COOKIE) or None


def presented_token(conn: HTTPConnection) -> str | None:
    """The token the caller chose to present (a bearer header, or ``?token=`` on a WebSocket),
    not a cookie: a program that presents a token naming no one is told so (a match socket is
    refused with 4001, docs/PROTOCOL.md), while a browser's cookie, which its page can neither
    read nor clear, names nobody."""
    scheme, _, credentials = conn.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    if conn.scope["type"] == "websocket" and (token := conn.query_params.get("token")):
        return token
    return None


async def player_of(conn: HTTPConnection) -> Player | None:
    """The guest, or the logged-in account, behind the connection's token; None for nobody."""
    token = token_of(conn)
    guest = await service_of(conn).guests.resolve(token)
    return guest if guest is not None else await accounts_of(conn).resolve(token)


async def optional_player(conn: HTTPConnection) -> Player | None:
    return await player_of(conn)


async def required_player(player: Annotated[Player | None, Depends(optional_player)]) -> Player:
    if player is None:
        raise Rejection(
            ErrorCode.UNAUTHORIZED, "create a guest first: POST /api/session with your name"
        )
    return player


Caller = Annotated[Player | None, Depends(optional_player)]
"""The player behind the request, or None for an anonymous spectator."""
CurrentPlayer = Annotated[Player, Depends(required_player)]
"""The player behind the request; 401 without a valid token."""


def clear_token_cookie(response: Response, *, secure: bool) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=secure)


def set_token_cookie(response: Response, token: str, *, secure: bool) -> None:
    """HttpOnly so page scripts never see the token; SameSite=Lax so other sites' requests do not
    carry it."""
    response.set_cookie(
        COOKIE,
        token,
        max_age=COOKIE_MAX_AGE_S,
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure,
    )
