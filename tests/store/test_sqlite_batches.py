"""The writer's direct way to SQLite (``store.sqlite_batches``) stores exactly what the way
through SQLAlchemy stores, column by column, refuses what it refuses, and is fenced by the
server's lease like every other write."""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from spectacular_bid.service.ports import (
    ChatRecord,
    LeaseLostError,
    MatchStatus,
    RoundRecord,
    StorageError,
)
from spectacular_bid.store.engine import create_engine, sqlite_url
from spectacular_bid.store.leases import Lease
from spectacular_bid.store.migrate import upgrade_to_head
from spectacular_bid.store.repository import SqlStore
from spectacular_bid.store.sqlite_batches import MAX_PARAMETERS, insert_sql

from .factories import WALL_MS, event, match, player

TABLES = {
    "player": "id",
    "match": "id",
    "match_owner": "match_id",
    "round": "match_id, number",
    "match_event": "match_id, version",
    "chat_line": "match_id, number",
}


async def _store(folder: Path, *, direct: bool, lease: Lease | None = None) -> SqlStore:
    engine = create_engine(sqlite_url(folder / "specbid.sqlite3"))
    await upgrade_to_head(engine)
    store = SqlStore(engine, owns_engine=True, lease=lease)
    await store.start()
    if not direct:  # the writer's way for every other batch, taken here for all
        batches = store.writer.direct
        assert batches is not None, "a SQLite store writes its matches' rows directly"
        await batches.close()
        store.writer.direct = None
    return store


async def _write_a_match_s_life(store: SqlStore) -> None:
    """Every kind of row the direct way takes, with the values that test their columns."""
    await asyncio.gather(store.add_player(player("ann")), store.add_player(player("bøb ✓")))
    header = replace(match("m1", second="p-bøb ✓"), imported_id=None)
    await store.save_match(header)
    await store.append([event("m1", 1)], rounds=[RoundRecord("m1", 1, "c" * 64)])
    await store.append(
        [event("m1", 2, received_ms=2**41), event("m1", 3)],
        rounds=[RoundRecord("m1", 1, "c" * 64, "5a17", ["0-0", "6-6"])],
        match=replace(header, status=MatchStatus.FINISHED, winner="first", ended_at_ms=WALL_MS),
    )
    await store.add_chat_line(
        ChatRecord("m1", 1, "players", "p-ann", "ann", "first", "Fünf – ✓ 'quoted'", None, WALL_MS)
    )
    # A live match keeps its owner row; m1's went with the header that ended it.
    await store.save_match(replace(match("m2", second="p-bøb ✓"), imported_id=None))


def _rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        return {
            table: conn.execute(f'SELECT * FROM "{table}" ORDER BY {order}').fetchall()
            for table, order in TABLES.items()
        }
    finally:
        conn.close()


async def test_the_direct_way_stores_what_sqlalchemy_stores(tmp_path: Path) -> None:
    stored = {}
    for direct in (True, False):
        folder = tmp_path / ("direct" if direct else "sqlalchemy")
        lease = Lease("s" * 32)
        store = await _store(folder, direct=direct, lease=lease)
        try:
            await _write_a_match_s_life(store)
            assert [e.version for e in await store.events("m1")] == [1, 2, 3]
        finally:
            await store.close()
        stored[direct] = _rows(folder / "specbid.sqlite3")
    assert all(stored[True][table] for table in TABLES), stored[True]
    assert stored[True] == stored[False]


async def test_a_changed_commitment_fails_its_own_write_alone(tmp_path: Path) -> None:
    store = await _store(tmp_path, direct=True)
    try:
        await asyncio.gather(store.add_player(player("ann")), store.add_player(player("bob")))
        await asyncio.gather(store.save_match(match("m1")), store.save_match(match("m2")))
        await store.append([event("m1", 1)], rounds=[RoundRecord("m1", 1, "a" * 64)])
        forged, fine = await asyncio.gather(
            store.append([event("m1", 2)], rounds=[RoundRecord("m1", 1, "b" * 64, "5a17")]),
            store.append([event("m2", 1)], rounds=[RoundRecord("m2", 1, "c" * 64)]),
            return_exceptions=True,
        )
        assert isinstance(forged, StorageError)
        assert f"it is committed to {'a' * 64}, not {'b' * 64}" in str(forged)
        assert fine is None
        assert await store.rounds("m1") == [RoundRecord("m1", 1, "a" * 64)]
        assert [e.version for e in await store.events("m1")] == [1]
        assert await store.rounds("m2") == [RoundRecord("m2", 1, "c" * 64)]
    finally:
        await store.close()


async def test_a_lost_lease_stores_nothing_more(tmp_path: Path) -> None:
    lease = Lease("s" * 32)
    store = await _store(tmp_path, direct=True, lease=lease)
    try:
        await asyncio.gather(store.add_player(player("ann")), store.add_player(player("bob")))
        await store.save_match(match("m1"))
        await store.append([event("m1", 1)])
        peer = sqlite3.connect(tmp_path / "specbid.sqlite3")
        with peer:  # a peer takes the lease over (store.leases)
            peer.execute("UPDATE server SET gone = 1, epoch = epoch + 1")
        peer.close()
        with pytest.raises(LeaseLostError):
            await store.append([event("m1", 2)])
        assert lease.lost
        with pytest.raises(LeaseLostError):  # and from now on without trying
            await store.append([event("m1", 2)])
        assert [e.version for e in await store.events("m1")] == [1]
    finally:
        await store.close()


async def test_a_batch_past_the_parameter_limit_is_split(tmp_path: Path) -> None:
    store = await _store(tmp_path, direct=True)
    try:
        await asyncio.gather(store.add_player(player("ann")), store.add_player(player("bob")))
        await store.save_match(match("m1"))
        count = MAX_PARAMETERS // 9 * 2 + 7  # three statements of event rows
        await store.append([event("m1", v) for v in range(1, count + 1)])
        assert [e.version for e in await store.events("m1")] == list(range(1, count + 1))
    finally:
        await store.close()


def test_insert_sql_names_every_column_and_row() -> None:
    assert insert_sql("match", ("id", "mode"), 2, " ON CONFLICT DO NOTHING") == (
        'INSERT INTO "match" ("id", "mode") VALUES (?, ?), (?, ?) ON CONFLICT DO NOTHING'
    )
