"""Security headers on every HTTP response (PROTOCOL.md "Security headers"): a
Content-Security-Policy,
``X-Content-Type-Options``, ``X-Frame-Options`` and ``Referrer-Policy``.

The browser client is plain ES modules from this server with no inline script or style (its
pages set styles only through the CSSOM, which a policy does not block), so its policy allows
this origin and nothing else: scripts, styles, images, fonts, fetches and its WebSocket. Older
browsers do not count ``ws:``/``wss:`` as ``'self'``, so the request's own host is named for
them too. No page may frame the client (clickjacking a bid), and no ``<base>`` or plugin may
change where its scripts come from.

The API's interactive docs (Swagger UI at ``/docs``, ReDoc at ``/redoc``) load their bundles from
a CDN and start with an inline script; those pages alone get a relaxed policy that allows them,
still with no framing. They show only the static OpenAPI document.

A pure ASGI middleware, not Starlette's ``BaseHTTPMiddleware``: it only adds headers to the
response's start message, so it neither buffers nor slows a response, and leaves WebSockets
alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CLIENT_POLICY: Final = (
    "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
"""The policy of the client's pages (and of every other response), before ``connect-src``."""
DOCS_POLICY: Final = (
    "default-src 'self'; "
    "script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "font-src 'self' https://fonts.gstatic.com; "
    "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
    "worker-src 'self' blob:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""Swagger UI and ReDoc as FastAPI serves them: CDN bundles, an inline start script, inline
styles, a favicon from FastAPI's site, ReDoc's fonts and its worker."""
FIXED_HEADERS: Final = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
"""``X-Frame-Options`` for browsers without ``frame-ancestors``; no referrer, so an invitation
link (``/m/{id}``) never leaks to another site."""

_HOST = re.compile(r"(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
"""A Host header that is safe to name in a policy (no spaces, quotes or semicolons)."""


def client_policy(host: str | None) -> str:
    """The client's policy for a page served as ``host`` (its ``Host`` header)."""
    sockets = f" ws://{host} wss://{host}" if host and _HOST.fullmatch(host) else ""
    return f"{CLIENT_POLICY}; connect-src 'self'{sockets}"


class SecurityHeaders:
    """Add the headers to each HTTP response that does not set them itself."""

    def __init__(self, app: ASGIApp, docs_paths: Iterable[str | None] = ()) -> None:
        self.app = app
        self.docs_paths = frozenset(path for path in docs_paths if path)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        docs = scope["path"] in self.docs_paths
        policy = DOCS_POLICY if docs else client_policy(_host_of(scope))
        added = ((b"content-security-policy", policy.encode("latin-1")), *FIXED_HEADERS)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers.extend(header for header in added if header[0] not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _host_of(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"host":
            return bytes(value).decode("latin-1")
    return None
