"""WAL checkpoints run off the commit path (a commit's latency is a player's wait)."""

from __future__ import annotations

import os
import sqlite3

from sqlalchemy import text

from spectacular_bid.store.checkpoint import WalPolicy
from spectacular_bid.store.migrate import upgrade_to_head
from spectacular_bid.store.repository import SqlStore

from .conftest import Database
from .factories import event, seed


async def test_commits_never_checkpoint_and_closing_leaves_a_complete_file(
    sqlite_database: Database,
) -> None:
    engine = sqlite_database.engine()
    await upgrade_to_head(engine)
    async with engine.connect() as conn:
        assert (await conn.execute(text("PRAGMA wal_autocheckpoint"))).scalar() == 0
    path = engine.url.database
    assert path is not None
    store = SqlStore(engine)
    await store.start()
    checkpointer = store._checkpointer
    assert checkpointer is not None
    await seed(store, "m1")
    await store.append([event("m1", v) for v in range(1, 51)])
    wal = f"{path}-wal"
    assert os.path.getsize(wal) > 0  # the commits went to the log, not the database file
    await store.close()
    assert checkpointer.checkpoints >= 1
    assert os.path.getsize(wal) == 0  # TRUNCATE at close: the file stands on its own
    with sqlite3.connect(path) as plain:
        count = plain.execute("SELECT count(*) FROM match_event").fetchone()[0]
    assert count == 50


async def test_under_steady_commits_the_log_starts_again_and_stays_bounded(
    sqlite_database: Database,
) -> None:
    """Under a steady stream of commits SQLite never starts its log again by itself (9.1 GB
    after 70 minutes of 2,000 matches): the writer runs a catch-up checkpoint between two
    batches once the log is past its limit, and the next commit starts the log again.

    The log may pass its limit by what is committed while the checkpoint that sees it past runs,
    and until the writer's next batch: so by at most a few checkpoint intervals' commits. How many
    commits an interval holds is measured, not assumed: on a machine busy with other work the
    20 ms timer fires late, and the bound is about the policy, not the timer.
    """
    engine = sqlite_database.engine()
    await upgrade_to_head(engine)
    path = engine.url.database
    assert path is not None
    limit = 256 * 1024
    store = SqlStore(engine, wal=WalPolicy(interval_s=0.02, rewind_bytes=limit))
    await store.start()
    checkpointer = store._checkpointer
    assert checkpointer is not None
    await seed(store, "m1")
    wal = f"{path}-wal"
    largest = os.path.getsize(wal)
    version = 0
    most_per_commit = 0  # bytes of log one commit added
    most_per_interval = 0  # commits between two checkpoints
    since_checkpoint = 0
    seen = checkpointer.checkpoints
    while (version < 2000 or checkpointer.rewinds < 2) and largest < 16 * limit:
        if checkpointer.checkpoints != seen:
            seen, since_checkpoint = checkpointer.checkpoints, 0
        before = os.path.getsize(wal)
        # one commit right after another, as under load
        await store.append([event("m1", v) for v in range(version + 1, version + 6)])
        version += 5
        after = os.path.getsize(wal)
        since_checkpoint += 1
        most_per_commit = max(most_per_commit, after - before)
        most_per_interval = max(most_per_interval, since_checkpoint)
        largest = max(largest, after)
    await store.close()
    assert checkpointer.rewinds >= 2
    assert largest < limit + 3 * most_per_interval * most_per_commit
    with sqlite3.connect(path) as plain:
        count = plain.execute("SELECT count(*) FROM match_event").fetchone()[0]
    assert count == version
