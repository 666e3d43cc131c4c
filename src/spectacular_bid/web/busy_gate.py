"""New matches refused at the door while the server is busy (PROTOCOL.md "When the server is busy").

Offered twice its capacity, a server refuses most new matches, and every refused client tries
again after ``Retry-After``: at 4,000 offered matches, 1,700 waiting slots sent about 330
``POST /api/matches`` a second. Through the whole FastAPI stack (routing, dependencies, the
guest's lookup, body parsing) those refusals alone took a core, and the admitted matches'
p99 went to a second. Here a busy server answers them before any of that: the same
``503 server_busy`` with ``Retry-After``, counted as refused, for a fraction of the cost.
When the server is not busy the request goes on, and the service decides as before.
"""

from __future__ import annotations

from typing import Final

from starlette.types import ASGIApp, Receive, Scope, Send

from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.refusals import Rejection
from spectacular_bid.web.errors import error_response

MATCHES_PATH: Final = "/api/matches"


class BusyGate:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == MATCHES_PATH:
            service = scope["app"].state.service
            assert isinstance(service, MatchService), "create_app() puts it on app.state"
            live = service.live_count()
            if service.admission.is_busy(live):
                try:
                    service.admission.admit(live, "matches")
                except Rejection as busy:
                    response = error_response(
                        busy.code, busy.message, retry_after_s=busy.retry_after_s
                    )
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)
