"""The browser client's pages (issue 5): ``static/index.html`` for each client route.

Only mounted when the static folder exists. The client is one page that reads its route from its
own URL: ``/`` (the lobby, served by the static mount), ``/m/{id}`` (an invitation link: play or
watch a match), ``/replay/{id}`` (a finished match, move by move) and ``/@/{name}`` (a player's
profile and archive, issue 11 item 3).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

CLIENT_ROUTES = ("/m/{match_id}", "/replay/{match_id}", "/@/{match_id}")
"""The client's own paths that must load its page when opened directly or reloaded."""


def pages_router(static: Path) -> APIRouter:
    router = APIRouter(include_in_schema=False)
    index = static / "index.html"

    async def client_page(match_id: str) -> FileResponse:
        # No caching: a new client version must reach players on their next visit.
        return FileResponse(index, headers={"Cache-Control": "no-cache"})

    for path in CLIENT_ROUTES:
        router.add_api_route(path, client_page, methods=["GET"])
    return router
