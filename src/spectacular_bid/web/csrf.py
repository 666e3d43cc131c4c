"""A state-changing request from another site's page is refused (CSRF).

Browsers send an ``Origin`` header with every POST (and PUT, PATCH, DELETE) a page makes. A
request whose ``Origin`` is not the server's own — scheme, host and port compared, as for match
sockets (``web.origin``), or one of ``SPECBID_ALLOWED_ORIGINS`` — is answered 403
``foreign_origin`` before any route runs, so another site cannot log a visitor in, change a
password, or create matches with the visitor's cookie. So is one whose ``Sec-Fetch-Site`` says
another site's page sent it, and one without ``Origin`` whose ``Referer`` names another site's
page (``web.origin.foreign_page``): a request a browser stripped of its ``Origin`` is still
told apart. The SameSite=Lax cookie already keeps a cross-site POST from carrying it in today's
browsers; this holds for any browser, and for a sibling host of the same site, which the cookie
does not stop. A request with none of these headers comes from a program, not a page, and
carries its own token.
"""

from __future__ import annotations

from typing import Final

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.web.errors import error_response
from spectacular_bid.web.origin import foreign_page
from spectacular_bid.web.settings import WebSettings

SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})


class OriginCheck:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            headers = Headers(scope=scope)
            settings = scope["app"].state.settings
            assert isinstance(settings, WebSettings), "create_app() puts them on app.state"
            scheme = str(scope.get("scheme", "http"))
            sign = foreign_page(headers, scheme, settings.allowed_origins)
            if sign is not None:
                response = error_response(
                    ErrorCode.FOREIGN_ORIGIN,
                    f"a request from the page of another site ({sign}) may change nothing here",
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
