"""The single writer: durability order, group commit, failures that fail only their callers, and
no ``database is locked`` on SQLite."""

from __future__ import annotations

import asyncio
import collections
import gc
import json
import signal
import sqlite3
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.selectable import Alias

from spectacular_bid.service.ports import MatchStatus, RoundRecord, StorageError
from spectacular_bid.store.migrate import upgrade_to_head
from spectacular_bid.store.repository import SqlStore
from spectacular_bid.store.writer import RELEASE_CHUNK

from .conftest import Database
from .factories import event, match, player, seed


@contextmanager
def failing_commits(engine: AsyncEngine, store: SqlStore) -> Iterator[None]:
    """Make every commit of ``store``'s writer fail, as a full disk would, while inside the
    block: on SQLite the writer's own connection's (``store.sqlite_batches``), else the
    engine's."""
    direct = store.writer.direct

    def fail(*_args: object) -> None:
        raise OSError("disk full (injected)")

    if direct is not None:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(direct, "_commit", fail)
            yield
        return
    sa_event.listen(engine.sync_engine, "commit", fail)
    try:
        yield
    finally:
        sa_event.remove(engine.sync_engine, "commit", fail)


async def test_append_is_durable_when_it_returns(database: Database, store: SqlStore) -> None:
    await seed(store, "m1")
    await store.append([event("m1", 1), event("m1", 2)])
    # Another engine — another connection pool, as another process would have — sees it at once,
    # while the writer is still running.
    elsewhere = SqlStore(database.engine())
    assert await elsewhere.events("m1") == [event("m1", 1), event("m1", 2)]
    assert await elsewhere.match("m1") == match("m1")


async def test_concurrent_appends_share_commits(engine: AsyncEngine, store: SqlStore) -> None:
    matches = [f"m{i}" for i in range(100)]
    await seed(store, *matches)

    async def actor(match_id: str) -> None:
        for version in range(1, 6):
            await store.append([event(match_id, version)])

    before = store.writer.batches
    await asyncio.gather(*(actor(m) for m in matches))
    commits = store.writer.batches - before
    appends = len(matches) * 5
    assert 0 < commits <= appends // 10, f"{commits} commits for {appends} appends"
    for match_id in matches:
        assert [e.version for e in await store.events(match_id)] == [1, 2, 3, 4, 5]


async def test_one_bad_write_fails_only_its_caller(store: SqlStore) -> None:
    matches = [f"m{i}" for i in range(10)]
    await seed(store, *matches)
    await asyncio.gather(*(store.append([event(m, 1)]) for m in matches))
    batches = store.writer.batches

    results = await asyncio.gather(
        *(store.append([event(m, 2)]) for m in matches[:8]),
        store.append([event("m8", 2), event("m8", 1)]),  # out of order: refused before queueing
        store.append([event("m9", 1), event("m9", 2)]),  # version 1 is stored already
        store.append([event("m-nowhere", 1)]),  # no such match
        store.save_round("m0", 1, "a" * 64),
        return_exceptions=True,
    )

    assert results[:8] == [None] * 8
    assert results[-1] is None
    assert all(isinstance(r, StorageError) for r in results[8:11]), results
    assert "version 1 of m8 is not after 2" in str(results[8])
    assert "2 versions from version 1 of m9 was not stored" in str(results[9])
    assert "version 1 of m-nowhere was not stored" in str(results[10])
    assert store.writer.batches == batches + 1  # all in one transaction
    for m in matches[:8]:
        assert [e.version for e in await store.events(m)] == [1, 2]
    assert [e.version for e in await store.events("m8")] == [1]
    assert await store.events("m9") == [event("m9", 1)]
    assert await store.events("m-nowhere") == []
    assert len(await store.rounds("m0")) == 1


