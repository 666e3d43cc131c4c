"""Engines: URLs with their async drivers, the embedded SQLite file's settings, and how SQLite
transactions begin."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, select
from sqlalchemy.dialects import sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.store.engine import (
    BUSY_TIMEOUT_MS,
    SQLITE_FILE,
    create_engine,
    database_url,
    default_sqlite_url,
    resolve_url,
    sqlite_url,
)
from spectacular_bid.store.migrate import upgrade_to_head
from spectacular_bid.store.models import MatchEvent, UtcTimestamp, datetime_from_ms
from spectacular_bid.store.repository import SqlStore

from .conftest import Database
from .factories import event, seed


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgresql://u:pw@db:5432/specbid", "postgresql+asyncpg://u:***@db:5432/specbid"),
        ("postgres://u@db/specbid", "postgresql+asyncpg://u@db/specbid"),
        ("postgresql+asyncpg://u@db/specbid", "postgresql+asyncpg://u@db/specbid"),
        ("sqlite:////srv/specbid.sqlite3", "sqlite+aiosqlite:////srv/specbid.sqlite3"),
        ("sqlite+aiosqlite:///rel.db", "sqlite+aiosqlite:///rel.db"),
    ],
)
def test_urls_get_their_async_driver(given: str, expected: str) -> None:
    assert database_url(given).render_as_string(hide_password=True) == expected


@pytest.mark.parametrize("given", ["mysql://u@db/x", "postgresql+psycopg2://u@db/x"])
def test_other_databases_and_drivers_are_refused(given: str) -> None:
    with pytest.raises(ValueError, match=r"unsupported database URL .* expected sqlite"):
        database_url(given)


def test_resolve_url_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("SPECBID_DATA_DIR", raising=False)
    assert resolve_url().database == str((Path("data") / SQLITE_FILE).resolve())
    monkeypatch.setenv("SPECBID_DATA_DIR", str(tmp_path / "env"))
    assert resolve_url().database == str(tmp_path / "env" / SQLITE_FILE)
    assert resolve_url(data_dir=tmp_path / "flag").database == str(tmp_path / "flag" / SQLITE_FILE)
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@db/env")
    assert resolve_url(data_dir=tmp_path).drivername == "postgresql+asyncpg"
    assert resolve_url("sqlite:///given.db").database == "given.db"
    assert default_sqlite_url(tmp_path) == f"sqlite+aiosqlite:///{tmp_path / SQLITE_FILE}"


async def test_sqlite_file_settings(tmp_path: Path) -> None:
    engine = create_engine(sqlite_url(tmp_path / "new" / "folder" / SQLITE_FILE))
    try:
        async with engine.connect() as conn:
            pragmas = {
                name: (await conn.exec_driver_sql(f"PRAGMA {name}")).scalar()
                for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
            }
    finally:
        await engine.dispose()
    assert (tmp_path / "new" / "folder" / SQLITE_FILE).is_file()  # the folder was created
    assert pragmas == {
        "journal_mode": "wal",
        "synchronous": 2,  # FULL
        "foreign_keys": 1,
        "busy_timeout": BUSY_TIMEOUT_MS,
    }


def test_sqlite_synchronous_must_be_known(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="expected synchronous FULL, NORMAL or EXTRA, got 'OFF'"):
        create_engine(sqlite_url(tmp_path / "x.db"), synchronous="OFF")


async def test_sqlite_writes_begin_immediate_and_reads_deferred(
    sqlite_database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every connection is traced, the engine's and the writer's own (``store.sqlite_batches``)
    alike: each write transaction begins IMMEDIATE, each read DEFERRED."""
    engine = sqlite_database.engine()
    await upgrade_to_head(engine)
    begun: list[str] = []
    connect = sqlite3.connect

    def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = connect(*args, **kwargs)
        conn.set_trace_callback(lambda sql: begun.append(sql) if sql.startswith("BEGIN") else None)
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced)
    await engine.dispose()  # the migration's pooled connection was not traced
    async with SqlStore(engine) as store:
        begun.clear()  # what the start read
        await seed(store, "m1")
        await store.append([event("m1", 1)])
        assert await store.events("m1") == [event("m1", 1)]
    assert begun == ["BEGIN IMMEDIATE"] * 4 + ["BEGIN DEFERRED"]  # players, match, version; read


async def test_fast_event_rows_equal_typed_rows(engine: AsyncEngine) -> None:
    """Rows that ``append`` hands to the driver store the same column values as the models."""
    async with SqlStore(engine) as store:
        await seed(store, "m1")
        await store.append([event("m1", 1)])
    typed = event("m1", 2)
    async with engine.begin() as conn:
        await conn.execute(
            insert(MatchEvent),
            [
                {
                    "match_id": typed.match_id,
                    "version": typed.version,
                    "seat": typed.seat,
                    "command": typed.command,
                    "events": typed.events,
                    "recorded_at": datetime_from_ms(event("m1", 1).wall_ms),
                    "monotonic_ms": typed.mono_ms,
                    "clock": typed.clock,
                }
            ],
        )
        # The raw stored values, as the database holds them, of both rows.
        raw = (
            await conn.exec_driver_sql(
                "SELECT version, seat, command, events, recorded_at, clock FROM match_event "
                "ORDER BY version"
            )
        ).all()
    fast, typed_row = raw
    assert fast[2:] == typed_row[2:]


@pytest.mark.parametrize("given", ["sqlite://", "sqlite:///:memory:"])
def test_sqlite_in_memory_is_refused(given: str) -> None:
    with pytest.raises(ValueError, match=r"expected a SQLite file, got .*InMemoryStore"):
        create_engine(given)


def test_timestamps_must_be_aware() -> None:
    with pytest.raises(ValueError, match="expected an aware datetime"):
        UtcTimestamp().process_bind_param(datetime(2026, 1, 1), sqlite.dialect())


async def test_select_uses_the_models(engine: AsyncEngine) -> None:
    async with engine.connect() as conn:
        assert (await conn.execute(select(MatchEvent))).all() == []
