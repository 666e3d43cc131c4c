"""A lobby read stays cheap with thousands of ended matches: a page of them is one query and
their rating changes one more, and each walks an index (no sort of every ended match, no scan
of every rating change). Counted in statements and read from the databases' own plans, not
timed."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.store.repository import SqlStore

from .ended_rows import Statements, seed_ended

ENDED = 3_000


async def plan(engine: AsyncEngine, statement: str, parameters: Any) -> str:
    """The database's plan for one statement as it was sent."""
    explain = "EXPLAIN QUERY PLAN " if engine.dialect.name == "sqlite" else "EXPLAIN "
    async with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            await conn.execute(text("ANALYZE"))  # as autovacuum would have, long since
        rows = await conn.exec_driver_sql(explain + statement, parameters)
        return "\n".join(" ".join(str(part) for part in row) for row in rows)


def assert_walks_an_index(found: str, table: str) -> None:
    assert "TEMP B-TREE" not in found, found  # SQLite sorting the rows it read
    assert f"SCAN {table}\n" not in found + "\n", found  # SQLite reading the whole table
    assert "Sort" not in found, found  # PostgreSQL sorting
    assert f"Seq Scan on {table}" not in found, found  # PostgreSQL reading the whole table


async def test_a_page_and_its_ratings_are_two_indexed_queries(
    engine: AsyncEngine, store: SqlStore
) -> None:
    ids = await seed_ended(engine, ENDED)
    statements = Statements(engine)

    page = await store.ended_with_players(11)
    assert [s.match.id for s in page] == ids[::-1][:11]
    assert page[0].first is not None
    assert page[0].first.name == "ann"
    ((page_sql, page_parameters),) = statements.take()
    changes = await store.rating_changes_of([s.match.id for s in page])
    assert len(changes) == 2 * sum(s.match.rated for s in page) > 0
    ((changes_sql, changes_parameters),) = statements.take()
    later = await store.ended_with_players(11, (page[-1].match.ended_at_ms or 0, page[-1].match.id))
    assert [s.match.id for s in later] == ids[::-1][11:22]
    ((later_sql, later_parameters),) = statements.take()

    assert_walks_an_index(await plan(engine, page_sql, page_parameters), "match")
    assert_walks_an_index(await plan(engine, later_sql, later_parameters), "match")
    assert_walks_an_index(await plan(engine, changes_sql, changes_parameters), "rating_change")
