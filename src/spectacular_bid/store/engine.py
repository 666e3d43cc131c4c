"""Async engines for the embedded SQLite file and for PostgreSQL.

The embedded default is ``<data_dir>/specbid.sqlite3``, opened in WAL mode so that readers never
wait for the writer, with a busy timeout, foreign keys on, and transactions begun by SQLAlchemy
instead of the ``sqlite3`` driver (the "SQLite transactions" recipe of the SQLAlchemy docs):
``BEGIN`` for reads and ``BEGIN IMMEDIATE`` for writes (:func:`for_writing`), so a writer takes
the write lock when it starts — waiting up to the busy timeout for it — and can never fail with
``database is locked`` half-way through.

``synchronous=FULL`` makes every commit durable against a power cut (the WAL is synced at each
commit); ``NORMAL`` would survive a process crash only. Group commit (one transaction for everything
queued while the previous commit ran) keeps FULL fast enough: see ``specbid bench store``.

PostgreSQL is reached through asyncpg; a ``postgresql://`` or ``postgres://`` URL gets the driver.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Final

from sqlalchemy import event, make_url, text
from sqlalchemy.engine import URL, Connection
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from spectacular_bid.store.checkpoint import REWIND_BYTES
from spectacular_bid.store.models import encode_json

DEFAULT_DATA_DIR: Final = "data"
"""The data folder when neither ``--data-dir`` nor ``SPECBID_DATA_DIR`` names one."""
SQLITE_FILE: Final = "specbid.sqlite3"
BUSY_TIMEOUT_MS: Final = 30_000
SQLITE_SYNCHRONOUS: Final = "FULL"
SQLITE_BEGIN: Final = "specbid_sqlite_begin"
"""The execution option that picks ``BEGIN`` or ``BEGIN IMMEDIATE`` on SQLite."""

POSTGRES_POOL_SIZE: Final = 20
"""Connections a process keeps open to PostgreSQL. Under load the writer and the sockets' reads
(a match's owner, its chat) hold a dozen at once; with SQLAlchemy's default of 5, every one past
it was opened and closed again: 1,501 new sessions in a 40 s run of two processes, each a
PostgreSQL backend started, and PostgreSQL took 13.5 % of the machine (BENCHMARKS.md "bench server
and bench store")."""
POSTGRES_POOL_OVERFLOW: Final = 5
"""Connections opened past the pool for a burst, and closed after it. Two processes at most
hold 50 of PostgreSQL's default 100."""

_DRIVERS: Final = {
    "sqlite": "sqlite+aiosqlite",
    "sqlite+aiosqlite": "sqlite+aiosqlite",
    "postgres": "postgresql+asyncpg",
    "postgresql": "postgresql+asyncpg",
    "postgresql+asyncpg": "postgresql+asyncpg",
}


def sqlite_url(path: str | Path) -> str:
    """The URL of the SQLite database file at ``path``."""
    return f"sqlite+aiosqlite:///{Path(path).expanduser().resolve()}"


def default_sqlite_url(data_dir: str | Path) -> str:
    """The URL of the embedded database file in ``data_dir``."""
    return sqlite_url(Path(data_dir) / SQLITE_FILE)


def resolve_url(url: str | URL | None = None, data_dir: str | Path | None = None) -> URL:
    """The database to use: ``url``, else ``$DATABASE_URL``, else the SQLite file in
    ``data_dir``, ``$SPECBID_DATA_DIR`` or :data:`DEFAULT_DATA_DIR`, in that order."""
    chosen = url or os.environ.get("DATABASE_URL")
    if chosen:
        return database_url(chosen)
    folder = data_dir or os.environ.get("SPECBID_DATA_DIR") or DEFAULT_DATA_DIR
    return database_url(default_sqlite_url(folder))


def database_url(url: str | URL) -> URL:
    """``url`` with its async driver: ``postgresql://`` becomes ``postgresql+asyncpg://`` and
    ``sqlite://`` becomes ``sqlite+aiosqlite://``. Any other database or driver is refused."""
    parsed = make_url(url)
    driver = _DRIVERS.get(parsed.drivername)
    if driver is None:
        expected = "sqlite+aiosqlite:///PATH or postgresql+asyncpg://USER@HOST/DB"
        raise ValueError(f"unsupported database URL {parsed!r}: expected {expected}")
    return parsed.set(drivername=driver)


def sqlite_path(url: str | URL) -> Path | None:
    """The file of a SQLite URL; None for any other database."""
    target = database_url(url)
    if target.get_backend_name() != "sqlite" or not target.database:
        return None
    return Path(target.database).expanduser()


def create_folder(url: str | URL) -> None:
    """Create the folder of a SQLite database file if it is missing (nothing for PostgreSQL)."""
    path = sqlite_path(url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)


def create_engine(
    url: str | URL,
    *,
    synchronous: str = SQLITE_SYNCHRONOUS,
    connect_args: dict[str, Any] | None = None,
    make_folder: bool = True,
) -> AsyncEngine:
    """An :class:`AsyncEngine` for ``url``, set up as the module docstring says.

    For a SQLite file, its folder is created if missing, unless ``make_folder`` is false (then
    :func:`create_folder` does it when the caller is ready to). ``connect_args`` go to the
    driver (for asyncpg, e.g. ``{"server_settings": {"search_path": "…"}}``).
    """
    target = database_url(url)
    serializer = encode_json
    args = dict(connect_args or {})
    if target.get_backend_name() != "sqlite":
        return create_async_engine(
            target,
            json_serializer=serializer,
            connect_args=args,
            pool_size=POSTGRES_POOL_SIZE,
            max_overflow=POSTGRES_POOL_OVERFLOW,
        )
    if synchronous.upper() not in ("FULL", "NORMAL", "EXTRA"):
        raise ValueError(f"expected synchronous FULL, NORMAL or EXTRA, got {synchronous!r}")
    if not target.database or target.database == ":memory:" or "mode=memory" in str(target):
        raise ValueError(
            f"expected a SQLite file, got {target!r}: for a database in memory, use "
            "spectacular_bid.service.memory.InMemoryStore"
        )
    if make_folder:
        create_folder(target)
    engine = create_async_engine(target, json_serializer=serializer, connect_args=args)
    _set_up_sqlite(engine, synchronous.upper())
    return engine


def for_writing(engine: AsyncEngine) -> AsyncEngine:
    """The same engine (same pool) whose transactions begin with ``BEGIN IMMEDIATE`` on SQLite."""
    return engine.execution_options(**{SQLITE_BEGIN: "IMMEDIATE"})


WAL_TRIES: Final = 100
"""How many times (50 ms apart) a connection tries to put a new file in WAL mode while another
holds it: SQLite's busy timeout does not cover that switch."""


def _use_wal(cursor: Any) -> None:
    """WAL mode, which a file keeps once set. Only a new file needs the switch, and when
    several servers start together on it (OPERATIONS.md "Running it for real") one may be migrating
    it in a transaction: the switch then fails at once as ``database is locked``, so it is tried
    again until the first server's transaction is done."""
    for _ in range(WAL_TRIES - 1):
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except Exception as exc:  # the driver's OperationalError, through its async adapter
            if "database is locked" not in str(exc):
                raise
            time.sleep(0.05)
    cursor.execute("PRAGMA journal_mode = WAL")


def set_up_connection(dbapi_connection: Any, synchronous: str) -> None:
    """Set up a new SQLite connection as the module docstring says: the engine's own
    connections, and the writer's direct one (``store.sqlite_batches``)."""
    # The caller, not the driver, begins transactions (see _on_begin).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _use_wal(cursor)
        cursor.execute(f"PRAGMA synchronous = {synchronous}")
        # Checkpoints run in the store's background thread (SqlStore), never inside a
        # player's commit: a checkpoint syncs the database file and would be the slowest
        # commit of all.
        cursor.execute("PRAGMA wal_autocheckpoint = 0")
        # When the log starts again from its beginning, its file is cut back to this.
        cursor.execute(f"PRAGMA journal_size_limit = {REWIND_BYTES}")
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


_SYNCHRONOUS_NAMES: Final = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}


async def synchronous_of(engine: AsyncEngine) -> str:
    """The ``synchronous`` setting of ``engine``'s SQLite connections, by name."""
    async with engine.connect() as conn:
        level = await conn.scalar(text("PRAGMA synchronous"))
    return _SYNCHRONOUS_NAMES[int(level)]


def _set_up_sqlite(engine: AsyncEngine, synchronous: str) -> None:
    sync_engine = engine.sync_engine

    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: object) -> None:
        set_up_connection(dbapi_connection, synchronous)

    @event.listens_for(sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(SQLITE_BEGIN, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")
