"""A batch of a match's rows written to SQLite in one trip to one thread (server CPU).

Through SQLAlchemy's asyncio adapter, every statement of a batch is a trip of its own: the
statement is looked up in the compiled cache and given an execution context, a greenlet switches,
and aiosqlite hands the call to its thread and the result back to the event loop. A batch is
``BEGIN``, the lease's fence, the match headers and their owner rows, the round rows, the events
and ``COMMIT``: six to ten trips. At 2,000 live matches (``specbid bench server``) the server
spent 87 % of a core, and 47 % with the in-memory store in place of SQLite: the storage path was
about as costly as the whole game besides.

Here the whole transaction is one call, in one thread, on a connection of the standard library's
``sqlite3`` set up as the engine's own connections are (``store.engine``). Each kind of row is one
statement (multi-row ``VALUES``; a round row is an upsert that refuses a changed commitment), and
the values are converted by the bind processors SQLAlchemy itself uses for those columns, so what
is stored is the same byte for byte (``tests/store/test_sqlite_batches.py`` reads both back). Few
statements matter beyond their own cost: each gives the GIL away and must take it back from a busy
event loop, which can take up to the interpreter's switch interval.

Only the kinds a match's life writes go this way: players, match headers, rounds, events and chat
lines. A batch holding anything else (a lease takeover, an account change, a rating, an import:
statements written for SQLAlchemy's connection) is applied by the writer through SQLAlchemy as
before. Both are serial, from the one writer task, so they never overlap.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.store.engine import set_up_connection, synchronous_of
from spectacular_bid.store.leases import RENEW_QMARK, Lease, owner_changes
from spectacular_bid.store.models import (
    Base,
    ChatLine,
    Match,
    MatchEvent,
    MatchOwner,
    Player,
    Round,
)
from spectacular_bid.store.records import EVENT_COLUMNS
from spectacular_bid.store.writes import RefusedWriteError, Write, WriteKind, storage_error

KINDS: Final = frozenset(
    {WriteKind.PLAYER, WriteKind.MATCH, WriteKind.ROUND, WriteKind.EVENTS, WriteKind.CHAT}
)
"""The kinds of rows written here; a batch with any other goes through SQLAlchemy."""
MAX_PARAMETERS: Final = 32_766
"""SQLite's default limit on the bound parameters of one statement."""
_ROW_ERRORS: Final = (RefusedWriteError, sqlite3.Error, ValueError, TypeError)
"""What one write's rows may raise: a refusal of the store's own, the database's (a duplicate
version, a missing match), or a value no column takes (SQLAlchemy would raise these as a
``StatementError``)."""

Processor = Callable[[Any], Any]


def takes(batch: Iterable[Write]) -> bool:
    """Whether every row of ``batch`` is of a kind written here."""
    return all(kind in KINDS for write in batch for kind, _ in write.parts)


def insert_sql(table: str, columns: Sequence[str], rows: int, suffix: str = "") -> str:
    """``INSERT`` of ``rows`` rows of ``columns`` in one statement, with ``?`` parameters."""
    one_row = "(" + ", ".join("?" * len(columns)) + ")"
    values = ", ".join(itertools.repeat(one_row, rows))
    names = ", ".join(f'"{name}"' for name in columns)
    return f'INSERT INTO "{table}" ({names}) VALUES {values}{suffix}'


def insert_chunks(
    conn: sqlite3.Connection,
    table: str,
    columns: Sequence[str],
    rows: Sequence[tuple[Any, ...]],
    suffix: str = "",
) -> int:
    """Insert ``rows`` in as few statements as SQLite's parameter limit allows; the count of
    rows the statements changed."""
    per_statement = MAX_PARAMETERS // len(columns)
    changed = 0
    for start in range(0, len(rows), per_statement):
        chunk = rows[start : start + per_statement]
        flat = tuple(itertools.chain.from_iterable(chunk))
        changed += conn.execute(insert_sql(table, columns, len(chunk), suffix), flat).rowcount
    return changed


