"""Revision 0c4e5a9b7d21 adds ``match.imported_id`` in place (PROTOCOL.md "Limits and close codes"):
every stored row stays as it was, with a NULL ``imported_id``; from then on an imported match keeps
the id its record document gave it there, through every write, on every store; the downgrade drops
the column and nothing else."""

from __future__ import annotations

import dataclasses
from typing import Final

import sqlalchemy as sa
from alembic import command
from sqlalchemy.engine import Connection
from sqlalchemy.engine.interfaces import ReflectedColumn
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.service.ports import MatchMode, MatchRecord, MatchStatus, MatchStore
from spectacular_bid.service.record_document import ENDED
from spectacular_bid.store.engine import for_writing
from spectacular_bid.store.migrate import alembic_config, current_revision
from spectacular_bid.store.models import UtcTimestamp, datetime_from_ms
from spectacular_bid.store.repository import SqlStore

from .conftest import Database
from .factories import WALL_MS, event, player

PREVIOUS: Final = "6c07a19aca3a"
REVISION: Final = "0c4e5a9b7d21"

SETTINGS: Final = {"bank_ms": 120_000, "delay_ms": 10_000, "grace_ms": 20_000}


def header(match_id: str, *, imported: bool, imported_id: str | None = None) -> MatchRecord:
    settings = {**SETTINGS, "imported": True} if imported else dict(SETTINGS)
    return MatchRecord(
        id=match_id,
        mode=MatchMode.INVITE,
        settings=settings,
        first_player="p-ann",
        second_player="p-bob",
        status=MatchStatus.FINISHED,
        winner="first",
        reason="resignation",
        rated=not imported,
        created_at_ms=WALL_MS,
        ended_at_ms=WALL_MS + 60_000,
        imported_id=imported_id,
    )


STORED: Final = [
    header("played", imported=False),
    header("-rf", imported=True),  # imported by the earlier release under the record's own id
    header("Zq3kP0aXy7Lm", imported=True),  # imported under a fresh id: the record's is lost
]
"""What the earlier release stored: no ``imported_id`` anywhere."""

# ``match`` as revision 6c07a19aca3a left it, so the rows are written without today's models.
OLD_PLAYER: Final = sa.table(
    "player",
    sa.column("id", sa.String()),
    sa.column("name", sa.String()),
    sa.column("token_hash", sa.String()),
    sa.column("created_at", UtcTimestamp()),
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
)
OLD_MATCH_EVENT: Final = sa.table(
    "match_event",
    sa.column("match_id", sa.String()),
    sa.column("version", sa.Integer()),
    sa.column("seat", sa.String()),
    sa.column("command", sa.JSON()),
    sa.column("events", sa.JSON()),
    sa.column("recorded_at", UtcTimestamp()),
    sa.column("monotonic_ms", sa.BigInteger()),
    sa.column("clock", sa.JSON()),
    sa.column("received_ms", sa.BigInteger()),
)


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
    engine = database.engine()
    await migrate(engine, "upgrade", PREVIOUS)
    async with engine.begin() as conn:
        await conn.execute(
            OLD_PLAYER.insert(),
            [
                {
                    "id": p.id,
                    "name": p.name,
                    "token_hash": p.token_hash,
                    "created_at": datetime_from_ms(p.created_at_ms),
                }
                for p in (player("ann"), player("bob"))
            ],
        )
        await conn.execute(OLD_MATCH.insert(), [old_match_row(m) for m in STORED])
        rows = []
        for stored in STORED:
            for version in (1, 2):
                made = event(stored.id, version, received_ms=version)
                rows.append(
                    {
                        "match_id": made.match_id,
                        "version": made.version,
                        "seat": made.seat,
                        "command": made.command,
                        "events": made.events,
                        "recorded_at": datetime_from_ms(made.wall_ms),
                        "monotonic_ms": made.mono_ms,
                        "clock": made.clock,
                        "received_ms": made.received_ms,
                    }
                )
        await conn.execute(OLD_MATCH_EVENT.insert(), rows)
    return engine


def _imported_id_column(connection: Connection) -> ReflectedColumn | None:
    columns = sa.inspect(connection).get_columns("match")
    return next((c for c in columns if c["name"] == "imported_id"), None)


async def imported_id_column(engine: AsyncEngine) -> ReflectedColumn | None:
    async with engine.connect() as conn:
        return await conn.run_sync(_imported_id_column)


async def test_upgrade_adds_the_column_and_keeps_every_row(database: Database) -> None:
    engine = await earlier_release_database(database)
    assert await imported_id_column(engine) is None

    await migrate(engine, "upgrade", REVISION)
    assert await current_revision(engine) == REVISION
    column = await imported_id_column(engine)
    assert column is not None
    assert column["nullable"]
    assert isinstance(column["type"], sa.String)
    assert column["type"].length == 64

    await migrate(engine, "upgrade", "head")  # today's store reads today's schema
    async with SqlStore(engine) as store:
        for stored in STORED:
            # imported_id None: not kept before; unrated by 5d2e8f1a7c34 (no account flags)
            assert await store.match(stored.id) == dataclasses.replace(stored, rated=False)
            assert await store.events(stored.id) == [
                event(stored.id, v, received_ms=v) for v in (1, 2)
            ]
        listed = await store.ended_matches(ENDED, 10)
        assert {m.id for m in listed} == {m.id for m in STORED}
        assert all(m.imported_id is None for m in listed)

        fresh = header("Ab12Cd34Ef56", imported=True, imported_id="-rf")
        await store.import_match([], fresh, [], [event(fresh.id, 1)])
        assert await store.match(fresh.id) == fresh
        assert await store.match("-rf") == dataclasses.replace(STORED[1], rated=False)


async def test_downgrade_drops_only_the_column(database: Database) -> None:
    engine = await earlier_release_database(database)
    await migrate(engine, "upgrade", "head")
    fresh = header("Ab12Cd34Ef56", imported=True, imported_id="tmMNSacEu1zd")
    async with SqlStore(engine) as store:
        await store.import_match([], fresh, [], [event(fresh.id, 1)])

    await migrate(engine, "downgrade", PREVIOUS)
    assert await current_revision(engine) == PREVIOUS
    assert await imported_id_column(engine) is None
    async with engine.connect() as conn:
        ids = (await conn.execute(sa.select(OLD_MATCH.c.id).order_by(OLD_MATCH.c.id))).scalars()
        assert list(ids) == sorted([*(m.id for m in STORED), fresh.id])
        versions = await conn.execute(
            sa.select(sa.func.count()).select_from(OLD_MATCH_EVENT)  # every version kept
        )
        assert versions.scalar() == 2 * len(STORED) + 1

    await migrate(engine, "upgrade", "head")
    async with SqlStore(engine) as store:
        assert await store.match(fresh.id) == dataclasses.replace(fresh, imported_id=None)


async def test_imported_id_round_trips_through_every_store(any_store: MatchStore) -> None:
    """Memory and SQL alike: ``import_match`` keeps it, ``save_match`` writes it (or None), the
    list of ended matches gives it back."""
    await any_store.add_player(player("ann"))
    await any_store.add_player(player("bob"))
    kept = header("Ab12Cd34Ef56", imported=True, imported_id="x" * 64)
    await any_store.import_match([], kept, [], [event(kept.id, 1)])
    assert await any_store.match(kept.id) == kept
    played = header("played", imported=False)
    await any_store.save_match(played)
    assert await any_store.match(played.id) == played
    listed = {m.id: m.imported_id for m in await any_store.ended_matches(ENDED, 10)}
    assert listed == {kept.id: "x" * 64, played.id: None}
