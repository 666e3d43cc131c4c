"""The single writer: group commit with durability order.

Every write of the store — players, accounts, match headers, rounds, events, ratings — goes through
one queue and one task. The task takes everything that was queued while its previous commit ran and
commits it in one transaction (group commit), then resolves each caller's future: a caller hears
back only once its rows are durable (the durability order, OPERATIONS.md "Storage"). One writer per
database also means SQLite never sees two writers of ours at once, and each transaction begins with
``BEGIN IMMEDIATE`` (:func:`~spectacular_bid.store.engine.for_writing`), so ``database is locked``
cannot surface.

Within a transaction the writes are applied kind by kind — players, then changes to accounts (in
queue order), then match headers (the last save of each match wins), then rounds, then events,
then ratings (in queue order), then imported matches (each whole) —
which gives the same final state as their queue order, because only later kinds refer to earlier
ones (an event needs its match, a rating its match and players) and the changes whose order
matters among themselves keep it (a player's second rating of a batch starts from its first).
One write may hold rows of several kinds (a version's events with the round row and the match
header it changes, and the ratings its ending makes): they are stored together or not at all.

When a batch's transaction fails, the batch is tried once more in one transaction with a
savepoint around each caller's writes, so that one bad write (a duplicate version, an event of an
unknown match, a changed commitment) fails only its own caller with
:class:`~spectacular_bid.service.ports.StorageError` and stores none of its rows, while the other
callers' writes are committed. If that transaction fails too (the database is gone, the disk is
full), every caller of the batch gets ``StorageError`` and none of their rows are stored. (A
batch of one write is not tried again: its failure is already its own.)

The writer holds one connection between batches and opens a new one after any failure.

With a ``fence`` (``store.leases``), every transaction begins with it: it renews the server's
lease, or finds it lost and raises :class:`~spectacular_bid.service.ports.LeaseLostError`, which
fails the whole batch at once (no isolated retry: no write of a server that lost its lease may
be stored). A match's first header is stored with the writer's ``owner`` as its owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final

from sqlalchemy import delete, func, insert, select, tuple_
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from spectacular_bid.service.ports import LeaseLostError, StorageError
from spectacular_bid.service.telemetry import NO_TELEMETRY, Telemetry
from spectacular_bid.store.engine import for_writing
from spectacular_bid.store.leases import owner_changes
from spectacular_bid.store.models import ChatLine, Match, MatchEvent, MatchOwner, Player, Round
from spectacular_bid.store.records import EVENT_COLUMNS
from spectacular_bid.store.sqlite_batches import MAX_PARAMETERS, SqliteBatches, insert_sql, takes
from spectacular_bid.store.writes import (
    Change,
    Part,
    RefusedWriteError,
    Write,
    WriteKind,
    storage_error,
)

log = logging.getLogger(__name__)

MAX_BATCH: Final = 5_000
"""At most this many queued writes go into one transaction; the rest wait for the next."""
RELEASE_CHUNK: Final = 100
"""At most this many callers of a batch are told its outcome in one turn of the event loop.

