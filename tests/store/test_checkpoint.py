"""WAL checkpoints run off the commit path (issue 4 §3: a commit's latency is a player's wait)."""

from __future__ import annotations

import os
import sqlite3

from sqlalchemy import text

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
