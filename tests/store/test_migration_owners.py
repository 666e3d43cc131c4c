"""Revision 2b7d9e4c6a13 deletes the owner rows of ended matches in place (PROTOCOL.md "Several
servers on one database"): a database of the earlier release, whose rows stayed after their match
ended, keeps every player, match, round and version, and the owner of each live match; the downgrade
changes nothing."""

from __future__ import annotations

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
from .test_migration_ratings import migrate

pytestmark = pytest.mark.usefixtures("versions_without_relayed_ms")

PREVIOUS: Final = "9c3d5e7f1a42"
REVISION: Final = "2b7d9e4c6a13"


async def rows(engine: AsyncEngine, table: str) -> list[tuple[object, ...]]:
    async with engine.connect() as conn:
        found = await conn.execute(sa.text(f"SELECT * FROM {table}"))
        return sorted(tuple(row) for row in found)


async def earlier_release_database(database: Database) -> AsyncEngine:
    """A database at 9c3d5e7f1a42 as that release left it: owner rows for a live match and for
    two ended ones (it made one with every header and deleted none)."""
    engine = database.engine()
    await migrate(engine, "upgrade", PREVIOUS)
    async with engine.begin() as conn:
        await conn.execute(
            sa.text(
                "INSERT INTO server (id, epoch, lease_until_ms, gone, started_at, host) "
                "VALUES ('s1', 0, 0, false, '2026-12-01 00:00:00+00:00', 'h:1')"
            )
        )
    async with SqlStore(engine) as store:
        await seed(store, "live", "won", "gave-up")
        await store.append([event("live", 1), event("won", 1)])
        await store.save_match(match("won", status=MatchStatus.FINISHED))
        await store.save_match(match("gave-up", status=MatchStatus.ABORTED))
    async with engine.begin() as conn:
        for match_id in ("live", "won", "gave-up"):
            await conn.execute(
                sa.text("INSERT INTO match_owner (match_id, server_id) VALUES (:m, 's1')"),
                {"m": match_id},
            )
    return engine


async def test_upgrade_deletes_only_the_owner_rows_of_ended_matches(database: Database) -> None:
    engine = await earlier_release_database(database)
    kept = {table: await rows(engine, table) for table in ("player", "match", "match_event")}
    await migrate(engine, "upgrade", REVISION)
    assert await current_revision(engine) == REVISION
    assert await rows(engine, "match_owner") == [("live", "s1")]
    for table, before in kept.items():
        assert await rows(engine, table) == before
    async with SqlStore(engine, lease=Lease.new()) as store:
        assert await store.owner_of("live") == "s1"
        assert [m.id for m in await store.claim_orphans()] == ["live"]  # s1's lease ran out
        assert await store.match("won") == match("won", status=MatchStatus.FINISHED)


async def test_downgrade_changes_nothing(database: Database) -> None:
    engine = await earlier_release_database(database)
    await migrate(engine, "upgrade", REVISION)
    after = {t: await rows(engine, t) for t in ("player", "match", "match_owner", "server")}
    await migrate(engine, "downgrade", PREVIOUS)
    assert await current_revision(engine) == PREVIOUS
    assert {t: await rows(engine, t) for t in after} == after