Each caller that hears back goes on in the loop's next turn: the actor publishes the version's
frames to every socket of its match (about 0.2 ms at 2,000 live matches). Told all at once, a
batch that a slow commit let grow (a WAL catch-up, a busy disk: ``store.checkpoint``) made one
turn as long as its callers together. ``specbid bench server`` at 2,000 matches with a 1 s
stall put in the writer every 40 s showed loop pauses of 76-132 ms, all of them CPU spent by the
loop; the one-hour run's single 399 ms pause was of that kind. In chunks, the lag monitor, the
flag timers and the sockets run between them."""


class GroupCommitWriter:
    def __init__(
        self,
        engine: AsyncEngine,
        *,
        max_batch: int = MAX_BATCH,
        release_chunk: int = RELEASE_CHUNK,
        fence: Change | None = None,
        owner: str | None = None,
        telemetry: Telemetry = NO_TELEMETRY,
    ) -> None:
        self._engine = for_writing(engine)
        self._telemetry = telemetry
        self._max_batch = max_batch
        self._release_chunk = release_chunk
        self._fence = fence
        self.owner = owner
        """The server id a new match's owner row names (changed when the server registers
        again after losing its lease, ``store.leases``)."""
        self._queue: asyncio.Queue[Write | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._conn: AsyncConnection | None = None
        self._accepting = False
        self._between: Callable[[], Awaitable[None]] | None = None
        self.direct: SqliteBatches | None = None
        """Set before :meth:`start` on a SQLite file: the batches of a match's rows go this
        way, past SQLAlchemy (``store.sqlite_batches``); closed with the writer."""
        self.batches = 0
        """Transactions committed so far (for tests and the benchmark)."""

    def start(self) -> None:
        if self._task is not None:
            raise RuntimeError("the writer has already been started")
        self._accepting = True
        self._task = asyncio.get_running_loop().create_task(self._run(), name="store-writer")

    async def close(self) -> None:
        """Write everything already queued, then stop."""
        if self._task is None:
            return
        if self._accepting:
            self._accepting = False
            self._queue.put_nowait(None)
        await asyncio.shield(self._task)

    async def write(self, kind: WriteKind, rows: list[Any], what: str) -> None:
        """Queue a write and return once it is committed, or raise :class:`StorageError`."""
        await self.write_parts(((kind, rows),), what)

    async def write_parts(self, parts: tuple[Part, ...], what: str) -> None:
        """Like :meth:`write`, for rows of several kinds that are committed together or not at
        all: they share one transaction and, when a batch is isolated, one savepoint."""
        if not self._accepting:
            raise StorageError(f"the store is not open, so {what} was not stored: call start()")
        future = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(Write(parts, what, future))
        try:
            await future
        finally:
            del future  # a failure's traceback would hold it, and it the failure: a cycle

    def before_next_batch(self, work: Callable[[], Awaitable[None]]) -> None:
        """Have ``work`` run before the next batch begins, while nothing is being written (the
        WAL's catch-up checkpoint, ``store.checkpoint``). An idle writer writes nothing, so it
        is not woken for it; a later request replaces one not yet run."""
        self._between = work

    # -- the writer task ------------------------------------------------------------------

    async def _run_between(self) -> None:
        work, self._between = self._between, None
        if work is None:
            return
        try:
            await work()
        except Exception:  # the writes must go on whatever it was
            log.exception("the work run between two batches failed")

    async def _run(self) -> None:
        batch: list[Write] = []
        try:
            stopping = False
            while not stopping:
                first = await self._queue.get()
                if first is None:
                    break
                if self._between is not None:
                    await self._run_between()
                batch = [first]
                while len(batch) < self._max_batch and not self._queue.empty():
                    queued = self._queue.get_nowait()
                    if queued is None:
                        stopping = True
                        break
                    batch.append(queued)
                await self._commit(batch)
                batch = []
        finally:
            self._accepting = False
            await self._drop_connection()
            if self.direct is not None:
                await self.direct.close()
            pending = batch + [w for w in _drain(self._queue) if w is not None]
            for write in pending:
                _fail(write, StorageError(f"the store closed before {write.what} was stored"))

    async def _commit(self, batch: list[Write]) -> None:
        started = time.perf_counter()
        try:
            await self._transaction(batch, isolated=False)
        except LeaseLostError as lost:
            for write in batch:
                write.error = lost
            await self._release(batch)
            return
        except Exception as exc:
            if len(batch) == 1:
                _fail(batch[0], storage_error(batch[0], exc))
                return
            log.warning("group commit of %d writes failed (%s); isolating them", len(batch), exc)
            for write in batch:
                write.error = None
            try:
                await self._transaction(batch, isolated=True)
            except Exception as again:
                log.error("store write failed for %d writes: %s", len(batch), again)
                for write in batch:
                    write.error = storage_error(write, again)
                await self._release(batch)
                return
        self.batches += 1
        self._telemetry.batch_committed(time.perf_counter() - started, len(batch))
        await self._release(batch)

    async def _release(self, batch: list[Write]) -> None:
        """Tell each caller of ``batch`` its write's outcome (its ``error``, or success),
        :data:`RELEASE_CHUNK` callers per turn of the loop."""
        for start in range(0, len(batch), self._release_chunk):
            if start:
                await asyncio.sleep(0)
            for write in batch[start : start + self._release_chunk]:
                if write.error is not None:
                    _fail(write, write.error)
                elif not write.future.done():
                    write.future.set_result(None)

    async def _connection(self) -> AsyncConnection:
        """The writer's own connection, held between batches (no pool round trip per commit)."""
        conn = self._conn
        if conn is None or conn.closed or conn.invalidated:
            self._conn = conn = await self._engine.connect()
        return conn

    async def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()

    async def _transaction(self, batch: Sequence[Write], *, isolated: bool) -> None:
        if self.direct is not None and takes(batch):
            await self.direct.apply(batch, isolated=isolated)
            return
        conn = await self._connection()
        try:
            await self._apply_in_transaction(conn, batch, isolated=isolated)
        except BaseException:
            await self._drop_connection()  # the next batch starts on a fresh connection
            raise

    async def _apply_in_transaction(
        self, conn: AsyncConnection, batch: Sequence[Write], *, isolated: bool
    ) -> None:
        async with conn.begin():
            if self._fence is not None:
                await self._fence(conn)
            if not isolated:
                await _apply(conn, batch, self.owner)
                return
            for write in batch:
                try:
                    async with conn.begin_nested():
                        await _apply(conn, [write], self.owner)
                except (RefusedWriteError, SQLAlchemyError) as exc:
                    write.error = storage_error(write, exc)


async def _apply(conn: AsyncConnection, batch: Sequence[Write], owner: str | None) -> None:
    by_kind: dict[WriteKind, list[Any]] = {kind: [] for kind in WriteKind}
    for write in batch:
        for kind, rows in write.parts:
            by_kind[kind].extend(rows)
    for change in by_kind[WriteKind.SERVER]:
        await change(conn)
    if by_kind[WriteKind.PLAYER]:
        await conn.execute(insert(Player), by_kind[WriteKind.PLAYER])
    for change in by_kind[WriteKind.ACCOUNT]:
        await change(conn)
    if by_kind[WriteKind.MATCH]:
        last_of_each = {row["id"]: row for row in by_kind[WriteKind.MATCH]}
        await conn.execute(_upsert_match(conn.dialect.name), list(last_of_each.values()))
        if owner is not None:
            live, ended = owner_changes(last_of_each.values())
            if live:
                owned = [{"match_id": match_id, "server_id": owner} for match_id in live]
                await conn.execute(_adopt_match(conn.dialect.name), owned)
            if ended:
                await conn.execute(delete(MatchOwner).where(MatchOwner.match_id.in_(ended)))
    if by_kind[WriteKind.ROUND]:
        await _save_rounds(conn, by_kind[WriteKind.ROUND])
    if by_kind[WriteKind.EVENTS]:
        await _insert_events(conn, by_kind[WriteKind.EVENTS])
    if by_kind[WriteKind.CHAT]:
        await conn.execute(insert(ChatLine), by_kind[WriteKind.CHAT])
    for change in by_kind[WriteKind.RATING]:
        await change(conn)
    for record in by_kind[WriteKind.IMPORT]:
        if record["players"]:
            await conn.execute(insert(Player), record["players"])
        await conn.execute(insert(Match), [record["match"]])
        if record["rounds"]:
            await conn.execute(insert(Round), record["rounds"])
        if record["events"]:
            await _insert_events(conn, record["events"])


async def _insert_events(conn: AsyncConnection, rows: list[tuple[Any, ...]]) -> None:
    """Insert rows of :func:`~spectacular_bid.store.records.event_values` through the driver.

    On SQLite, one multi-row INSERT per batch: ``executemany`` would release and take back the
    GIL around each row's step, and each time it is taken back while the event loop is busy
    costs up to the interpreter's switch interval (5 ms), so a batch's commit time would grow
    with the load of the loop. asyncpg pipelines ``executemany`` on the loop itself.
    """
    table = MatchEvent.__tablename__
    if conn.dialect.paramstyle == "numeric_dollar":
        columns = ", ".join(EVENT_COLUMNS)
        marks = ", ".join(f"${n}" for n in range(1, len(EVENT_COLUMNS) + 1))
        await conn.exec_driver_sql(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)
        return
    per_statement = MAX_PARAMETERS // len(EVENT_COLUMNS)
    for start in range(0, len(rows), per_statement):
        chunk = rows[start : start + per_statement]
        flat = tuple(itertools.chain.from_iterable(chunk))
        await conn.exec_driver_sql(insert_sql(table, EVENT_COLUMNS, len(chunk)), flat)


@functools.cache
def _upsert_match(dialect: str) -> Any:
    """One statement per dialect, made once: each ``excluded`` makes an alias of the table whose
    columns and it refer to each other, and one made per write was a reference cycle that the
    server's collector froze and so kept (web.collector), 357 of them in 20 minutes."""
    stmt = postgresql.insert(Match) if dialect == "postgresql" else sqlite.insert(Match)
    columns = [c.name for c in Match.__table__.columns if not c.primary_key]
    return stmt.on_conflict_do_update(
        index_elements=[Match.id], set_={name: stmt.excluded[name] for name in columns}
    )


@functools.cache
def _adopt_match(dialect: str) -> Any:
    """A match's owner row, made with its first header; a later header leaves it as it is (a
    claim by a peer moves it, ``store.leases``)."""
    stmt = postgresql.insert(MatchOwner) if dialect == "postgresql" else sqlite.insert(MatchOwner)
    return stmt.on_conflict_do_nothing(index_elements=[MatchOwner.match_id])


async def _save_rounds(conn: AsyncConnection, rows: Sequence[dict[str, Any]]) -> None:
    """Each round row inserted, or its salt and deck revealed (D4) over a stored row of the same
    commitment; a row whose commitment differs from the stored one (or from an earlier row of
    the batch) is refused.

    One statement for the whole batch: a query and a write per row, each awaited in turn, was
    half of the writer's time on PostgreSQL with two processes (``specbid bench server``), and
    each of them waited for a turn of a busy event loop. A round's rows of one batch (dealt,
    then ended) are merged first, as one statement may not change a row twice."""
    merged: dict[tuple[str, int], dict[str, Any]] = {}
    for row in rows:
        key = (row["match_id"], row["number"])
        earlier = merged.get(key)
        if earlier is None:
            merged[key] = dict(row)
        elif earlier["commitment"] != row["commitment"]:
            raise RefusedWriteError(
                f"it is committed to {earlier['commitment']}, not {row['commitment']}"
            )
        else:
            earlier.update({k: row[k] for k in ("salt", "deck") if row[k] is not None})
    saved = await conn.execute(_upsert_round(conn.dialect.name), list(merged.values()))
    if len(saved.all()) == len(merged):
        return
    keys = [tuple_(Round.match_id, Round.number).in_(list(merged))]
    stored = await conn.execute(select(Round.match_id, Round.number, Round.commitment).where(*keys))
    for match_id, number, commitment in stored:
        wanted = merged[match_id, number]["commitment"]
        if commitment != wanted:
            raise RefusedWriteError(f"it is committed to {commitment}, not {wanted}")
    raise RefusedWriteError("a round's commitment differs from the stored one")


@functools.cache
def _upsert_round(dialect: str) -> Any:
    """Insert a round, or fill in its salt and deck where its commitment is the stored one;
    the rows it returns are those saved."""
    stmt = postgresql.insert(Round) if dialect == "postgresql" else sqlite.insert(Round)
    return stmt.on_conflict_do_update(
        index_elements=[Round.match_id, Round.number],
        set_={
            "salt": func.coalesce(stmt.excluded.salt, Round.salt),
            "deck": func.coalesce(stmt.excluded.deck, Round.deck),
        },
        where=Round.commitment == stmt.excluded.commitment,
    ).returning(Round.match_id)


def _fail(write: Write, error: StorageError) -> None:
    if not write.future.done():
        write.future.set_exception(error)


def _drain(queue: asyncio.Queue[Write | None]) -> list[Write | None]:
    items: list[Write | None] = []
    with contextlib.suppress(asyncio.QueueEmpty):
        while True:
            items.append(queue.get_nowait())
    return items
