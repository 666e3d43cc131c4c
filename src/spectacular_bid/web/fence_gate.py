"""Writes refused at the door while this server may not write (OPERATIONS.md, "Running it for
real").

A server whose lease a peer took (it was paused or cut off past it, ``store.leases``) can
store nothing: every write would fail at the store's fence. From the moment it knows (a write
found the fence closed, or its own clock says the lease ran out unrenewed) until it has
renewed it or registered again (``service.failover``, within a scan), each request that would
write, any method but ``GET``, ``HEAD`` and ``OPTIONS``, is answered ``503 server_busy`` with
``Retry-After`` before it runs, as a busy server's are (PROTOCOL.md: retry, or go to another
replica). A request already past the door when the fence closed gets the same answer from the
error envelope (``web/errors.py``), never a 500.
"""

from __future__ import annotations

from typing import Final

from starlette.types import ASGIApp, Receive, Scope, Send

from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.web.errors import FENCED_RETRY_AFTER_S, error_response

SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})


class FenceGate:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            service = scope["app"].state.service
            assert isinstance(service, MatchService), "create_app() puts it on app.state"
            reason = service.store.lease_reason()
            if reason is not None:
                response = error_response(
                    ErrorCode.SERVER_BUSY,
                    f"{reason}; try again shortly",
                    retry_after_s=FENCED_RETRY_AFTER_S,
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
