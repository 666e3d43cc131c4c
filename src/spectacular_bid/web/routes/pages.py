"""The browser client's page for an invitation link, ``/m/{id}`` (issue 5 fills ``static/``).

Only mounted when the static folder exists; the client reads the id from its own URL.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse


def pages_router(static: Path) -> APIRouter:
    router = APIRouter(include_in_schema=False)
    index = static / "index.html"

    @router.get("/m/{match_id}")
    async def match_page(match_id: str) -> FileResponse:
        return FileResponse(index)

    return router
