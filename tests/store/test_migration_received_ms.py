"""Revision 6c07a19aca3a upgrades a database of the earlier release in place: its versions gain a
NULL ``received_ms``, and the matches that release rated against the rated policy (shared-device
ones above all) become unrated, while every other row stays as it was."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.engine import Connection
from sqlalchemy.engine.interfaces import ReflectedColumn
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.service.ports import MatchMode, MatchRecord, MatchStatus
from spectacular_bid.store.engine import for_writing, sqlite_url
from spectacular_bid.store.migrate import PROJECT_ROOT, alembic_config, current_revision
from spectacular_bid.store.models import UtcTimestamp, datetime_from_ms
from spectacular_bid.store.records import match_row, player_row
from spectacular_bid.store.repository import SqlStore

from .conftest import Database
from .factories import WALL_MS, event, player

pytestmark = pytest.mark.usefixtures("versions_without_relayed_ms")

INITIAL: Final = "1ee0302b9655"
REVISION: Final = "6c07a19aca3a"

DEFAULT_CLOCK: Final[dict[str, Any]] = {
    "bank_ms": 120_000,
    "delay_ms": 10_000,
    "grace_ms": 20_000,
    "join_timeout_ms": 600_000,
}
"""The settings the earlier release stored for a match on the default time control."""


@dataclass(frozen=True)
class Stored:
    """A match header as the earlier release stored it, and whether it is rated after the
    upgrade. The defaults are a rated match that the policy keeps rated."""

    id: str
    mode: MatchMode = MatchMode.INVITE
    settings: dict[str, Any] = field(default_factory=dict)
    """Changes to :data:`DEFAULT_CLOCK`."""
    first: str | None = "p-ann"
    second: str | None = "p-bob"
    status: MatchStatus = MatchStatus.FINISHED
    winner: str | None = "first"
    reason: str | None = "resignation"
    rated: bool = True
    rated_after: bool = True

    def excluded(self) -> Stored:
        """Rated by the earlier release, but not by the policy."""
        return dataclasses.replace(self, rated_after=False)

    def unrated(self) -> Stored:
        """Unrated by the earlier release: stays so, even where the policy would rate it."""
        return dataclasses.replace(self, rated=False, rated_after=False)

    def record(self, *, rated: bool) -> MatchRecord:
        ended = self.status in (MatchStatus.FINISHED, MatchStatus.ABORTED)
        return MatchRecord(
            id=self.id,
            mode=self.mode,
            settings={**DEFAULT_CLOCK, **self.settings},
            first_player=self.first,
            second_player=self.second,
            status=self.status,
            winner=self.winner,
            reason=self.reason,
            rated=rated,
            created_at_ms=WALL_MS,
            ended_at_ms=WALL_MS + 60_000 if ended else None,
        )


SHARED, OPEN = MatchMode.SHARED, MatchMode.OPEN
ABORTED = MatchStatus.ABORTED

MATCHES: Final = [
    # Online, two players, the default clock, a rated ending: they stay rated.
    Stored("invite"),
    Stored("open", OPEN, first="p-bob", second="p-ann", winner="second", reason="time"),
    Stored("by-score", reason="zero_balance"),
    Stored("not-imported", settings={"imported": False}),
    # Each fails the policy in one way (the shared ones in two, as one person holds both seats).
    Stored("shared", SHARED, second="p-ann", reason="zero_balance").excluded(),
    Stored("shared-one-seat", SHARED, second=None, reason="time").excluded(),
    Stored("shared-two-ids", SHARED).excluded(),
    Stored("same-player", second="p-ann").excluded(),
    Stored("no-first", OPEN, first=None).excluded(),
    Stored("custom-clock", settings={"bank_ms": 300_000, "delay_ms": 5_000}).excluded(),
    Stored("custom-bank", OPEN, settings={"bank_ms": 60_000}).excluded(),
    Stored("custom-delay", settings={"delay_ms": 5_000}).excluded(),
    Stored("imported", settings={"imported": True}).excluded(),
    Stored("timing-failure", status=ABORTED, reason="timing_failure").excluded(),
    Stored("no-winner", winner=None).excluded(),
    # Unrated by the earlier release.
    Stored("aborted", status=ABORTED, second=None, winner=None, reason="join_timeout").unrated(),
    Stored("eligible-but-unrated").unrated(),
    Stored("active", OPEN, status=MatchStatus.ACTIVE, winner=None, reason=None).unrated(),
]

OLD_EVENTS: Final = {"invite": 3, "shared": 2}
"""How many versions the earlier release stored, for some of the matches."""

# The tables as the initial revision made them, so the rows are written without today's models.
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
)


def old_event_row(match_id: str, version: int) -> dict[str, Any]:
    """The row the earlier release stored for ``event(match_id, version)``."""
    made = event(match_id, version)
    return {
        "match_id": made.match_id,
        "version": made.version,
        "seat": made.seat,
        "command": made.command,
        "events": made.events,
        "recorded_at": datetime_from_ms(made.wall_ms),
        "monotonic_ms": made.mono_ms,
        "clock": made.clock,
    }


async def migrate(engine: AsyncEngine, direction: str, revision: str) -> None:
    """``alembic upgrade|downgrade <revision>`` on ``engine``, in one transaction as
    :mod:`spectacular_bid.store.migrate` runs them."""

    def run(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        getattr(command, direction)(config, revision)

    async with for_writing(engine).begin() as connection:
        await connection.run_sync(run)


async def earlier_release_database(database: Database) -> AsyncEngine:
    """An engine on a database at the initial revision, holding what the earlier release
    stored."""
    engine = database.engine()
    await migrate(engine, "upgrade", INITIAL)
    assert await current_revision(engine) == INITIAL
    async with engine.begin() as conn:
        await conn.execute(OLD_PLAYER.insert(), [player_row(player(n)) for n in ("ann", "bob")])
        await conn.execute(
            OLD_MATCH.insert(), [match_row(m.record(rated=m.rated)) for m in MATCHES]
        )
        await conn.execute(
            OLD_MATCH_EVENT.insert(),
            [old_event_row(m, v) for m, last in OLD_EVENTS.items() for v in range(1, last + 1)],
        )
    return engine


def _received_ms_column(connection: Connection) -> ReflectedColumn | None:
    columns = sa.inspect(connection).get_columns("match_event")
    return next((c for c in columns if c["name"] == "received_ms"), None)


async def received_ms_column(engine: AsyncEngine) -> ReflectedColumn | None:
    async with engine.connect() as conn:
        return await conn.run_sync(_received_ms_column)


async def ratings(engine: AsyncEngine) -> dict[str, bool]:
    async with engine.connect() as conn:
        rows = await conn.execute(sa.select(OLD_MATCH.c.id, OLD_MATCH.c.rated))
        return {match_id: bool(rated) for match_id, rated in rows}


async def test_upgrade_keeps_old_versions_and_applies_the_rating_policy(
    database: Database,
) -> None:
    engine = await earlier_release_database(database)
    assert await received_ms_column(engine) is None

    await migrate(engine, "upgrade", REVISION)
    assert await current_revision(engine) == REVISION
    column = await received_ms_column(engine)
    assert column is not None
    assert column["nullable"]
    assert isinstance(column["type"], sa.BigInteger)
    # Only ``rated`` changed, and only where the policy says so.
    assert await ratings(engine) == {m.id: m.rated_after for m in MATCHES}

    await migrate(engine, "upgrade", "head")  # today's store reads today's schema
    async with SqlStore(engine) as store:
        for match_id, last in OLD_EVENTS.items():
            assert await store.events(match_id) == [event(match_id, v) for v in range(1, last + 1)]
            assert all(e.received_ms is None for e in await store.events(match_id))
        for stored in MATCHES:
            # 5d2e8f1a7c34 then unrates every match: none recorded its seats' account flags.
            assert await store.match(stored.id) == stored.record(rated=False)

        new = [
            event("invite", 4, received_ms=9_000_000_000_004),
            event("invite", 5),
            event("invite", 6, received_ms=0),
        ]
        await store.append(new)
        assert await store.events("invite", since_version=3) == new
        assert [e.received_ms for e in await store.events("invite")] == [
            None,
            None,
            None,
            9_000_000_000_004,
            None,
            0,
        ]


async def test_downgrade_drops_the_column_and_keeps_the_ratings(database: Database) -> None:
    """The downgrade keeps every row but ``received_ms``; the ratings stay as the policy left
    them, and upgrading again changes nothing more."""
    engine = await earlier_release_database(database)
    await migrate(engine, "upgrade", REVISION)
    async with SqlStore(engine) as store:
        await store.append([event("invite", 4, received_ms=9_000_000_000_004)])
    after_policy = {m.id: m.rated_after for m in MATCHES}
    assert await ratings(engine) == after_policy

    await migrate(engine, "downgrade", INITIAL)
    assert await current_revision(engine) == INITIAL
    assert await received_ms_column(engine) is None
    assert await ratings(engine) == after_policy
    async with engine.connect() as conn:
        versions = await conn.execute(
            sa.select(OLD_MATCH_EVENT.c.version)
            .where(OLD_MATCH_EVENT.c.match_id == "invite")
            .order_by(OLD_MATCH_EVENT.c.version)
        )
        assert list(versions.scalars()) == [1, 2, 3, 4]

    await migrate(engine, "upgrade", REVISION)
    assert await ratings(engine) == after_policy
    async with SqlStore(engine) as store:
        assert [e.received_ms for e in await store.events("invite")] == [None] * 4


async def test_received_ms_round_trips_through_every_write(database: Database) -> None:
    """``append`` and ``import_match`` both write ``received_ms``; None stays None."""
    engine = database.engine()
    await migrate(engine, "upgrade", "head")
    async with SqlStore(engine) as store:
        ann, bob = player("ann"), player("bob")
        await store.add_player(ann)
        await store.add_player(bob)
        live = Stored("live", status=MatchStatus.ACTIVE, winner=None, reason=None)
        await store.save_match(live.record(rated=False))
        appended = [event("live", 1, received_ms=2**53), event("live", 2)]
        await store.append(appended)
        assert await store.events("live") == appended

        imported = [event("imported", 1), event("imported", 2, received_ms=9_000_000_000_002)]
        header = Stored("imported", settings={"imported": True}).record(rated=False)
        await store.import_match([], header, [], imported)
        assert await store.events("imported") == imported


def test_the_rating_fix_cannot_be_rendered_offline(tmp_path: Path) -> None:
    """``alembic upgrade --sql`` cannot read the stored matches, so it stops at this revision
    rather than print a migration that would leave their ratings unfixed."""
    url = sqlite_url(tmp_path / "offline" / "specbid.sqlite3")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SPECBID_DATA_DIR")}
    alembic = [sys.executable, "-m", "alembic"]
    done = subprocess.run(
        [*alembic, "-x", f"url={url}", "upgrade", f"{INITIAL}:{REVISION}", "--sql"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "cannot be rendered as SQL" in done.stderr
