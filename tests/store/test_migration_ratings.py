"""Revision 5d2e8f1a7c34 adds ratings in place (PROTOCOL.md "Players: profiles, ratings and
archives"): every stored player keeps its row with no rating, every stored match keeps its row with
both account flags false and ``rated = false`` (its replay would re-derive false from those flags),
``rating_change`` starts empty; the downgrade drops what the upgrade added and nothing else."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.service.match_ratings import rate
from spectacular_bid.service.ports import MatchMode, MatchRecord, MatchStatus, RatedResult
from spectacular_bid.store.engine import for_writing, sqlite_url
from spectacular_bid.store.migrate import PROJECT_ROOT, alembic_config, current_revision
from spectacular_bid.store.models import UtcTimestamp, datetime_from_ms
from spectacular_bid.store.repository import SqlStore

from .conftest import Database
from .factories import WALL_MS, event, player

pytestmark = pytest.mark.usefixtures("versions_without_relayed_ms")

PREVIOUS: Final = "3b9f4c2d8e10"
REVISION: Final = "5d2e8f1a7c34"
ARGON: Final = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"

# The tables as revision 3b9f4c2d8e10 left them, so the rows are written without today's models.
OLD_PLAYER: Final = sa.table(
    "player",
    sa.column("id", sa.String()),
    sa.column("name", sa.String()),
    sa.column("token_hash", sa.String()),
    sa.column("created_at", UtcTimestamp()),
    sa.column("name_key", sa.String()),
    sa.column("password_hash", sa.String()),
)
OLD_MATCH: Final = sa.table(
    "match",
    sa.column("id", sa.String()),
    sa.column("mode", sa.String()),
    sa.column("settings", sa.JSON()),
    sa.column("first_player_id", sa.String()),
    sa.column("second_player_id", sa.String()),
    sa.column("status", sa.String()),
    sa.column("winner", sa.String()),
    sa.column("reason", sa.String()),
    sa.column("rated", sa.Boolean()),
    sa.column("created_at", UtcTimestamp()),
    sa.column("ended_at", UtcTimestamp()),
    sa.column("imported_id", sa.String()),
)
SETTINGS: Final = {"bank_ms": 120_000, "delay_ms": 10_000, "grace_ms": 20_000}


def header(match_id: str, *, rated: bool, status: MatchStatus) -> MatchRecord:
    over = status is MatchStatus.FINISHED
    return MatchRecord(
        id=match_id,
        mode=MatchMode.INVITE,
        settings=dict(SETTINGS),
        first_player="p-ann",
        second_player="p-bob",
        status=status,
        winner="first" if over else None,
        reason="resignation" if over else None,
        rated=rated,
        created_at_ms=WALL_MS,
        ended_at_ms=WALL_MS + 60_000 if over else None,
    )


STORED: Final = [
    header("rated", rated=True, status=MatchStatus.FINISHED),
    header("unrated", rated=False, status=MatchStatus.FINISHED),
    header("live", rated=False, status=MatchStatus.ACTIVE),
]


def old_match_row(record: MatchRecord) -> dict[str, object]:
    return {
        "id": record.id,
        "mode": record.mode.value,
        "settings": record.settings,
        "first_player_id": record.first_player,
        "second_player_id": record.second_player,
        "status": record.status.value,
        "winner": record.winner,
        "reason": record.reason,
        "rated": record.rated,
        "created_at": datetime_from_ms(record.created_at_ms),
        "ended_at": None if record.ended_at_ms is None else datetime_from_ms(record.ended_at_ms),
        "imported_id": None,
    }


async def migrate(engine: AsyncEngine, direction: str, revision: str) -> None:
    """``alembic upgrade|downgrade <revision>`` on ``engine``, in one transaction."""

    def run(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        getattr(command, direction)(config, revision)

    async with for_writing(engine).begin() as connection:
        await connection.run_sync(run)


async def earlier_release_database(database: Database) -> AsyncEngine:
    """A database at 3b9f4c2d8e10: an account (Ann), a guest (Bob) and their matches."""
    engine = database.engine()
    await migrate(engine, "upgrade", PREVIOUS)
    ann, bob = player("ann"), player("bob")
    async with engine.begin() as conn:
        await conn.execute(
            OLD_PLAYER.insert(),
            [
                {
                    "id": p.id,
                    "name": p.name,
                    "token_hash": p.token_hash,
                    "created_at": datetime_from_ms(p.created_at_ms),
                    "name_key": key,
                    "password_hash": password,
                }
                for p, key, password in ((ann, "ann", ARGON), (bob, None, None))
            ],
        )
        await conn.execute(OLD_MATCH.insert(), [old_match_row(m) for m in STORED])
    return engine


def _schema(connection: Connection) -> dict[str, set[str]]:
    inspector = sa.inspect(connection)
    return {
        "tables": set(inspector.get_table_names()),
        "player": {c["name"] for c in inspector.get_columns("player")},
        "match": {c["name"] for c in inspector.get_columns("match")},
        "match indexes": {str(i["name"]) for i in inspector.get_indexes("match")},
    }


async def schema(engine: AsyncEngine) -> dict[str, set[str]]:
    async with engine.connect() as conn:
        return await conn.run_sync(_schema)


async def test_upgrade_unrates_every_match_and_rates_no_player(database: Database) -> None:
    engine = await earlier_release_database(database)
    before = await schema(engine)
    await migrate(engine, "upgrade", REVISION)
    assert await current_revision(engine) == REVISION
    after = await schema(engine)
    assert after["tables"] == before["tables"] | {"rating_change"}
    assert after["match"] == before["match"] | {"first_account", "second_account"}
    assert after["player"] - before["player"] == {
        "rating",
        "rating_deviation",
        "rating_volatility",
        "rated_at",
    }
    old_style = old_match_row(header("old", rated=False, status=MatchStatus.ACTIVE))
    async with engine.begin() as conn:  # a header written without the flags, as before
        await conn.execute(OLD_MATCH.insert(), [old_style])

    async with SqlStore(engine) as store:
        for stored in STORED:
            got = await store.match(stored.id)
            assert got is not None
            assert (got.first_account, got.second_account) == (False, False)
            assert got == dataclasses.replace(stored, rated=False)
        old = await store.match("old")
        assert old is not None
        assert (old.first_account, old.second_account) == (False, False)  # the server default
        players = await store.players(["p-ann", "p-bob"])
        assert {(p.rating, p.rated_at_ms) for p in players.values()} == {(None, None)}
        assert players["p-ann"].is_account
        assert await store.rating_changes("p-ann", 10) == []
        assert await store.results("p-ann") == (2, 0)

        # The upgraded database rates the next ending, from newcomers' ratings.
        await store.append([event("live", 1)])
        rated = RatedResult("live", "p-ann", "p-bob", False, WALL_MS + 90_000)
        await store.append([event("live", 2)], rated=rated)
        ann_change, _ = rate(rated, (None, None), (None, None))
        assert await store.rating_changes("p-ann", 10) == [ann_change]


async def test_downgrade_drops_the_ratings_and_keeps_every_row(database: Database) -> None:
    engine = await earlier_release_database(database)
    before = await schema(engine)
    await migrate(engine, "upgrade", REVISION)
    async with SqlStore(engine) as store:
        await store.append([event("live", 1)])
        rated = RatedResult("live", "p-ann", "p-bob", True, WALL_MS + 90_000)
        await store.append([event("live", 2)], rated=rated)

    await migrate(engine, "downgrade", PREVIOUS)
    assert await current_revision(engine) == PREVIOUS
    assert await schema(engine) == before
    async with engine.connect() as conn:
        rows = await conn.execute(sa.select(OLD_MATCH.c.id, OLD_MATCH.c.rated))
        assert {match_id: bool(rated) for match_id, rated in rows} == {m.id: False for m in STORED}
        players = await conn.execute(sa.select(sa.func.count()).select_from(OLD_PLAYER))
        assert players.scalar() == 2

    await migrate(engine, "upgrade", REVISION)  # and up again, as new
    async with SqlStore(engine) as store:
        assert await store.rating_changes("p-ann", 10) == []
        assert (await store.players(["p-ann"]))["p-ann"].rating is None


def test_the_revision_renders_offline(tmp_path: Path) -> None:
    """It reads nothing stored (every match is unrated by one UPDATE), so ``--sql`` prints it."""
    url = sqlite_url(tmp_path / "offline" / "specbid.sqlite3")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SPECBID_DATA_DIR")}
    alembic = [sys.executable, "-m", "alembic", "-x", f"url={url}"]
    done = subprocess.run(
        [*alembic, "upgrade", f"{PREVIOUS}:{REVISION}", "--sql"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "CREATE TABLE rating_change" in done.stdout
    assert 'UPDATE "match" SET rated=0' in done.stdout
