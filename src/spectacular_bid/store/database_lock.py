"""One server per database, for now (issue 9, item 12): the lock a server holds on its database.

A second server on the same database would run its start-up recovery (D5) and abort the first
one's live matches as if they had been left by a crash. So a server takes this lock before
anything touches the database — before the migrations, before recovery — and refuses to start
(:class:`DatabaseInUseError`) when another holds it: a refused server changes nothing.

Both kinds of lock belong to the process and die with it, on ``kill -9`` too, so a restart after
a crash is never blocked and there is no stale lock to clear by hand:

- **SQLite**: ``flock(LOCK_EX | LOCK_NB)`` on ``<database file>.lock`` beside the database file,
  held until the process closes it or exits. A ``flock`` belongs to one open file, not to the
  process (unlike the POSIX record locks SQLite puts on the database file itself), so a second
  server in the same process is refused too, and the file is separate so that the lock can be
  taken before the database file exists (a first start) and never mixes with SQLite's own locks.
  The lock file is left in place when released: deleting it would let a server lock a new file
  while another still holds the old one. No lock inside the database does the same job:
  ``PRAGMA locking_mode = EXCLUSIVE`` would shut out the server's own reader and checkpoint
  connections, and a row that says "in use" outlives a killed process.
- **PostgreSQL**: a session-level advisory lock, ``pg_try_advisory_lock`` on
  :data:`ADVISORY_LOCK_KEY`, on a connection of its own held open for the life of the server,
  outside the engine's pool. PostgreSQL releases it when that session ends, and a killed
  process's socket is closed by the OS. The connection is in autocommit: an idle open
  transaction could be ended by ``idle_in_transaction_session_timeout``, silently dropping the
  lock. Advisory locks are per database, so servers on different databases of one cluster do not
  see each other's.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from sqlalchemy import NullPool, text
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from spectacular_bid.store.engine import database_url, sqlite_path

ADVISORY_LOCK_NAME: Final = "spectacular-bid server"
ADVISORY_LOCK_KEY: Final = int.from_bytes(
    hashlib.sha256(ADVISORY_LOCK_NAME.encode()).digest()[:8], "big", signed=True
)
"""The advisory lock's 64-bit key: fixed, so every version of the server takes the same one."""
LOCK_SUFFIX: Final = ".lock"
APPLICATION_NAME: Final = "specbid server lock"
"""The lock connection's name in ``pg_stat_activity``, to tell which session holds it."""


class DatabaseInUseError(RuntimeError):
    """Another server holds the database's lock: this one must not start."""

    def __init__(self, database: str) -> None:
        super().__init__(
            f"another specbid server is already using the database at {database} "
            "(only one server per database for now)"
        )
        self.database = database


class DatabaseLock(Protocol):
    """A held lock; :meth:`release` lets the next server start."""

    async def release(self) -> None: ...


async def lock_database(url: str | URL) -> DatabaseLock:
    """Take the database's lock at once, or raise :class:`DatabaseInUseError`."""
    target = database_url(url)
    path = sqlite_path(target)
    if path is not None:
        return FileLock.take(path)
    return await AdvisoryLock.take(target)


def without_password(url: URL) -> str:
    """``url`` as a refusal shows it: all but the password (``URL.set(password=None)`` would
    keep it, and ``hide_password`` shows ``***``)."""
    shown = URL.create(
        url.drivername,
        username=url.username,
        host=url.host,
        port=url.port,
        database=url.database,
        query=url.query,
    )
    return shown.render_as_string(hide_password=False)


@dataclass
class FileLock:
    """The ``flock`` on the lock file beside a SQLite database file."""

    path: Path
    fd: int | None

    @classmethod
    def take(cls, database_file: Path) -> FileLock:
        path = database_file.with_name(database_file.name + LOCK_SUFFIX)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)  # not inherited by child processes
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DatabaseInUseError(str(database_file.resolve())) from None
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd)

    async def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the file releases its flock
            self.fd = None


@dataclass
class AdvisoryLock:
    """The advisory lock of a PostgreSQL session kept open for it."""

    engine: AsyncEngine
    connection: AsyncConnection | None

    @classmethod
    async def take(cls, url: URL) -> AdvisoryLock:
        async with AsyncExitStack() as undo:
            engine = create_async_engine(
                url,
                poolclass=NullPool,
                isolation_level="AUTOCOMMIT",
                connect_args={"server_settings": {"application_name": APPLICATION_NAME}},
            )
            undo.push_async_callback(engine.dispose)
            connection = await engine.connect()
            undo.push_async_callback(connection.close)
            query = text("SELECT pg_try_advisory_lock(:key)")
            if not await connection.scalar(query, {"key": ADVISORY_LOCK_KEY}):
                raise DatabaseInUseError(without_password(url))
            undo.pop_all()
        return cls(engine, connection)

    async def release(self) -> None:
        if self.connection is not None:
            try:
                await self.connection.close()  # the session ends, and its advisory locks
            finally:
                self.connection = None
                await self.engine.dispose()
