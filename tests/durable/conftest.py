"""Fixtures for the durability tests: a fresh database per test on SQLite, and on PostgreSQL too
when ``TEST_DATABASE_URL`` is set (e.g. ``postgresql+asyncpg://postgres@127.0.0.1:5432/test``).

A SQLite database is a file in the test's own folder. A PostgreSQL database is a new database,
``CREATE DATABASE``-d for the test and dropped afterwards, so that a server in another process
can be pointed at it by URL alone (``--database-url``).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import make_url, text
from sqlalchemy.ext.asyncio import create_async_engine

from service.replayed import stored_matches as stored_matches
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.ports import MatchStore
from spectacular_bid.store.engine import database_url, default_sqlite_url
from spectacular_bid.store.leases import Lease
from spectacular_bid.store.migrate import upgrade_to_head
from spectacular_bid.store.repository import SqlStore

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL", "")
BACKENDS = ["sqlite", *(["postgresql"] if TEST_DATABASE_URL else [])]


@dataclass(frozen=True)
class Target:
    """Where one test's data lives, and how a server or the CLI is pointed at it."""

    backend: str
    url: str
    data_dir: Path | None
    """The data folder on SQLite; None on PostgreSQL."""

    def flags(self) -> list[str]:
        """``specbid serve`` / ``specbid replay`` flags naming this database."""
        if self.data_dir is not None:
            return ["--data-dir", str(self.data_dir)]
        return ["--database-url", self.url]


async def _admin(statement: str) -> None:
    engine = create_async_engine(database_url(TEST_DATABASE_URL), isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            await conn.execute(text(statement))
    finally:
        await engine.dispose()


def new_target(backend: str, folder: Path) -> Target:
    if backend == "sqlite":
        data_dir = folder / "data"
        return Target("sqlite", default_sqlite_url(data_dir), data_dir)
    name = f"specbid_test_{uuid.uuid4().hex[:12]}"
    url = make_url(database_url(TEST_DATABASE_URL)).set(database=name)
    return Target("postgresql", url.render_as_string(hide_password=False), None)


async def create_target(target: Target) -> None:
    if target.backend == "postgresql":
        name = make_url(target.url).database
        await _admin(f'CREATE DATABASE "{name}"')


async def drop_target(target: Target) -> None:
    if target.backend == "postgresql":
        name = make_url(target.url).database
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=BACKENDS)
async def target(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Target]:
    """An empty database (no schema) for this test."""
    made = new_target(request.param, tmp_path)
    await create_target(made)
    try:
        yield made
    finally:
        await drop_target(made)


@pytest.fixture(autouse=True)
def _no_database_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Servers and commands get their database from the flags of each test only."""
    for name in list(os.environ):
        if name.startswith("SPECBID_") or name == "DATABASE_URL":
            monkeypatch.delenv(name)


@pytest.fixture(params=["memory", *BACKENDS])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MatchStore]:
    """The in-memory store and every SQL backend (schema at head), started."""
    if request.param == "memory":
        yield InMemoryStore()
        return
    made = new_target(request.param, tmp_path)
    await create_target(made)
    try:
        await upgrade_to_head(made.url)
        async with SqlStore.open(made.url, lease=Lease.new()) as started:  # as a server's
            yield started
    finally:
        await drop_target(made)
