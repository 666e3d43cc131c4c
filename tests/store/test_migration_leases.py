"""Revision 9c3d5e7f1a42 adds server leases in place (PROTOCOL.md "Several servers on one
database"): a database of the earlier release keeps every player, match and version as it was and
gains an empty ``server`` and ``match_owner``; its live match, which no server owns, is adopted by
exactly one of the servers that start on it (to be ended as D5 says) and its ended one by none; the
downgrade drops the two tables and nothing else."""

from __future__ import annotations

import asyncio
from typing import Final

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.service.ports import MatchStatus
from spectacular_bid.store.leases import Lease
from spectacular_bid.store.migrate import current_revision
from spectacular_bid.store.repository import SqlStore

from .conftest import Database
from .factories import event, match, seed
from .test_migration_chat import tables
from .test_migration_ratings import migrate

pytestmark = pytest.mark.usefixtures("versions_without_relayed_ms")

PREVIOUS: Final = "7a1c3e5f9b20"
REVISION: Final = "9c3d5e7f1a42"


async def earlier_release_database(database: Database) -> AsyncEngine:
    """A database at 7a1c3e5f9b20 with two players, a live match and an ended one."""
    engine = database.engine()
    await migrate(engine, "upgrade", PREVIOUS)
    async with SqlStore(engine) as store:  # no lease: as the earlier release wrote
        await seed(store, "live")
        await store.append([event("live", 1), event("live", 2)])
        await store.save_match(match("done", status=MatchStatus.FINISHED))
    return engine


async def test_upgrade_adds_empty_leases_and_keeps_every_row(database: Database) -> None:
    engine = await earlier_release_database(database)
    before = await tables(engine)
    await migrate(engine, "upgrade", REVISION)
    assert await current_revision(engine) == REVISION
    assert await tables(engine) == before | {"server", "match_owner"}
    async with engine.connect() as conn:
        for table in ("server", "match_owner"):
            assert await conn.scalar(sa.text(f"SELECT count(*) FROM {table}")) == 0
    first = SqlStore(engine, lease=Lease.new())
    second = SqlStore(database.engine(), lease=Lease.new())
    async with first, second:
        assert await first.match("live") == match("live")
        assert await first.events("live") == [event("live", 1), event("live", 2)]
        claims = await asyncio.gather(first.claim_orphans(), second.claim_orphans())
        assert sorted(m.id for found in claims for m in found) == ["live"]


async def test_downgrade_drops_the_leases_and_nothing_else(database: Database) -> None:
    engine = await earlier_release_database(database)
    before = await tables(engine)
    await migrate(engine, "upgrade", REVISION)
    async with SqlStore(engine, lease=Lease.new()) as store:
        await store.claim_orphans()
        await store.append([event("live", 3)])
    await migrate(engine, "downgrade", PREVIOUS)
    assert await current_revision(engine) == PREVIOUS
    assert await tables(engine) == before
    async with SqlStore(engine) as store:
        assert await store.match("live") == match("live")
        assert [e.version for e in await store.events("live")] == [1, 2, 3]
        assert await store.match("done") == match("done", status=MatchStatus.FINISHED)
