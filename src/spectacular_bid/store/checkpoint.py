"""SQLite WAL checkpoints off the commit path, and a log that does not grow for ever.

With automatic checkpoints, whichever commit crosses the WAL's size limit copies the log into the
database file and syncs it, and that player's move waits for it. Automatic checkpoints are off
(``store.engine``); this task checkpoints in a worker thread once a second instead. A PASSIVE
checkpoint never blocks the writer, so commits keep their usual latency.

But SQLite starts writing the log from its beginning again only when a write transaction begins
after a checkpoint has copied every frame of it, and under a steady stream of commits a frame
is always added while the checkpoint runs: at 2,000 live matches the log grew to 3.2 GB in 25
minutes and 9.1 GB in 70. So once the log holds :data:`REWIND_BYTES`, the writer is asked to run
one more PASSIVE checkpoint between two of its batches (``GroupCommitWriter.before_next_batch``).
That one copies only what the last second added, while nothing is written; the writer's next
transaction then restarts the log, and ``journal_size_limit`` (``store.engine``) cuts the file
back. (A TRUNCATE checkpoint instead, which also waits for readers and syncs the emptied file,
held commits back long enough to raise bench store's p99 commit from 17 to 46 ms.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

log = logging.getLogger(__name__)

INTERVAL_S: Final = 1.0
REWIND_BYTES: Final = 1024 * 1024 * 1024
"""The log's size from which it is brought back to its start; ``journal_size_limit`` too. Each
time, commits wait for the catch-up checkpoint: at 64 MiB that was every 25 s at 2,500 live
matches, and bench server's p99 at 4,000 offered went from 26 ms to 33-68 ms; at 1 GiB it is
about every 7 minutes there."""
_FRAME_HEADER_BYTES: Final = 24

Work = Callable[[], Awaitable[None]]


@dataclass(frozen=True)
class WalPolicy:
    """How often the log is checkpointed, and from what size it is brought back to its start."""

    interval_s: float = INTERVAL_S
    rewind_bytes: int = REWIND_BYTES


DEFAULT_WAL: Final = WalPolicy()


class WalCheckpointer:
    def __init__(
        self,
        path: str,
        policy: WalPolicy = DEFAULT_WAL,
        *,
        before_next_write: Callable[[Work], None] | None = None,
    ) -> None:
        self.path = path
        self.interval_s = policy.interval_s
        self.rewind_bytes = policy.rewind_bytes
        self._before_next_write = before_next_write
        self._task: asyncio.Task[None] | None = None
        self._conn: sqlite3.Connection | None = None
        self._frame_bytes: int | None = None
        self._one_at_a_time = asyncio.Lock()
        """One sqlite3 connection, used by one thread at a time."""
        self._log_frames = 0
        self.checkpoints = 0
        self.rewinds = 0
        """How often the log was seen to start again from its beginning."""

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
            await self._checkpoint("TRUNCATE")
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            try:
                log_bytes = await self._checkpoint("PASSIVE")
            except sqlite3.Error as exc:  # a busy or missing file: try again next time
                log.warning("WAL checkpoint of %s failed: %s", self.path, exc)
                continue
            if log_bytes >= self.rewind_bytes and self._before_next_write is not None:
                self._before_next_write(self._catch_up)

    async def _catch_up(self) -> None:
        """Run by the writer between two batches: copy the last frames, so that its next
        transaction starts the log again (unless a reader still holds an older snapshot;
        then the next second tries again)."""
        try:
            await self._checkpoint("PASSIVE")
        except sqlite3.Error as exc:
            log.warning("WAL checkpoint of %s failed: %s", self.path, exc)

    async def _checkpoint(self, mode: str) -> int:
        """Run a checkpoint in a worker thread; the log's size in bytes, as it then was."""
        async with self._one_at_a_time:
            frames = await asyncio.to_thread(self._checkpoint_in_thread, mode)
        if frames < self._log_frames:
            self.rewinds += 1
        self._log_frames = frames
        return frames * (self._frame_bytes or 0)

    def _checkpoint_in_thread(self, mode: str) -> int:
        if self._conn is None:
            self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            page_size = self._conn.execute("PRAGMA page_size").fetchone()[0]
            self._frame_bytes = page_size + _FRAME_HEADER_BYTES
        _busy, frames, _copied = self._conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
        self.checkpoints += 1
        return max(int(frames), 0)
