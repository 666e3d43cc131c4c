"""How a refusal looks over HTTP: ``{"error": {"code", "message"}}`` with a fitting status.

The codes are the service's :class:`ErrorCode` values, the same as in WebSocket ``error``
messages, so a client handles one vocabulary (R8.3: a refused request changes nothing).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match, Mount

from spectacular_bid.service.ports import LeaseLostError
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.web.notation import WireModel

HTTP_STATUS: dict[ErrorCode, int] = {
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.NOT_A_PLAYER: 403,
    ErrorCode.NOT_YOUR_SEAT: 403,
    ErrorCode.NOT_YOUR_TURN: 409,
    ErrorCode.WRONG_PHASE: 409,
    ErrorCode.ILLEGAL: 422,
    ErrorCode.STALE_VERSION: 409,
    ErrorCode.TIME_EXPIRED: 409,
    ErrorCode.MATCH_OVER: 409,
    ErrorCode.HANDOVER_PENDING: 409,
    ErrorCode.STORAGE_FAILED: 503,
    ErrorCode.SEAT_TAKEN: 409,
    ErrorCode.NAME_TAKEN: 409,
    ErrorCode.FOREIGN_ORIGIN: 403,
    ErrorCode.BAD_MESSAGE: 422,
    ErrorCode.UNKNOWN_TYPE: 422,
    ErrorCode.TOO_LARGE: 413,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.UNAUTHORIZED: 401,
    ErrorCode.SERVER_BUSY: 503,
}
"""Every code has a status; a test keeps the table complete."""

FENCED_RETRY_AFTER_S = 1
"""What a client refused by a server that lost its lease is told to wait: the server registers
again within a scan (a second), or the proxy sends the retry to another replica."""

_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
"""The methods a 405's ``Allow`` may name (the API uses the first three)."""
_CODE_OF_STATUS = {404: ErrorCode.NOT_FOUND, 401: ErrorCode.UNAUTHORIZED, 413: ErrorCode.TOO_LARGE}


class ErrorBody(WireModel):
    code: ErrorCode
    message: str


class ErrorEnvelope(WireModel):
    """Every HTTP error response."""

    error: ErrorBody


def error_response(
    code: ErrorCode, message: str, status: int | None = None, retry_after_s: int | None = None
) -> JSONResponse:
    body = {"error": {"code": code.value, "message": message}}
    headers: dict[str, str] = {}
    if code is ErrorCode.UNAUTHORIZED:
        headers["WWW-Authenticate"] = "Bearer"
    if retry_after_s is not None:
        headers["Retry-After"] = str(max(1, retry_after_s))
    return JSONResponse(body, status_code=status or HTTP_STATUS[code], headers=headers or None)


def responses(*codes: ErrorCode) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses=`` for a route that may refuse with ``codes``."""
    return {HTTP_STATUS[c]: {"model": ErrorEnvelope} for c in codes}


async def _on_rejection(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Rejection)
    return error_response(exc.code, exc.message, retry_after_s=exc.retry_after_s)


async def _on_lease_lost(_request: Request, exc: Exception) -> JSONResponse:
    """A write that found this server's lease taken (OPERATIONS.md, "Running it for real"): nothing
    was stored, and the client is to try again — here once the server registered again, or at
    another replica."""
    assert isinstance(exc, LeaseLostError)
    return error_response(
        ErrorCode.SERVER_BUSY,
        f"{exc}; try again shortly",
        retry_after_s=FENCED_RETRY_AFTER_S,
    )


async def _on_validation(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return error_response(ErrorCode.BAD_MESSAGE, "; ".join(parts) or "invalid request")


async def _on_http(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    code = _CODE_OF_STATUS.get(exc.status_code, ErrorCode.BAD_MESSAGE)
    # A body that is not even JSON (FastAPI's 400) is refused like one that does not fit (422).
    status = HTTP_STATUS[code] if exc.status_code == 400 else exc.status_code
    response = error_response(code, str(exc.detail), status)
    if exc.headers:
        response.headers.update(exc.headers)
    if exc.status_code == 405 and (allowed := _allowed_methods(request)):
        response.headers["Allow"] = ", ".join(allowed)
    return response


def _allowed_methods(request: Request) -> list[str]:
    """Every method the path answers. Starlette names only those of the first route that has
    the path, but ``/api/session`` (GET and POST) is two routes, and RFC 9110 wants them all.
    Each method is tried against the routes; the client's files (a mount) answer GET alone."""
    routes = [r for r in request.app.router.routes if not isinstance(r, Mount)]
    return [
        method
        for method in _METHODS
        if any(r.matches({**request.scope, "method": method})[0] is Match.FULL for r in routes)
    ]


def install(app: FastAPI) -> None:
    """Route every refusal through the one envelope."""
    app.add_exception_handler(Rejection, _on_rejection)
    app.add_exception_handler(LeaseLostError, _on_lease_lost)
    app.add_exception_handler(RequestValidationError, _on_validation)
    app.add_exception_handler(HTTPException, _on_http)
