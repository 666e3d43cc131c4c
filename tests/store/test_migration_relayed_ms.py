"""Revision 8f3b6a2d4c19 adds ``match_event.relayed_ms`` in place, the clock audit of a relayed
command: a database of the earlier release keeps every version as it was, each with no
``relayed_ms``, and takes relayed versions at once; the downgrade drops the column and nothing
else."""

from __future__ import annotations

import dataclasses
from typing import Final

import pytest

from spectacular_bid.store.migrate import current_revision, head_revision
from spectacular_bid.store.repository import SqlStore

from .conftest import Database
from .factories import event, match, seed
from .test_migration_owners import rows
from .test_migration_ratings import migrate

PREVIOUS: Final = "4e8a1c6d2f57"
REVISION: Final = "8f3b6a2d4c19"


async def test_upgrade_keeps_every_version_and_takes_relayed_ones(
    database: Database, monkeypatch: pytest.MonkeyPatch, versions_without_relayed_ms: None
) -> None:
    engine = database.engine()
    await migrate(engine, "upgrade", PREVIOUS)
    async with SqlStore(engine) as store:  # written as the earlier release wrote them
        await seed(store, "m1")
        await store.append([event("m1", 1, received_ms=8_999_999_000), event("m1", 2)])
    before = await rows(engine, "match_event")
    monkeypatch.undo()  # today's store, from here on

    await migrate(engine, "upgrade", REVISION)

    assert await current_revision(engine) == REVISION == head_revision()
    assert [row[:-1] for row in await rows(engine, "match_event")] == before
    relayed = dataclasses.replace(event("m1", 3, received_ms=8_999_998_000), relayed_ms=1_840)
    async with SqlStore(engine) as store:
        assert await store.match("m1") == match("m1")
        await store.append([relayed])
        read = await store.events("m1")
    assert read == [event("m1", 1, received_ms=8_999_999_000), event("m1", 2), relayed]
    assert [e.relayed_ms for e in read] == [None, None, 1_840]


async def test_downgrade_drops_the_column_and_nothing_else(database: Database) -> None:
    engine = database.engine()
    await migrate(engine, "upgrade", REVISION)
    async with SqlStore(engine) as store:
        await seed(store, "m1")
        await store.append([dataclasses.replace(event("m1", 1), relayed_ms=12)])
    after = await rows(engine, "match_event")

    await migrate(engine, "downgrade", PREVIOUS)

    assert await current_revision(engine) == PREVIOUS
    assert await rows(engine, "match_event") == [row[:-1] for row in after]
