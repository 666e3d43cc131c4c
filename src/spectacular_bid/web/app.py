"""The composition root: the only place that builds the store and the match service, so every
dependency points inward.

``create_app`` wires the store — the one it is given (tests pass an ``InMemoryStore``), else a
:class:`~spectacular_bid.store.SqlStore` on the database the settings name: the embedded SQLite file
in the data folder by default, or PostgreSQL — the :class:`MatchService` with its settings, the
routers and the error envelope, and the operations kit (PROTOCOL.md "Probes and metrics"): the
probes and the Prometheus metrics that the service and the store feed. For the lifetime of the app
it runs the store (its database locked against a second server first, then its schema brought to the
migrations' head, or checked to be there), then the service: its start-up recovery (D5), its lag
monitor and its match actors.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from importlib.metadata import PackageNotFoundError, version

from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp

from spectacular_bid.bus.redis import RedisBus, resolve_redis_url
from spectacular_bid.service.accounts import Accounts
from spectacular_bid.service.live_cap import LiveMatchCap
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.passwords import Passwords
from spectacular_bid.service.ports import MatchStore
from spectacular_bid.store.engine import create_engine, create_folder, resolve_url, sqlite_path
from spectacular_bid.store.leases import Lease
from spectacular_bid.store.migrate import SchemaNotAtHeadError, require_head, upgrade_to_head
from spectacular_bid.store.repository import SqlStore
from spectacular_bid.web import errors, ws
from spectacular_bid.web.bundler import find_esbuild
from spectacular_bid.web.busy_gate import BusyGate
from spectacular_bid.web.client_files import ClientFiles
from spectacular_bid.web.collector import Collector
from spectacular_bid.web.csrf import OriginCheck
from spectacular_bid.web.fence_gate import FenceGate
from spectacular_bid.web.http_limits import HttpLimits
from spectacular_bid.web.metrics import Metrics
from spectacular_bid.web.metrics import router as metrics_router
from spectacular_bid.web.relaying import Relaying
from spectacular_bid.web.room import Rooms
from spectacular_bid.web.routes import (
    accounts,
    board,
    chat,
    health,
    lobby,
    matches,
    players,
    probes,
    rematch,
    replays,
    session,
)
from spectacular_bid.web.routes.pages import pages_router
from spectacular_bid.web.security_headers import SecurityHeaders
from spectacular_bid.web.session_sockets import SessionSockets
from spectacular_bid.web.settings import WebSettings
from spectacular_bid.web.socket_caps import SocketCaps


def create_app(
    settings: WebSettings | None = None,
    store: MatchStore | None = None,
    *,
    manage_collector: bool = False,
    estimate_cap: Callable[[], int] | None = None,
    revise_cap: Callable[[], int] | None = None,
) -> FastAPI:
    """A ready app; the store and the service start and stop with the app's lifespan.

    ``store`` replaces the database the settings name (it is then the caller's to start and
    close). ``manage_collector`` (for a server process, not tests: it is process-wide) runs the
    garbage collector in short rounds that freeze long-lived objects (``collector.py``), so no
    collection walks them all and stalls every match. ``estimate_cap`` (``specbid serve``
    gives it) estimates the live-match cap when the settings set none (``auto``): once here,
    then again while the server runs (``service.live_cap``), with ``revise_cap`` where given, a
    cheaper estimate for the revisions every live match pays for.
    """
    settings = settings if settings is not None else WebSettings()
    metrics = Metrics()
    database: SqlStore | None = None
    if store is None:
        store = database = _sql_store(settings, metrics)
    service_settings = settings.service_settings()
    service = MatchService(
        store,
        service_settings,
        finished_ttl_ms=settings.finished_ttl_ms,
        idle_ttl_ms=settings.idle_ttl_ms,
        telemetry=metrics,
    )
    if estimate_cap is not None and settings.max_live_matches == "auto":
        service.admission.cap = LiveMatchCap(
            None, estimate_cap, settings.capacity_reestimate_s, revise_with=revise_cap
        )
        service.admission.cap.seed()
    rooms = Rooms(service.now_ms, settings.room_settings())
    rooms.on_player_left = rematch.lapse_on_leave(service)
    rooms.on_unwatched = service.unwatched
    rooms.on_watched = service.watched
    collector = Collector(service.any_clock_running, service.tasks) if manage_collector else None
    relaying = _relaying(settings, database, service, rooms, metrics)
    static = settings.static_folder()
    client = ClientFiles(static, find_esbuild()) if static is not None else None
    service.guests.cache.ttl_ms = settings.session_cache_ms
    accounts = Accounts(store, service.guests, Passwords(), service.wall_ms)
    session_sockets = SessionSockets(accounts.names_anyone)
    accounts.ends.on_end(session_sockets.end)
    accounts.ends.on_gap(session_sockets.recheck)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as opened:
            if database is not None:
                await opened.enter_async_context(open_database(database, upgrade=settings.upgrade))
            await service.start()
            if client is not None:
                await client.current()  # bundled before the first visitor comes
            opened.push_async_callback(session_sockets.close)
            if relaying is not None:
                await relaying.start()
                opened.push_async_callback(relaying.stop)
                await accounts.ends.attach(relaying.bus)  # a token ends on every process
            if collector is not None:
                collector.start()  # after start-up's own garbage, which is collected once
                opened.push_async_callback(collector.stop)
            try:
                yield
            finally:
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
    app.state.accounts = accounts
    app.state.session_sockets = session_sockets
    app.state.rooms = rooms
    app.state.remote_rooms = relaying.remote if relaying is not None else None
    app.state.shared_lobby = relaying.lobby if relaying is not None else None
    app.state.hand_over = relaying.departure.leave if relaying is not None else None
    app.state.collector = collector
    app.state.http_limits = HttpLimits(settings)
    app.state.socket_caps = SocketCaps(settings.sockets_per_address, settings.sockets_per_guest)
    install_operations(app, store, metrics)
    if relaying is not None:
        app.state.optional.append(relaying)
        service.failover.on_registered.append(relaying.registered_as)
    errors.install(app)
    install_routes(app, client)
    install_middleware(app)
    return app


def install_operations(app: FastAPI, store: MatchStore, metrics: Metrics) -> None:
    """What ``/readyz`` and ``/metrics`` read: the store, the optional
    dependencies (Redis, when the relay runs, is added to them) and the metrics, whose gauges
    read the sockets, the live matches and the drain at each scrape."""
    service: MatchService = app.state.service
    caps: SocketCaps = app.state.socket_caps
    app.state.store = store
    app.state.optional = []
    metrics.read_gauges(
        lambda: caps.open_sockets,
        service.live_count,
        lambda: service.admission.draining,
        lambda: service.admission.cap.value,
    )
    app.state.metrics = metrics


COMPRESS_FROM_BYTES = 1024
"""A response body this long or longer is gzipped when the request accepts it: below it, the
bytes saved are fewer than a packet's and not worth the work."""
COMPRESS_LEVEL = 6
"""zlib's default: most of level 9's saving on the API's JSON for a fraction of its CPU."""


