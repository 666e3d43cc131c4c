"""Durable storage: SQLAlchemy models, engines, migrations and :class:`SqlStore`, the database
implementation of the service's storage port (:class:`~spectacular_bid.service.ports.MatchStore`).

The embedded default is a SQLite file in WAL mode inside the data folder; PostgreSQL is reached
through ``postgresql+asyncpg://…``. The same code and the same tests run on both. The schema is
made only by the Alembic migrations in ``alembic/`` (:mod:`spectacular_bid.store.migrate`).
"""

from spectacular_bid.store.engine import create_engine, database_url, default_sqlite_url
from spectacular_bid.store.repository import SqlStore

__all__ = ["SqlStore", "create_engine", "database_url", "default_sqlite_url"]
