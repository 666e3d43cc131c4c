"""JSON request bodies decoded as strictly as WebSocket frames (PROTOCOL.md "Limits and close
codes").

FastAPI reads a body with ``json.loads``: a key given twice keeps its last value (a proxy or a
log reader may read another request than the server does), a lone surrogate (``"\\ud800"``)
becomes a string no UTF-8 reply or database can carry, and bytes that are not UTF-8 are
guessed at. Routes of a router made with ``route_class=StrictJsonRoute`` decode their body
with :func:`~spectacular_bid.web.frame_decode.decode_client_text` instead, and refuse each of
those with ``422 bad_message`` saying why, before any handler runs.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import HTTPException, Request, Response, status
from fastapi.routing import APIRoute

from spectacular_bid.web.frame_decode import FrameRefusal, decode_client_text


def strict_json(body: bytes) -> object:
    """``body``'s JSON value; :class:`FrameRefusal` when it is not UTF-8, not JSON, has a key
    twice in an object or holds a lone surrogate."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrameRefusal(f"not UTF-8: {exc.reason} at byte {exc.start}") from None
    return decode_client_text(text)


class _StrictJsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                self._json = strict_json(await self.body())
            except FrameRefusal as exc:
                # FastAPI lets an HTTPException through its body parsing as it is; any other
                # exception there becomes a 400 that no longer says why.
                raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, exc.message) from None
        return self._json


class StrictJsonRoute(APIRoute):
    """A route whose JSON body is read by :func:`strict_json`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(_StrictJsonRequest(request.scope, request.receive))

        return strict
