"""The browser client's pages: the client's one page for each client route.

Only mounted when the static folder exists. The client is one page that reads its route from its
own URL: ``/`` (the lobby, served by the client files' mount), ``/m/{id}`` (an invitation link:
play or watch a match), ``/replay/{id}`` (a finished match, move by move) and ``/@/{name}`` (a
player's profile and archive, PROTOCOL.md "Players: profiles, ratings and archives"). The page is
revalidated on every visit (``no-cache``) and names the client's files by their content-hashed names
(:mod:`spectacular_bid.web.client_files`), so a new client version reaches players on their
next visit and an unchanged one costs them nothing but the page.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import Response

from spectacular_bid.web.client_files import ClientFiles
from spectacular_bid.web.page_answers import PAGE_READS, answers_block, read_answers

CLIENT_ROUTES = ("/", "/m/{match_id}", "/replay/{match_id}", "/@/{match_id}")
"""The client's own paths that must load its page when opened directly or reloaded."""


def pages_router(client: ClientFiles) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    for route in CLIENT_ROUTES:
        router.add_api_route(route, _page_of(client, PAGE_READS.get(route, ())), methods=["GET"])
    return router


def _page_of(client: ClientFiles, reads: tuple[str, ...]) -> Any:
    """The handler of one client route: the page, with the answers to the route's reads."""

    async def client_page(request: Request) -> Response:
        params = {name: quote(str(value), safe="") for name, value in request.path_params.items()}
        paths = tuple(read.format(**params) for read in reads)
        answers = await read_answers(request.app, request.scope, paths) if paths else {}
        response = await client.page(request.headers, answers_block(answers))
        if reads:
            response.headers["Vary"] = "Accept-Encoding, Cookie, Authorization"
        return response

    return client_page
