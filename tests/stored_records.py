"""Every record a real server wrote in a test replays through the match machine (PROTOCOL.md "The
version rule").

The in-process suites check their in-memory stores after each test (``tests/service/replayed.py``);
the suites that run real ``specbid serve`` processes (live, browser) call :func:`check_folder` on
the server's data folder once it has stopped: every stored version of every match re-run through
:class:`~spectacular_bid.service.replay.Replay` must give exactly the stored events and clock
reading, and every ended match's record, as it is served, must pass the one check of a record
(:func:`~spectacular_bid.service.replay.check_record`, that of ``specbid replay --verify`` and
of the import) and be one this server imports.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from spectacular_bid.service.codec import clock_json, event_json
from spectacular_bid.service.ports import MatchRecord
from spectacular_bid.service.record_document import ENDED, version_of
from spectacular_bid.service.records import read_document
from spectacular_bid.service.replay import Replay, check_record
from spectacular_bid.store.engine import create_engine, default_sqlite_url
from spectacular_bid.store.repository import SqlStore

ALL = 1_000_000


def check_folder(data_dir: Path) -> int:
    """Check the SQLite database in ``data_dir``; return how many versions were re-run."""
    if not (data_dir / "specbid.sqlite3").is_file():
        return 0
    url = default_sqlite_url(data_dir)
    # In a thread of its own: the caller may be inside a running event loop (Playwright's).
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(_check(url))).result()


async def _check(url: str) -> int:
    store = SqlStore(create_engine(url, make_folder=False), owns_engine=True)
    await store.start()
    try:
        headers = [*await store.unfinished_matches(), *await store.ended_matches(ENDED, ALL)]
        checked = 0
        for header in headers:
            checked += await _check_match(store, header)
        return checked
    finally:
        await store.close()


async def _check_match(store: SqlStore, header: MatchRecord) -> int:
    records = await store.events(header.id)
    ids = [p for p in (header.first_player, header.second_player) if p is not None]
    players = await store.players(ids)
    names = {
        seat: players[player].name if player in players else None
        for seat, player in (("first", header.first_player), ("second", header.second_player))
    }
    first = version_of(records[0]) if records else None
    replayer = Replay.of(header.mode, header.settings, names, first)
    for record in records:
        entry = replayer.step(version_of(record))
        where = f"match {header.id}, version {record.version}"
        assert [event_json(e) for e in entry.events] == record.events, where
        assert clock_json(entry.clock) == record.clock, where
        assert entry.received_ms == record.received_ms, where
    if header.status in ENDED:
        served = (await read_document(store, header.id)).to_json()
        checked = check_record(json.loads(json.dumps(served)))  # as it travels
        assert checked.importable, (header.id, checked.outcome, checked.not_admitted)
    return len(records)
