"""SQLite WAL checkpoints off the commit path.

With automatic checkpoints, whichever commit crosses the WAL's size limit copies the log into the
database file and syncs it, and that player's move waits for it. Automatic checkpoints are off
(``store.engine``); this task checkpoints in a worker thread once a second instead. A PASSIVE
checkpoint never blocks the writer, so commits keep their usual latency.

But a PASSIVE checkpoint never starts the log over: SQLite rewinds the WAL only when a writer
finds it wholly copied and unread, which a steady stream of commits never allows. At 2,000 live
matches the log grew to 3.2 GB in 25 minutes. So once the log is :data:`RESET_FRAMES` long a
TRUNCATE checkpoint follows the PASSIVE one: it holds the writer back only while it copies what
the PASSIVE one left (about a second of commits) and empties the file.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from typing import Final

log = logging.getLogger(__name__)

INTERVAL_S: Final = 1.0
RESET_FRAMES: Final = 16_384
"""A log this many frames long (64 MiB at 4 KiB pages) is emptied by a TRUNCATE checkpoint."""


class WalCheckpointer:
    def __init__(
        self, path: str, interval_s: float = INTERVAL_S, reset_frames: int = RESET_FRAMES
    ) -> None:
        self.path = path
        self.interval_s = interval_s
        self.reset_frames = reset_frames
        self.resets = 0
        """TRUNCATE checkpoints that emptied the log."""
        self._task: asyncio.Task[None] | None = None
        self._conn: sqlite3.Connection | None = None
        self.checkpoints = 0

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="wal-checkpoint")

    async def stop(self) -> None:
        """No more checkpoints (the file is left as it is)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def close(self) -> None:
        await self.stop()
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
                _, frames, _ = await asyncio.to_thread(self._checkpoint, "PASSIVE")
                if frames >= self.reset_frames:
                    busy, _, _ = await asyncio.to_thread(self._checkpoint, "TRUNCATE")
                    self.resets += busy == 0  # busy: readers held on; again next time
            except sqlite3.Error as exc:  # a busy or missing file: try again next time
                log.warning("WAL checkpoint of %s failed: %s", self.path, exc)

    def _checkpoint(self, mode: str) -> tuple[int, int, int]:
        """SQLite's answer: (1 if it could not finish, frames in the log, frames copied)."""
        if self._conn is None:
            self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        busy, frames, copied = self._conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
        self.checkpoints += 1
        return int(busy), int(frames), int(copied)
