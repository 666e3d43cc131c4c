"""A lobby read stays cheap with thousands of ended matches: ``GET /api/lobby`` and each further
page of its finished list ask the database two queries, one for the page of ended matches with
their players and one for the ratings they moved (``tests/store/test_ended_lines_cost.py`` reads
the databases' plans of both). Counted, not timed."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from spectacular_bid.store.repository import SqlStore
from store.ended_rows import Statements, seed_ended

ENDED = 3_000
BACKGROUND = ("server", "match_owner")
"""The tables of the server's lease and of its scan for orphaned matches, which run every
second whatever anyone reads (``store.leases``): their statements are not the lobby's."""


def lobby_queries(statements: Statements) -> list[tuple[str, object]]:
    return [
        (sql, parameters)
        for sql, parameters in statements.take()
        if not any(f" {table} " in sql.replace("\n", " ") for table in BACKGROUND)
    ]


async def test_a_lobby_read_is_two_queries_however_many_matches_ended(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    store = app.state.store
    assert isinstance(store, SqlStore)
    ids = await seed_ended(store.engine, ENDED)
    statements = Statements(store.engine)

    lobby = (await client.get("/api/lobby")).json()
    sent = lobby_queries(statements)
    assert [line["id"] for line in lobby["finished"]] == ids[::-1][: len(lobby["finished"])]
    assert any(line["first_rating_change"] for line in lobby["finished"])
    assert len(sent) == 2, sent
    assert 'FROM "match"' in sent[0][0]
    assert "FROM rating_change" in sent[1][0]

    cursor = lobby["finished_next"]
    for _ in range(3):  # deeper pages cost the same
        page = (await client.get("/api/lobby/finished", params={"before": cursor})).json()
        assert len(lobby_queries(statements)) == 2
        cursor = page["next"]
    assert page["matches"][-1]["id"] == ids[::-1][4 * len(lobby["finished"]) - 1]
