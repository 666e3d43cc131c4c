"""The composition root: the only place that builds the store and the match service (STYLE rule 1).

``create_app`` wires the in-memory store (the database arrives in issue 4), the
:class:`MatchService` with its settings, the routers and the error envelope, and runs the
service — its lag monitor (D5) and its match actors — for the lifetime of the app.
"""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.ports import MatchStore
from spectacular_bid.web import errors, ws
from spectacular_bid.web.routes import lobby, matches, session
from spectacular_bid.web.routes.pages import pages_router
from spectacular_bid.web.settings import WebSettings

_GC_THRESHOLDS = (5_000, 10, 1_000)


def create_app(
    settings: WebSettings | None = None,
    store: MatchStore | None = None,
    *,
    freeze_startup_objects: bool = False,
) -> FastAPI:
    """A ready app; the service starts and stops with the app's lifespan.

    ``freeze_startup_objects`` (for a server process, not tests) moves everything alive at start
    out of the garbage collector's reach, so its full collections stay short.
    """
    settings = settings if settings is not None else WebSettings()
    service = MatchService(
        store if store is not None else InMemoryStore(), settings.service_settings()
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if freeze_startup_objects:
            # The ~150k objects of the imported web stack live as long as the process; a full
            # collection that walks them all stalls every match for tens of milliseconds.
            gc.collect()
            gc.freeze()
            # Young collections stay cheap; a full one (which walks every socket's objects) comes
            # about a thousand times less often than by default.
            gc.set_threshold(*_GC_THRESHOLDS)
        await service.start()
        try:
            yield
        finally:
            app.state.stopping = True
            await service.stop()

    app = FastAPI(
        title="Spectacular Bid",
        summary="A two-player Fives domino duel with an opening auction and a match clock.",
        description="HTTP API; the live protocol on /ws/matches/{id} is in docs/PROTOCOL.md.",
        version=_version(),
        lifespan=lifespan,
        docs_url="/docs",
    )
    app.state.settings = settings
    app.state.service = service
    app.state.stopping = False
    errors.install(app)
    app.include_router(session.router)
    app.include_router(matches.router)
    app.include_router(lobby.router)
    app.include_router(ws.router)
    static = settings.static_folder()
    if static is not None:
        # After every API route: the client's files must never shadow the API.
        app.include_router(pages_router(static))
        app.mount("/", StaticFiles(directory=static, html=True), name="static")
    return app


def _version() -> str:
    try:
        return version("spectacular-bid")
    except PackageNotFoundError:  # a source tree that is not installed
        return "0+unknown"
