"""Revision 4e8a1c6d2f57 adds the index the lobby's finished list is read along, in place: a
database of the earlier release keeps every player, match, version and rating change, and the
lobby's page then walks the index; the downgrade drops the index and nothing else."""

from __future__ import annotations

from typing import Final

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.store.migrate import current_revision
from spectacular_bid.store.repository import SqlStore

from .conftest import Database
from .ended_rows import seed_ended
from .test_migration_owners import rows
from .test_migration_ratings import migrate

pytestmark = pytest.mark.usefixtures("versions_without_relayed_ms")

PREVIOUS: Final = "2b7d9e4c6a13"
REVISION: Final = "4e8a1c6d2f57"
INDEX: Final = "ix_match_ended_at_id"
TABLES: Final = ("player", "match", "match_event", "rating_change")


async def indexes(engine: AsyncEngine) -> set[str]:
    async with engine.connect() as conn:
        found = await conn.run_sync(lambda sync: sa.inspect(sync).get_indexes("match"))
    return {str(index["name"]) for index in found}


async def earlier_release_database(database: Database) -> tuple[AsyncEngine, list[str]]:
    engine = database.engine()
    await migrate(engine, "upgrade", PREVIOUS)
    return engine, await seed_ended(engine, 30)


async def test_upgrade_adds_the_index_and_keeps_every_row(database: Database) -> None:
    engine, ids = await earlier_release_database(database)
    kept = {table: await rows(engine, table) for table in TABLES}
    assert INDEX not in await indexes(engine)
    await migrate(engine, "upgrade", REVISION)
    assert await current_revision(engine) == REVISION
    assert INDEX in await indexes(engine)
    for table, before in kept.items():
        assert await rows(engine, table) == before
    async with SqlStore(engine) as store:
        page = await store.ended_with_players(10)
    assert [s.match.id for s in page] == ids[::-1][:10]


async def test_downgrade_drops_only_the_index(database: Database) -> None:
    engine, _ = await earlier_release_database(database)
    await migrate(engine, "upgrade", REVISION)
    after = {table: await rows(engine, table) for table in TABLES}
    await migrate(engine, "downgrade", PREVIOUS)
    assert await current_revision(engine) == PREVIOUS
    assert INDEX not in await indexes(engine)
    assert {table: await rows(engine, table) for table in TABLES} == after
