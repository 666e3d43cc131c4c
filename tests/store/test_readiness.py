"""``SqlStore.unready_reason`` (PROTOCOL.md "Probes and metrics"): what ``/readyz`` says of the
database — ready only when it answers with its schema at the migrations' head."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import text

from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.store.migrate import head_revision, upgrade_to_head
from spectacular_bid.store.repository import SqlStore

from .conftest import Database


async def test_a_database_at_head_is_ready_and_one_behind_is_not(database: Database) -> None:
    engine = database.engine()
    store = SqlStore(engine)
    reason = await store.unready_reason()
    assert reason is not None
    assert "has no schema" in reason
    await upgrade_to_head(engine)
    assert await store.unready_reason() is None
    # Another process migrated the database down (or up) since: read each time.
    async with engine.begin() as conn:
        await conn.execute(text("UPDATE alembic_version SET version_num = 'older'"))
    reason = await store.unready_reason()
    assert reason is not None
    assert "revision older" in reason
    assert head_revision() in reason


async def test_an_unreachable_database_is_not_ready() -> None:
    # Nothing listens on port 1: refused at once.
    store = SqlStore.open("postgresql+asyncpg://nobody@127.0.0.1:1/nothing")
    try:
        reason = await store.unready_reason()
    finally:
        await store.close()
    assert reason is not None
    assert reason.startswith("the database cannot be reached:")


async def test_memory_is_always_ready() -> None:
    assert await InMemoryStore().unready_reason() is None


async def test_asking_logs_nothing(database: Database, caplog: pytest.LogCaptureFixture) -> None:
    # A proxy asks every 2 s per replica: no line each time (Alembic's context logs two).
    engine = database.engine()
    await upgrade_to_head(engine)
    caplog.set_level(logging.DEBUG)
    caplog.clear()
    assert await SqlStore(engine).unready_reason() is None
    assert [r.getMessage() for r in caplog.records if r.name.startswith("alembic")] == []
