"""Fixtures for the storage tests: every test runs on SQLite, and on PostgreSQL too when
``TEST_DATABASE_URL`` is set (e.g. ``postgresql+asyncpg://postgres@127.0.0.1:5432/test``).

Isolation: on SQLite each test gets a fresh file in its own temporary folder; on PostgreSQL each
test gets a fresh schema with a unique name, used through the connection's ``search_path`` and
dropped (``CASCADE``) afterwards. The schema is then made by the Alembic migrations, as in
production, so no test depends on another's rows or on what a failed test left behind.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest
import sqlalchemy as sa
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.ports import MatchStore
from spectacular_bid.store.engine import create_engine, sqlite_url
from spectacular_bid.store.migrate import upgrade_to_head
from spectacular_bid.store.repository import SqlStore

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL", "")
BACKENDS = ["sqlite", *(["postgresql"] if TEST_DATABASE_URL else [])]


@dataclass
class Database:
    """An empty database (no schema) for one test, and a way to make engines for it."""

    backend: str
    url: str
    connect_args: dict[str, Any] = field(default_factory=dict)
    engines: list[AsyncEngine] = field(default_factory=list)

    def engine(self) -> AsyncEngine:
        """A new engine on this test's database; disposed of after the test."""
        made = create_engine(self.url, connect_args=self.connect_args)
        self.engines.append(made)
        return made


@asynccontextmanager
async def open_database(backend: str, folder: Path) -> AsyncIterator[Database]:
    """A fresh, empty database on ``backend``, removed afterwards."""
    if backend == "sqlite":
        db = Database("sqlite", sqlite_url(folder / "data" / "specbid.sqlite3"))
        try:
            yield db
        finally:
            for made in db.engines:
                await made.dispose()
        return
    schema = f"test_{uuid.uuid4().hex[:16]}"
    admin = create_engine(TEST_DATABASE_URL)
    try:
        async with admin.begin() as conn:
            await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        db = Database("postgresql", TEST_DATABASE_URL, {"server_settings": {"search_path": schema}})
        try:
            yield db
        finally:
            for made in db.engines:
                await made.dispose()
            async with admin.begin() as conn:
                await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    finally:
        await admin.dispose()


@pytest.fixture(params=BACKENDS)
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    async with open_database(request.param, tmp_path) as db:
        yield db


@pytest.fixture
async def sqlite_database(tmp_path: Path) -> AsyncIterator[Database]:
    """A fresh SQLite file only, for what is SQLite's own (its write lock, BEGIN IMMEDIATE)."""
    async with open_database("sqlite", tmp_path) as db:
        yield db


@pytest.fixture
async def engine(database: Database) -> AsyncEngine:
    """An engine on a database whose schema the migrations brought to head."""
    made = database.engine()
    await upgrade_to_head(made)
    return made


@pytest.fixture
async def store(engine: AsyncEngine) -> AsyncIterator[SqlStore]:
    async with SqlStore(engine) as started:
        yield started


@pytest.fixture(params=["memory", *BACKENDS])
async def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MatchStore]:
    """The in-memory reference store and every SQL backend, for behaviour they must share."""
    if request.param == "memory":
        yield InMemoryStore()
        return
    async with open_database(request.param, tmp_path) as db:
        made = db.engine()
        await upgrade_to_head(made)
        async with SqlStore(made) as started:
            yield started


@pytest.fixture
def versions_without_relayed_ms(monkeypatch: pytest.MonkeyPatch) -> None:
    """Today's store reading and writing versions as the releases before revision 8f3b6a2d4c19
    did, without ``relayed_ms``: for the tests that fill a database at an earlier revision with
    it and read it back there."""
    from sqlalchemy.orm import defer

    from spectacular_bid.store import records, repository, sqlite_batches, writer
    from spectacular_bid.store.models import MatchEvent

    earlier = records.EVENT_COLUMNS[:-1]
    assert records.EVENT_COLUMNS[-1] == "relayed_ms"
    event_values, event_record, select = records.event_values, records.event_record, sa.select

    class Earlier:
        """A row read without ``relayed_ms``, which the earlier schema does not have."""

        relayed_ms = None

        def __init__(self, row: MatchEvent) -> None:
            self.row = row

        def __getattr__(self, name: str) -> Any:
            return getattr(self.row, name)

    def select_earlier(*entities: Any) -> Any:
        statement = select(*entities)
        if len(entities) == 1 and entities[0] is MatchEvent:
            statement = statement.options(defer(MatchEvent.relayed_ms, raiseload=True))
        return statement

    monkeypatch.setattr(writer, "EVENT_COLUMNS", earlier)
    monkeypatch.setattr(sqlite_batches, "EVENT_COLUMNS", earlier)
    monkeypatch.setattr(repository, "event_values", lambda e, d: event_values(e, d)[:-1])
    monkeypatch.setattr(repository, "select", select_earlier)
    monkeypatch.setattr(
        repository, "event_record", lambda row: event_record(cast(MatchEvent, Earlier(row)))
    )
