"""The Alembic migrations are the only way the schema is made: up to head and down to base on
every backend, and the models agree with what they make."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.store.engine import sqlite_url
from spectacular_bid.store.migrate import (
    PROJECT_ROOT,
    SchemaNotAtHeadError,
    current_revision,
    downgrade_to_base,
    head_revision,
    is_at_head,
    require_head,
    upgrade_to_head,
)
from spectacular_bid.store.models import NAMING_CONVENTION, Base

from .conftest import Database

TABLES = {
    "player",
    "player_session",
    "match",
    "round",
    "match_event",
    "rating_change",
    "chat_line",
    "server",
    "match_owner",
}


async def table_names(engine: AsyncEngine) -> set[str]:
    async with engine.connect() as conn:
        return set(await conn.run_sync(lambda sync: inspect(sync).get_table_names()))


async def test_upgrade_to_head_and_downgrade_to_base(database: Database) -> None:
    engine = database.engine()
    assert await current_revision(engine) is None
    assert not await is_at_head(engine)
    with pytest.raises(SchemaNotAtHeadError, match=r"has no schema.*alembic -x url=<URL> upgrade"):
        await require_head(engine)

    await upgrade_to_head(engine)
    assert await current_revision(engine) == head_revision()
    assert await is_at_head(engine)
    await require_head(engine)
    assert await table_names(engine) == TABLES | {"alembic_version"}

    await upgrade_to_head(engine)  # already at head: nothing to do
    assert await current_revision(engine) == head_revision()

    await downgrade_to_base(engine)
    assert await table_names(engine) == {"alembic_version"}
    assert await current_revision(engine) is None

    await upgrade_to_head(engine)
    assert await table_names(engine) == TABLES | {"alembic_version"}


def _differences(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def test_models_and_migrations_agree(engine: AsyncEngine) -> None:
    async with engine.connect() as conn:
        assert await conn.run_sync(_differences) == []


def _constraint_names(connection: Connection) -> dict[str, set[str]]:
    inspector = inspect(connection)
    names: dict[str, set[str]] = {}
    for table in TABLES:
        found = {inspector.get_pk_constraint(table)["name"]}
        found |= {fk["name"] for fk in inspector.get_foreign_keys(table)}
        found |= {uq["name"] for uq in inspector.get_unique_constraints(table)}
        found |= {ix["name"] for ix in inspector.get_indexes(table)}
        names[table] = {name for name in found if name is not None}
    return names


async def test_constraints_carry_the_naming_convention(engine: AsyncEngine) -> None:
    async with engine.connect() as conn:
        reflected = await conn.run_sync(_constraint_names)
    expected = {
        table.name: {str(c.name) for c in table.constraints if c.name}
        | {str(i.name) for i in table.indexes if i.name}
        for table in Base.metadata.sorted_tables
    }
    assert reflected == expected
    assert expected["match_event"] == {"pk_match_event", "fk_match_event_match_id_match"}
    assert "uq_player_token_hash" in expected["player"]
    assert "ix_player_name_key" in expected["player"]
    assert "ix_match_status_ended_at" in expected["match"]
    assert {"ix_match_first_player_id_ended_at", "ix_match_second_player_id_ended_at"} <= (
        expected["match"]
    )
    assert expected["rating_change"] == {
        "pk_rating_change",
        "fk_rating_change_match_id_match",
        "fk_rating_change_player_id_player",
        "ix_rating_change_player_id_at",
    }
    assert expected["chat_line"] == {
        "pk_chat_line",
        "fk_chat_line_match_id_match",
        "fk_chat_line_player_id_player",
    }
    assert expected["server"] == {"pk_server"}
    assert expected["match_owner"] == {
        "pk_match_owner",
        "fk_match_owner_match_id_match",
        "ix_match_owner_server_id",
    }
    assert set(NAMING_CONVENTION) == {"ix", "uq", "ck", "fk", "pk"}


def test_alembic_command_line_upgrades_and_downgrades(tmp_path: Path) -> None:
    """``alembic upgrade head`` / ``downgrade base`` as a person runs them (SQLite file)."""
    url = sqlite_url(tmp_path / "cli" / "specbid.sqlite3")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SPECBID_DATA_DIR")}

    def alembic(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "alembic", "-x", f"url={url}", *args],
            cwd=PROJECT_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout + done.stderr

    alembic("upgrade", "head")
    assert head_revision() in alembic("current")
    alembic("downgrade", "base")
    assert head_revision() not in alembic("current")


async def test_servers_starting_together_upgrade_once(database: Database) -> None:
    """Several servers starting at once on an empty database (OPERATIONS.md "Running it for real"):
    one makes the schema, the others wait for it and find it at head; none fails."""
    engines = [database.engine() for _ in range(3)]
    await asyncio.gather(*(upgrade_to_head(engine) for engine in engines))
    for engine in engines:
        assert await current_revision(engine) == head_revision()
    assert await table_names(engines[0]) >= TABLES