async def test_a_version_with_a_refused_round_row_fails_alone_and_whole(store: SqlStore) -> None:
    """In a shared transaction, one caller's events, round row and header share one savepoint:
    the forged commitment refuses that whole version and nothing else."""
    await seed(store, "m1", "m2")
    await store.append([event("m1", 1)], rounds=[RoundRecord("m1", 1, "a" * 64)])
    live = await store.match("m2")
    assert live is not None
    ended = replace(live, status=MatchStatus.FINISHED, winner="first", reason="balance")
    batches = store.writer.batches

    results = await asyncio.gather(
        store.append([event("m1", 2)], rounds=[RoundRecord("m1", 1, "c" * 64, "5a17", ["0-0"])]),
        store.append([event("m2", 1)], rounds=[RoundRecord("m2", 1, "b" * 64)], match=ended),
        return_exceptions=True,
    )

    assert isinstance(results[0], StorageError), results
    assert "version 2 of m1 was not stored" in str(results[0])
    assert results[1] is None
    assert store.writer.batches == batches + 1
    assert [e.version for e in await store.events("m1")] == [1]
    assert await store.rounds("m1") == [RoundRecord("m1", 1, "a" * 64)]
    assert [e.version for e in await store.events("m2")] == [1]
    assert await store.rounds("m2") == [RoundRecord("m2", 1, "b" * 64)]
    assert await store.match("m2") == ended


async def test_a_failed_transaction_fails_its_whole_batch(
    engine: AsyncEngine, store: SqlStore
) -> None:
    matches = [f"m{i}" for i in range(5)]
    await seed(store, *matches)
    with failing_commits(engine, store):
        results = await asyncio.gather(
            *(store.append([event(m, 1)]) for m in matches), return_exceptions=True
        )

    assert all(isinstance(r, StorageError) for r in results), results
    assert "version 1 of m0 was not stored: disk full (injected)" in str(results[0])
    for m in matches:
        assert await store.events(m) == []
    # The store goes on: the same versions can be written once the database recovers.
    await asyncio.gather(*(store.append([event(m, 1)]) for m in matches))
    for m in matches:
        assert await store.events(m) == [event(m, 1)]


async def test_a_match_written_before_its_events_in_one_batch(store: SqlStore) -> None:
    await asyncio.gather(
        store.add_player(player("ann")),
        store.add_player(player("bob")),
        store.save_match(match("m1")),
        store.append([event("m1", 1)]),
        store.save_round("m1", 1, "a" * 64),
        store.save_match(match("m2")),
    )
    assert await store.events("m1") == [event("m1", 1)]
    assert await store.match("m2") == match("m2")


async def test_close_writes_what_is_queued_then_refuses(engine: AsyncEngine) -> None:
    store = SqlStore(engine)
    with pytest.raises(StorageError, match="the store is not open, so player p-ann was not"):
        await store.add_player(player("ann"))
    await store.start()
    await seed(store, "m1")
    queued = [asyncio.create_task(store.append([event("m1", v)])) for v in (1, 2, 3)]
    await asyncio.sleep(0)  # one turn of the loop, not a wait: the appends are queued
    await store.close()
    await asyncio.gather(*queued)
    with pytest.raises(StorageError, match="not open"):
        await store.append([event("m1", 4)])
    assert [e.version for e in await store.events("m1")] == [1, 2, 3]


def _hold_write_lock(path: str, seconds: float, locked: threading.Event) -> None:
    """Another process's writer: hold SQLite's write lock for ``seconds``."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        locked.set()
        threading.Event().wait(seconds)
        conn.execute("COMMIT")
    finally:
        conn.close()


async def test_no_database_is_locked_with_competing_writers(sqlite_database: Database) -> None:
    engines = [sqlite_database.engine(), sqlite_database.engine()]
    await upgrade_to_head(engines[0])
    stores = [SqlStore(e) for e in engines]
    for s in stores:
        await s.start()
    try:
        await seed(stores[0], *(f"m{i}" for i in range(40)))
        locked = threading.Event()
        path = engines[0].url.database
        assert path is not None
        holder = threading.Thread(target=_hold_write_lock, args=(path, 0.3, locked))
        holder.start()
        await asyncio.to_thread(locked.wait, 5)

        async def actor(index: int) -> None:
            writer = stores[index % 2]
            for version in range(1, 11):
                await writer.append([event(f"m{index}", version)])
                if version % 3 == 0:
                    await stores[1 - index % 2].events(f"m{index}")

        await asyncio.gather(*(actor(i) for i in range(40)))
        await asyncio.to_thread(holder.join)
        for i in range(40):
            assert len(await stores[i % 2].events(f"m{i}")) == 10
    finally:
        for s in stores:
            await s.close()


CHILD = """
import asyncio, json, sys
from spectacular_bid.store.engine import create_engine
from spectacular_bid.store.repository import SqlStore
sys.path.insert(0, sys.argv[3])
from factories import event, seed

