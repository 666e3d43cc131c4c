"""Bring a database's schema to the migrations' head, or tell how far it is from it.

The Alembic migrations in ``alembic/`` (beside ``src/``) are the only way the schema is made.
``specbid serve`` calls :func:`upgrade_to_head` at start, or with the flag that forbids upgrading,
:func:`require_head`, which refuses with a message saying what to run.

Every function takes a URL (an engine is made and disposed of) or an :class:`AsyncEngine`, and
runs Alembic on a connection of that engine inside the running event loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import make_url, text
from sqlalchemy.engine import URL, Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.store.engine import create_engine, for_writing

PROJECT_ROOT: Final = Path(__file__).resolve().parents[3]
ALEMBIC_DIR: Final = PROJECT_ROOT / "alembic"


class SchemaNotAtHeadError(RuntimeError):
    """The database's schema is not the one this version of the program needs."""


def alembic_config() -> Config:
    """Alembic's configuration for the migrations in :data:`ALEMBIC_DIR`, without its logging
    set-up (the program has its own)."""
    ini = PROJECT_ROOT / "alembic.ini"
    config = Config(str(ini)) if ini.is_file() else Config()
    config.set_main_option("script_location", str(ALEMBIC_DIR))
    config.attributes["configure_logger"] = False
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError(f"no migrations found in {ALEMBIC_DIR}")
    return head


@asynccontextmanager
async def _engine(target: str | URL | AsyncEngine) -> AsyncIterator[AsyncEngine]:
    if isinstance(target, AsyncEngine):
        yield target
        return
    engine = create_engine(target)
    try:
        yield engine
    finally:
        await engine.dispose()


def _with_connection(action: Callable[[Config], None]) -> Callable[[Connection], None]:
    def run(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        action(config)

    return run


MIGRATION_LOCK_KEY: Final = 0x5BEC_B1D0_0000_0001
"""PostgreSQL's advisory lock around an upgrade (any fixed 64-bit key of ours)."""


async def upgrade_to_head(target: str | URL | AsyncEngine) -> None:
    """Run every migration the database lacks, in one transaction.

    Several servers may start together on one database (OPERATIONS.md "Running it for real"): one
    upgrades, the others wait for it and then find the schema at head. On SQLite the transaction's
    ``BEGIN IMMEDIATE`` makes them wait; on PostgreSQL, whose DDL takes no such lock, a
    transaction-scoped advisory lock does (two concurrent ``CREATE TABLE`` would otherwise fail one
    server's start).
    """
    async with _engine(target) as engine, for_writing(engine).begin() as connection:
        if connection.dialect.name == "postgresql":
            lock = text("SELECT pg_advisory_xact_lock(:key)")
            await connection.execute(lock, {"key": MIGRATION_LOCK_KEY})
        await connection.run_sync(_with_connection(lambda c: command.upgrade(c, "head")))


async def downgrade_to_base(target: str | URL | AsyncEngine) -> None:
    """Undo every migration: drop all of the schema's tables (tests and development only)."""
    async with _engine(target) as engine, for_writing(engine).begin() as connection:
        await connection.run_sync(_with_connection(lambda c: command.downgrade(c, "base")))


async def current_revision(target: str | URL | AsyncEngine) -> str | None:
    """The database's revision, or None for a database without the schema."""
    async with _engine(target) as engine, engine.connect() as connection:
        return await connection.run_sync(
            lambda sync: MigrationContext.configure(sync).get_current_revision()
        )


async def is_at_head(target: str | URL | AsyncEngine) -> bool:
    return await current_revision(target) == head_revision()


async def require_head(target: str | URL | AsyncEngine) -> None:
    """Raise :class:`SchemaNotAtHeadError`, saying what to run, unless the schema is at head."""
    current = await current_revision(target)
    head = head_revision()
    if current == head:
        return
    url = target.url if isinstance(target, AsyncEngine) else make_url(target)
    shown = url.render_as_string(hide_password=True)
    found = "has no schema" if current is None else f"is at revision {current}"
    raise SchemaNotAtHeadError(
        f"the database {shown} {found}, but this version of Spectacular Bid needs revision "
        f"{head}: run `alembic -x url=<URL> upgrade head`, or start without the flag that "
        "forbids upgrading"
    )