def install_middleware(app: FastAPI) -> None:
    """Innermost first: the busy gate, the fence gate (no write while the lease is lost), the
    Origin check, the headers every page gets, then
    compression of what is not compressed yet (the client's files come gzipped already,
    ``client_files.py``). None of them sees the match sockets (``served``)."""
    docs = (app.docs_url, app.swagger_ui_oauth2_redirect_url, app.redoc_url)
    app.add_middleware(BusyGate)
    app.add_middleware(FenceGate)
    app.add_middleware(OriginCheck)
    app.add_middleware(SecurityHeaders, docs_paths=docs)
    app.add_middleware(
        GZipMiddleware, minimum_size=COMPRESS_FROM_BYTES, compresslevel=COMPRESS_LEVEL
    )


def served(app: FastAPI) -> ASGIApp:
    """``app`` as a server runs it: the match sockets' bare endpoint in front of it, outside
    even the app's own middleware (``ws.MatchSocketEndpoint`` says why)."""
    return ws.MatchSocketEndpoint(app)


def install_routes(app: FastAPI, client: ClientFiles | None) -> None:
    """The API's routers, then the browser client's pages and files (if it has a folder).

    The order is the point: the client's files are mounted after every API route, so they can
    never shadow the API.
    """
    app.include_router(session.router)
    app.include_router(accounts.router)
    app.include_router(matches.router)
    app.include_router(chat.router)
    app.include_router(rematch.router)
    app.include_router(replays.router)
    app.include_router(players.router)
    app.include_router(lobby.router)
    app.include_router(health.router)
    app.include_router(probes.router)
    app.include_router(metrics_router)
    app.include_router(board.router)
    if client is not None:
        app.include_router(pages_router(client))
        app.mount("/", client, name="static")