async def main() -> None:
    store = SqlStore(create_engine(sys.argv[1], connect_args=json.loads(sys.argv[2])))
    await store.start()
    await seed(store, "m1")
    version = 0
    while True:
        version += 1
        await store.append([event("m1", version)])
        print(version, flush=True)

asyncio.run(main())
"""


@pytest.mark.usefixtures("engine")  # the schema is at head
async def test_every_acknowledged_append_survives_kill_9(database: Database) -> None:
    """A writer process killed with SIGKILL loses nothing it was told was stored."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        database.url,
        json.dumps(database.connect_args),
        str(Path(__file__).parent),
        stdout=asyncio.subprocess.PIPE,
    )
    assert child.stdout is not None
    acknowledged = 0
    try:
        while acknowledged < 200:
            line = await asyncio.wait_for(child.stdout.readline(), timeout=30)
            assert line, "the child stopped early"
            acknowledged = int(line)
    finally:
        child.send_signal(signal.SIGKILL)
        await child.wait()
    stored = await SqlStore(database.engine()).events("m1")
    assert len(stored) >= acknowledged
    assert [e.version for e in stored] == list(range(1, len(stored) + 1))


async def test_work_asked_for_runs_before_the_next_batch_and_its_failure_stops_no_write(
    store: SqlStore,
) -> None:
    """The WAL's catch-up checkpoint (``store.checkpoint``) runs between two batches, while
    nothing is written; an idle writer is not woken for it."""
    await seed(store, "m1")
    seen: list[int] = []

    async def work() -> None:
        seen.append(len(await store.events("m1")))

    store.writer.before_next_batch(work)
    await asyncio.sleep(0.05)  # a window for a wrong wake-up: the work may not run in it
    assert seen == []
    await store.append([event("m1", 1)])
    assert seen == [0]  # it ran before version 1 was written

    async def broken() -> None:
        raise RuntimeError("a failing checkpoint")

    store.writer.before_next_batch(broken)
    await store.append([event("m1", 2)])
    await store.append([event("m1", 3)])
    assert [e.version for e in await store.events("m1")] == [1, 2, 3]
    assert seen == [0]


async def test_a_large_batch_tells_its_callers_a_chunk_per_turn_of_the_loop(
    store: SqlStore,
) -> None:
    """Each caller that hears back goes on in the loop's next turn; a batch a slow commit let
    grow must not make that turn as long as all its callers together (OPERATIONS.md "Under load and
    abuse")."""
    matches = [f"m{i}" for i in range(350)]
    await seed(store, *matches)
    turn = 0

    def count_turns() -> None:
        nonlocal turn
        turn += 1
        loop.call_soon(count_turns)

    loop = asyncio.get_running_loop()
    loop.call_soon(count_turns)
    hold = asyncio.Event()

    holding = asyncio.Event()

    async def slow_commit() -> None:  # the writer waits here while every append is queued
        holding.set()
        await hold.wait()

    returned_in: list[int] = []

    async def append(match_id: str) -> None:
        await store.append([event(match_id, 1)])
        returned_in.append(turn)

    store.writer.before_next_batch(slow_commit)
    appends = [asyncio.create_task(append(m)) for m in matches]
    # Every append ran to its queue before the writer, which they woke, reached the hold.
    await asyncio.wait_for(holding.wait(), 30)
    batches = store.writer.batches
    hold.set()
    await asyncio.gather(*appends)
    assert store.writer.batches - batches <= 2  # one batch, or the first append and the rest
    per_turn = collections.Counter(returned_in)
    assert sum(per_turn.values()) == len(matches)
    assert max(per_turn.values()) <= RELEASE_CHUNK
    assert len(per_turn) >= len(matches) // RELEASE_CHUNK
    for match_id in matches:
        assert [e.version for e in await store.events(match_id)] == [1]


async def test_header_writes_leave_no_reference_cycle(store: SqlStore) -> None:
    """An upsert's ``excluded`` alias and its columns refer to each other: one made per write
    was garbage only a full collection frees, and under load the server never runs one on what
    it froze (web.collector). The statement is made once."""
    await seed(store, "m1")
    gc.collect()
    gc.disable()
    try:
        before = _excluded_aliases()
        for _ in range(20):
            await store.save_match(match("m1"))
        made = _excluded_aliases() - before
    finally:
        gc.enable()
    assert made <= 1  # the first statement of this dialect, if this test wrote it


def _excluded_aliases() -> int:
    return sum(1 for o in gc.get_objects() if isinstance(o, Alias) and o.name == "excluded")