class _Columns:
    """One table's rows as the driver's parameters, converted by SQLAlchemy's own bind
    processors for its columns (a timestamp as SQLite's text, JSON through the engine's
    serializer, a boolean as 0 or 1)."""

    def __init__(self, model: type[Base], dialect: Dialect) -> None:
        table = Base.metadata.tables[model.__tablename__]
        self.table = table.name
        self._processors: dict[str, Processor | None] = {
            column.name: column.type.bind_processor(dialect) for column in table.columns
        }

    def values(self, columns: Sequence[str], row: dict[str, Any]) -> tuple[Any, ...]:
        values = []
        for name in columns:
            value = row[name]
            process = self._processors[name]
            values.append(value if process is None else process(value))
        return tuple(values)

    def rows(self, rows: Sequence[dict[str, Any]]) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
        """The columns of ``rows`` (each kind's rows are made by one function, with the same
        keys) and each row's values in their order."""
        columns = tuple(rows[0])
        if any(len(row) != len(columns) for row in rows):
            raise ValueError(f"the rows of {self.table} do not all have the columns {columns}")
        return columns, [self.values(columns, row) for row in rows]


class SqliteBatches:
    """The writer's way to a SQLite file that skips SQLAlchemy: see the module docstring."""

    def __init__(
        self, path: str, dialect: Dialect, synchronous: str, lease: Lease | None = None
    ) -> None:
        self._path = path
        self._synchronous = synchronous
        self._lease = lease
        self._players = _Columns(Player, dialect)
        self._matches = _Columns(Match, dialect)
        self._rounds = _Columns(Round, dialect)
        self._chat = _Columns(ChatLine, dialect)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-writes")
        """One thread, so the connection is only ever used by the thread that made it."""
        self._conn: sqlite3.Connection | None = None

    @classmethod
    async def of(cls, engine: AsyncEngine, lease: Lease | None = None) -> SqliteBatches | None:
        """The direct way to ``engine``'s database file, set up as its connections are; None
        for any database but a SQLite file."""
        path = engine.url.database
        if engine.url.get_backend_name() != "sqlite" or not path:
            return None
        return cls(path, engine.dialect, await synchronous_of(engine), lease)

    async def apply(self, batch: Sequence[Write], *, isolated: bool) -> None:
        """Store ``batch`` in one transaction, as ``GroupCommitWriter`` does (the fence first;
        with ``isolated``, a savepoint around each write, whose failure is kept as its
        ``error``), or raise and store none of it."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._thread, self._transaction, batch, isolated)

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._thread, self._drop)
        self._thread.shutdown(wait=False)

    # -- in the thread --------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(self._path, isolation_level=None)
            try:
                set_up_connection(conn, self._synchronous)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _drop(self) -> None:
        """Close the connection (an open transaction is rolled back): the next batch starts on
        a fresh one, as the writer's SQLAlchemy connection does after a failure."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            conn.close()

    def _transaction(self, batch: Sequence[Write], isolated: bool) -> None:
        conn = self._connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
            self._fence(conn)
            if isolated:
                for write in batch:
                    self._apply_alone(conn, write)
            else:
                self._apply(conn, batch)
            self._commit(conn)
        except BaseException:
            self._drop()
            raise

    def _commit(self, conn: sqlite3.Connection) -> None:
        conn.execute("COMMIT")

    def _fence(self, conn: sqlite3.Connection) -> None:
        if self._lease is not None:
            self._lease.renewed(conn.execute(RENEW_QMARK, self._lease.renewal()).rowcount)

    def _apply_alone(self, conn: sqlite3.Connection, write: Write) -> None:
        conn.execute('SAVEPOINT "write"')
        try:
            self._apply(conn, (write,))
        except _ROW_ERRORS as exc:
            conn.execute('ROLLBACK TO "write"')
            write.error = storage_error(write, exc)
        conn.execute('RELEASE "write"')

    def _apply(self, conn: sqlite3.Connection, batch: Sequence[Write]) -> None:
        """The rows of ``batch`` kind by kind, in the writer's order (``store.writer``)."""
        by_kind: dict[WriteKind, list[Any]] = {kind: [] for kind in KINDS}
        for write in batch:
            for kind, rows in write.parts:
                by_kind[kind].extend(rows)
        if by_kind[WriteKind.PLAYER]:
            self._insert(conn, self._players, by_kind[WriteKind.PLAYER])
        if by_kind[WriteKind.MATCH]:
            self._save_matches(conn, by_kind[WriteKind.MATCH])
        if by_kind[WriteKind.ROUND]:
            self._save_rounds(conn, by_kind[WriteKind.ROUND])
        if by_kind[WriteKind.EVENTS]:
            insert_chunks(conn, MatchEvent.__tablename__, EVENT_COLUMNS, by_kind[WriteKind.EVENTS])
        if by_kind[WriteKind.CHAT]:
            self._insert(conn, self._chat, by_kind[WriteKind.CHAT])

    def _insert(
        self, conn: sqlite3.Connection, table: _Columns, rows: Sequence[dict[str, Any]]
    ) -> None:
        columns, values = table.rows(rows)
        insert_chunks(conn, table.table, columns, values)

    def _save_matches(self, conn: sqlite3.Connection, rows: Sequence[dict[str, Any]]) -> None:
        """Each match's last header of the batch, inserted or replacing the stored one; a new
        match's owner row names this server, an ended one's goes (``store.leases``)."""
        last_of_each = list({row["id"]: row for row in rows}.values())
        columns, values = self._matches.rows(last_of_each)
        updates = ", ".join(f'"{name}" = excluded."{name}"' for name in columns if name != "id")
        upsert = f' ON CONFLICT ("id") DO UPDATE SET {updates}'
        insert_chunks(conn, self._matches.table, columns, values, upsert)
        if self._lease is None:
            return
        live, ended = owner_changes(last_of_each)
        if live:
            owned = [(match_id, self._lease.server_id) for match_id in live]
            insert_chunks(
                conn,
                MatchOwner.__tablename__,
                ("match_id", "server_id"),
                owned,
                ' ON CONFLICT ("match_id") DO NOTHING',
            )
        for start in range(0, len(ended), MAX_PARAMETERS):
            chunk = ended[start : start + MAX_PARAMETERS]
            marks = ", ".join(["?"] * len(chunk))
            conn.execute(
                f'DELETE FROM "{MatchOwner.__tablename__}" WHERE "match_id" IN ({marks})', chunk
            )

    def _save_rounds(self, conn: sqlite3.Connection, rows: Sequence[dict[str, Any]]) -> None:
        """Each round row inserted, or its salt and deck revealed (D4) over a stored row of the
        same commitment; a row whose commitment differs from the stored one is refused."""
        columns, values = self._rounds.rows(rows)
        table = self._rounds.table
        upsert = (
            ' ON CONFLICT ("match_id", "number") DO UPDATE SET'
            f' "salt" = coalesce(excluded."salt", "{table}"."salt"),'
            f' "deck" = coalesce(excluded."deck", "{table}"."deck")'
            f' WHERE "{table}"."commitment" = excluded."commitment"'
        )
        if insert_chunks(conn, table, columns, values, upsert) == len(rows):
            return
        for row in rows:
            found = conn.execute(
                f'SELECT "commitment" FROM "{table}" WHERE "match_id" = ? AND "number" = ?',
                (row["match_id"], row["number"]),
            ).fetchone()
            if found is not None and found[0] != row["commitment"]:
                raise RefusedWriteError(f"it is committed to {found[0]}, not {row['commitment']}")
        raise RefusedWriteError("a round's commitment differs from the stored one")
