"""Revision 7a1c3e5f9b20 adds chat in place (PROTOCOL.md "chat"): a database of the earlier release
keeps every player, match and version as it was, gains an empty ``chat_line`` that takes lines at
once, and the downgrade drops that table and nothing else."""

from __future__ import annotations

from typing import Final

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.service.ports import ChatRecord
from spectacular_bid.store.migrate import current_revision
from spectacular_bid.store.repository import SqlStore

from .conftest import Database
from .factories import WALL_MS, event, match, seed
from .test_migration_ratings import migrate

pytestmark = pytest.mark.usefixtures("versions_without_relayed_ms")

PREVIOUS: Final = "5d2e8f1a7c34"
REVISION: Final = "7a1c3e5f9b20"


def _tables(connection: Connection) -> set[str]:
    return set(sa.inspect(connection).get_table_names())


async def tables(engine: AsyncEngine) -> set[str]:
    async with engine.connect() as conn:
        return await conn.run_sync(_tables)


async def earlier_release_database(database: Database) -> AsyncEngine:
    """A database at 5d2e8f1a7c34 with two players, a match and two of its versions."""
    engine = database.engine()
    await migrate(engine, "upgrade", PREVIOUS)
    async with SqlStore(engine) as store:  # those tables are as today's models have them
        await seed(store, "m1")
        await store.append([event("m1", 1), event("m1", 2)])
    return engine


async def test_upgrade_adds_an_empty_chat_and_keeps_every_row(database: Database) -> None:
    engine = await earlier_release_database(database)
    before = await tables(engine)
    await migrate(engine, "upgrade", REVISION)
    assert await current_revision(engine) == REVISION
    assert await tables(engine) == before | {"chat_line"}
    async with SqlStore(engine) as store:
        assert await store.match("m1") == match("m1")
        assert await store.events("m1") == [event("m1", 1), event("m1", 2)]
        assert await store.chat_lines("m1") == []
        said = ChatRecord("m1", 1, "players", "p-ann", "ann", "first", "hi", None, WALL_MS)
        await store.add_chat_line(said)
        assert await store.chat_lines("m1") == [said]


async def test_downgrade_drops_the_chat_and_nothing_else(database: Database) -> None:
    engine = await earlier_release_database(database)
    before = await tables(engine)
    await migrate(engine, "upgrade", REVISION)
    async with SqlStore(engine) as store:
        said = ChatRecord("m1", 1, "spectators", "p-bob", "bob", None, None, "thanks", WALL_MS)
        await store.add_chat_line(said)
    await migrate(engine, "downgrade", PREVIOUS)
    assert await current_revision(engine) == PREVIOUS
    assert await tables(engine) == before
    async with SqlStore(engine) as store:
        assert await store.match("m1") == match("m1")
        assert await store.events("m1") == [event("m1", 1), event("m1", 2)]
