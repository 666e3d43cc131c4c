"""SQLite WAL checkpoints off the commit path.

With automatic checkpoints, whichever commit crosses the WAL's size limit copies the log into the
database file and syncs it, and that player's move waits for it. Automatic checkpoints are off
(``store.engine``); this task checkpoints in a worker thread once a second instead. A PASSIVE
checkpoint never blocks the writer, so commits keep their usual latency.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from typing import Final

log = logging.getLogger(__name__)

INTERVAL_S: Final = 1.0


class WalCheckpointer:
    def __init__(self, path: str, interval_s: float = INTERVAL_S) -> None:
        self.path = path
        self.interval_s = interval_s
        self._task: asyncio.Task[None] | None = None
        self._conn: sqlite3.Connection | None = None
        self.checkpoints = 0

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="wal-checkpoint")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        # A last, complete checkpoint so the database file stands on its own.
        with contextlib.suppress(sqlite3.Error):
            await asyncio.to_thread(self._checkpoint, "TRUNCATE")
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            try:
                await asyncio.to_thread(self._checkpoint, "PASSIVE")
            except sqlite3.Error as exc:  # a busy or missing file: try again next time
                log.warning("WAL checkpoint of %s failed: %s", self.path, exc)

    def _checkpoint(self, mode: str) -> None:
        if self._conn is None:
            self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self._conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchall()
        self.checkpoints += 1
