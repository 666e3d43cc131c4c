"""Alembic's environment: migrations on SQLite (aiosqlite) and PostgreSQL (asyncpg).

The database is, in this order: a connection handed in by the program
(``config.attributes["connection"]``, see :mod:`spectacular_bid.store.migrate`), ``-x url=…``,
``config.attributes["url"]``, ``$DATABASE_URL``, or the SQLite file in ``$SPECBID_DATA_DIR``
(default ``./data``). Engines come from :func:`spectacular_bid.store.engine.create_engine`, so
SQLite runs each migration run in one ``BEGIN IMMEDIATE`` transaction — its DDL is transactional
there too — and ``render_as_batch`` lets later migrations alter SQLite tables.
"""

from __future__ import annotations

import asyncio
from logging.config import fileConfig
from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy.engine import URL, Connection

from spectacular_bid.store.engine import create_engine, for_writing, resolve_url
from spectacular_bid.store.models import Base, UtcTimestamp

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name)

target_metadata = Base.metadata


def chosen_url() -> URL:
    given = context.get_x_argument(as_dictionary=True).get("url") or config.attributes.get("url")
    return resolve_url(given)


def render_item(kind: str, item: Any, _context: AutogenContext) -> str | Literal[False]:
    """Autogenerate writes the stored type of :class:`UtcTimestamp`, so that migrations never
    import the application's models."""
    if kind == "type" and isinstance(item, UtcTimestamp):
        return "sa.DateTime(timezone=True)"
    return False


def run_migrations_offline() -> None:
    """``alembic upgrade head --sql``: print the SQL instead of running it."""
    url = chosen_url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        transactional_ddl=True,
        literal_binds=True,
        render_as_batch=url.get_backend_name() == "sqlite",
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_on(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        transactional_ddl=True,
        render_as_batch=connection.dialect.name == "sqlite",
        render_item=render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_async_migrations() -> None:
    engine = create_engine(chosen_url())
    try:
        async with for_writing(engine).connect() as connection:
            await connection.run_sync(run_on)
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        asyncio.run(run_async_migrations())
    else:
        run_on(connection)


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