@asynccontextmanager
async def open_database(database: SqlStore, *, upgrade: bool) -> AsyncIterator[None]:
    """The store, ready for the life of the server, and closed at the end.

    The schema is brought to head (or, with ``upgrade`` false, checked to be there: raises
    :class:`~spectacular_bid.store.migrate.SchemaNotAtHeadError`), then the store started: it
    takes this server's lease (``store.leases``), so other servers on the same database go on
    with their own matches. At the end the store is closed, its last writes
    in before the lease is given up.
    """
    try:
        if upgrade:
            create_folder(database.engine.url)  # the embedded database's folder, on first start
            await upgrade_to_head(database.engine)
        else:
            await _require_schema(database.engine)
        await database.start()
    except BaseException:
        await database.close()
        raise
    try:
        yield
    finally:
        await database.close()


async def check_database(settings: WebSettings) -> None:
    """Raise :class:`~spectacular_bid.store.migrate.SchemaNotAtHeadError` unless the database
    the settings name exists with its schema at head (``specbid serve --no-upgrade``)."""
    engine = create_engine(resolve_url(settings.database_url, settings.data_dir), make_folder=False)
    try:
        await _require_schema(engine)
    finally:
        await engine.dispose()


async def _require_schema(engine: AsyncEngine) -> None:
    _require_file(engine)
    await require_head(engine)


def _require_file(engine: AsyncEngine) -> None:
    path = sqlite_path(engine.url)
    if path is not None and not path.is_file():
        raise SchemaNotAtHeadError(
            f"there is no database at {path}: start once without --no-upgrade to create it, "
            "or run `alembic upgrade head`"
        )


def _relaying(
    settings: WebSettings,
    database: SqlStore | None,
    service: MatchService,
    rooms: Rooms,
    metrics: Metrics,
) -> Relaying | None:
    """The relay between server processes (PROTOCOL.md "Several servers on one database"): with
    Redis and a database of several servers only; a process alone runs without it."""
    url = resolve_redis_url(settings.redis_url)
    if url is None or database is None or database.server_id is None:
        return None
    bus = RedisBus(url)
    bus.on_failure = lambda task, _exc: service.tasks.counted(task)  # logged by the bus
    return Relaying.new(bus, database.server_id, service, rooms, metrics.relayed)


def _sql_store(settings: WebSettings, metrics: Metrics) -> SqlStore:
    """The store on the database the settings name, its commits timed into ``metrics``."""
    url = resolve_url(settings.database_url, settings.data_dir)
    engine = create_engine(url, make_folder=False)
    lease = Lease.new(settings.lease_ms)  # this server's own matches
    return SqlStore(engine, owns_engine=True, lease=lease, telemetry=metrics)


def _version() -> str:
    try:
        return version("spectacular-bid")
    except PackageNotFoundError:  # a source tree that is not installed
        return "0+unknown"
