"""The composition root: the only place that builds the store and the match service (STYLE rule 1).

``create_app`` wires the store — the one it is given (tests pass an ``InMemoryStore``), else a
:class:`~spectacular_bid.store.SqlStore` on the database the settings name: the embedded SQLite
file in the data folder by default, or PostgreSQL — the :class:`MatchService` with its settings,
the routers and the error envelope. For the lifetime of the app it runs the store (its schema
brought to the migrations' head first, or checked to be there), then the service: its start-up
recovery (D5), its lag monitor and its match actors.
"""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.ports import MatchStore
from spectacular_bid.store.engine import create_engine, create_folder, resolve_url, sqlite_path
from spectacular_bid.store.migrate import SchemaNotAtHeadError, require_head, upgrade_to_head
from spectacular_bid.store.repository import SqlStore
from spectacular_bid.web import errors, ws
from spectacular_bid.web.routes import lobby, matches, replays, session
from spectacular_bid.web.routes.pages import pages_router
from spectacular_bid.web.settings import WebSettings

_GC_THRESHOLDS = (500, 1, 8_000)
"""A live match keeps objects alive for seconds (a socket's next read, a flag timer, a resend
entry), so they outlive the youngest generation and each collection of the middle one walks every
such object made since the last: at the default ten young collections per middle one, ~60k objects
and 30-60 ms at 2,000 matches, stalling every match. A middle collection after every second young
one walks a fifth as many. The oldest generation's threshold keeps full collections (every live
object: ~1 s at 2,000 matches, under the D5 stall threshold) about 45 minutes apart at that load,
a little rarer than the previous (700, 10, 1000)."""


def create_app(
    settings: WebSettings | None = None,
    store: MatchStore | None = None,
    *,
    freeze_startup_objects: bool = False,
) -> FastAPI:
    """A ready app; the store and the service start and stop with the app's lifespan.

    ``store`` replaces the database the settings name (it is then the caller's to start and
    close). ``freeze_startup_objects`` (for a server process, not tests) moves everything alive
    at start out of the garbage collector's reach, so its full collections stay short.
    """
    settings = settings if settings is not None else WebSettings()
    database: SqlStore | None = None
    if store is None:
        url = resolve_url(settings.database_url, settings.data_dir)
        database = SqlStore(create_engine(url, make_folder=False), owns_engine=True)
        store = database
    service = MatchService(
        store, settings.service_settings(), finished_ttl_ms=settings.finished_ttl_ms
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if freeze_startup_objects:
            # The ~150k objects of the imported web stack live as long as the process; a full
            # collection that walks them all stalls every match for tens of milliseconds.
            gc.collect()
            gc.freeze()
            gc.set_threshold(*_GC_THRESHOLDS)
        if database is not None:
            try:
                await open_database(database, upgrade=settings.upgrade)
            except BaseException:
                await database.close()
                raise
        try:
            await service.start()
            try:
                yield
            finally:
                app.state.stopping = True
                await service.stop()
        finally:
            if database is not None:
                await database.close()

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
    app.include_router(replays.router)
    app.include_router(lobby.router)
    app.include_router(ws.router)
    static = settings.static_folder()
    if static is not None:
        # After every API route: the client's files must never shadow the API.
        app.include_router(pages_router(static))
        app.mount("/", StaticFiles(directory=static, html=True), name="static")
    return app


async def open_database(database: SqlStore, *, upgrade: bool) -> None:
    """Bring the schema to head (or, with ``upgrade`` false, check it is there: raises
    :class:`~spectacular_bid.store.migrate.SchemaNotAtHeadError`), then start the store."""
    if upgrade:
        create_folder(database.engine.url)  # the embedded database's folder, on first start
        await upgrade_to_head(database.engine)
    else:
        await _require_schema(database.engine)
    await database.start()


async def check_database(settings: WebSettings) -> None:
    """Raise :class:`~spectacular_bid.store.migrate.SchemaNotAtHeadError` unless the database
    the settings name exists with its schema at head (``specbid serve --no-upgrade``)."""
    engine = create_engine(resolve_url(settings.database_url, settings.data_dir), make_folder=False)
    try:
        await _require_schema(engine)
    finally:
        await engine.dispose()


async def _require_schema(engine: AsyncEngine) -> None:
    path = sqlite_path(engine.url)
    if path is not None and not path.is_file():
        raise SchemaNotAtHeadError(
            f"there is no database at {path}: start once without --no-upgrade to create it, "
            "or run `alembic upgrade head`"
        )
    await require_head(engine)


def _version() -> str:
    try:
        return version("spectacular-bid")
    except PackageNotFoundError:  # a source tree that is not installed
        return "0+unknown"
