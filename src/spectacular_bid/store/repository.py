"""``SqlStore``: the service's storage port on SQLite or PostgreSQL.

Writes go through the single group-commit writer (:mod:`spectacular_bid.store.writer`) and
return once durable; reads use their own sessions from an ``async_sessionmaker`` and run beside
the writer (on SQLite, WAL lets readers go on while a write commits). The schema must already be
at the migrations' head (:mod:`spectacular_bid.store.migrate`).

Use it as ``async with SqlStore.open(url) as store: …`` or call :meth:`SqlStore.start` and
:meth:`SqlStore.close` around its use.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from types import TracebackType
from typing import Final, Self

from sqlalchemy import and_, case, func, inspect, or_, select, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, async_sessionmaker
from sqlalchemy.orm import aliased

from spectacular_bid.service.ports import (
    JSON,
    ChatRecord,
    EventRecord,
    MatchRecord,
    MatchStatus,
    PlayerRecord,
    RatedResult,
    RatingChange,
    RoundRecord,
    SeatedMatch,
    SessionRecord,
    StorageError,
)
from spectacular_bid.service.telemetry import NO_TELEMETRY, Telemetry
from spectacular_bid.store import accounts
from spectacular_bid.store.chat import chat_record, chat_row
from spectacular_bid.store.checkpoint import DEFAULT_WAL, WalCheckpointer, WalPolicy
from spectacular_bid.store.engine import create_engine
from spectacular_bid.store.handover import HandoverQueries
from spectacular_bid.store.leases import LIVE, Lease, owner_of
from spectacular_bid.store.migrate import head_revision
from spectacular_bid.store.models import (
    ChatLine,
    Match,
    MatchEvent,
    Player,
    PlayerSession,
    Round,
    datetime_from_ms,
)
from spectacular_bid.store.models import RatingChange as RatingChangeRow
from spectacular_bid.store.ratings import rate_match
from spectacular_bid.store.records import (
    event_record,
    event_values,
    match_record,
    match_row,
    player_record,
    player_row,
    rating_change_record,
    round_record,
    round_row,
    session_record,
)
from spectacular_bid.store.sqlite_batches import SqliteBatches
from spectacular_bid.store.writer import GroupCommitWriter
from spectacular_bid.store.writes import Part, WriteKind

log = logging.getLogger(__name__)
READY_TIMEOUT_S: Final = 2.0
"""How long :meth:`SqlStore.unready_reason` waits for the database: a proxy's health check
gives up soon after, and a database that slow is not one to send players to."""


class SqlStore(HandoverQueries):
    """A :class:`~spectacular_bid.service.ports.MatchStore` backed by a SQL database."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        owns_engine: bool = False,
        wal: WalPolicy = DEFAULT_WAL,
        lease: Lease | None = None,
        telemetry: Telemetry = NO_TELEMETRY,
    ) -> None:
        self.engine = engine
        self._wal = wal
        self._owns_engine = owns_engine
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        self._one_statement = (
            engine.execution_options(isolation_level="AUTOCOMMIT")
            if engine.dialect.name == "postgresql"
            else engine
        )
        """For a read of one statement, which needs no transaction of its own: on PostgreSQL
        it is then one round trip, not three (BEGIN, the query, ROLLBACK), each of which waits
        for a turn of a busy event loop while the pool's connection is held."""
        self._one_statement_sessions = async_sessionmaker(
            self._one_statement, expire_on_commit=False
        )
        """Sessions on :attr:`_one_statement`, for a one-statement read that wants model rows:
        the lobby's, which every visitor's page makes every few seconds."""
        self.lease = lease
        """A server's lease on its matches (``store.leases``): taken at :meth:`start`, renewed
        and checked by every commit, given up at :meth:`close`. A server always has one
        (``web.app``); without, the store is one process's alone (a tool, a test of an earlier
        schema) and every live match in it is that process's."""
        self.writer = GroupCommitWriter(
            engine,
            fence=lease.fence if lease is not None else None,
            owner=lease.server_id if lease is not None else None,
            telemetry=telemetry,
        )
        self._checkpointer: WalCheckpointer | None = None
        self._head: str | None = None

    @classmethod
    def open(cls, url: str | URL, lease: Lease | None = None) -> SqlStore:
        """A store with its own engine for ``url``, disposed of by :meth:`close`."""
        return cls(create_engine(url), owns_engine=True, lease=lease)

    def __repr__(self) -> str:
        return f"SqlStore({self.engine.url.render_as_string(hide_password=True)!r})"

    async def start(self) -> None:
        if self.lease is not None:
            await self.lease.register(self.engine)
        self.writer.direct = await SqliteBatches.of(self.engine, self.lease)
        self.writer.start()
        if self.engine.url.get_backend_name() == "sqlite" and self.engine.url.database:
            self._checkpointer = WalCheckpointer(
                self.engine.url.database, self._wal, before_next_write=self.writer.before_next_batch
            )
            self._checkpointer.start()

    async def close(self) -> None:
        """Write what is queued, stop the writer, and dispose of an engine made by :meth:`open`."""
        await self.writer.close()
        try:
            if self.lease is not None:
                await self.lease.release(self.engine)
        except SQLAlchemyError as exc:  # the lease then runs out by itself
            log.warning("the server's lease was not given up: %s", exc)
        if self._checkpointer is not None:
            await self._checkpointer.close()
            self._checkpointer = None
        if self._owns_engine:
            await self.engine.dispose()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def unready_reason(self) -> str | None:
        """None when the database answers within :data:`READY_TIMEOUT_S` with its schema at the
        migrations' head; else why not. Another process may have migrated (or downgraded) the
        database since this one started, so the revision is read each time, the head once."""
        lease_reason = self.lease_reason()
        if lease_reason is not None:
            return lease_reason
        if self._head is None:
            self._head = head_revision()
        try:
            async with asyncio.timeout(READY_TIMEOUT_S):
                revision = await _revision(self.engine)
        except TimeoutError:
            return f"the database did not answer within {READY_TIMEOUT_S:g} s"
        except Exception as exc:  # whatever the driver raises, the answer is "not ready"
            return f"the database cannot be reached: {type(exc).__name__}: {exc}"
        if revision != self._head:
            found = "has no schema" if revision is None else f"is at revision {revision}"
            return f"the database {found}, not at the migrations' head {self._head}"
        return None

    # -- writes: through the group-commit writer ------------------------------------------

    async def add_player(self, player: PlayerRecord) -> None:
        await self.writer.write(WriteKind.PLAYER, [player_row(player)], f"player {player.id}")

    async def save_match(self, match: MatchRecord) -> None:
        await self.writer.write(WriteKind.MATCH, [match_row(match)], f"match {match.id}")

    async def claim_account(
        self,
        player_id: str,
        name_key: str,
        password_hash: str,
        retired_token_hash: str,
        session: SessionRecord,
    ) -> None:
        change = accounts.claim(player_id, name_key, password_hash, retired_token_hash, session)
        await self.writer.write(WriteKind.ACCOUNT, [change], f"the account of {player_id}")

    async def add_session(self, session: SessionRecord) -> None:
        change = accounts.add_session(session)
        await self.writer.write(WriteKind.ACCOUNT, [change], f"a session of {session.player_id}")

    async def touch_session(self, token_hash: str, now_ms: int) -> None:
        change = accounts.touch_session(token_hash, now_ms)
        await self.writer.write(WriteKind.ACCOUNT, [change], "a session's last use")

    async def end_sessions(self, player_id: str, keep: str | None = None) -> None:
        change = accounts.end_sessions(player_id, keep)
        await self.writer.write(WriteKind.ACCOUNT, [change], f"the sessions of {player_id}")

    async def end_session(self, token_hash: str) -> None:
        change = accounts.end_session(token_hash)
        await self.writer.write(WriteKind.ACCOUNT, [change], "a logout")

    async def set_password(
        self, player_id: str, password_hash: str, keep: str | None, *, end_others: bool = True
    ) -> None:
        change = accounts.set_password(player_id, password_hash, keep, end_others)
        await self.writer.write(WriteKind.ACCOUNT, [change], f"the password of {player_id}")

    async def append(
        self,
        records: Sequence[EventRecord],
        *,
        rounds: Sequence[RoundRecord] = (),
        match: MatchRecord | None = None,
        rated: RatedResult | None = None,
    ) -> None:
        if not records:
            return
        if rated is not None and rated.first_player == rated.second_player:
            raise StorageError(f"match {rated.match_id} rates {rated.first_player} against itself")
        last: dict[str, int] = {}
        for record in records:
            before = last.get(record.match_id)
            if before is not None and record.version <= before:
                raise StorageError(
                    f"version {record.version} of {record.match_id} is not after {before}"
                )
            last[record.match_id] = record.version
        first = records[0]
        what = f"version {first.version} of {first.match_id}"
        if len(records) > 1:
            what = f"{len(records)} versions from {what}"
        dialect = self.engine.dialect.name
        parts: list[Part] = [(WriteKind.EVENTS, [event_values(r, dialect) for r in records])]
        if rounds:
            parts.append((WriteKind.ROUND, [round_row(r) for r in rounds]))
        if match is not None:
            parts.append((WriteKind.MATCH, [match_row(match)]))
        if rated is not None:
            parts.append((WriteKind.RATING, [rate_match(rated)]))
        await self.writer.write_parts(tuple(parts), what)

    async def save_round(
        self,
        match_id: str,
        number: int,
        commitment: str,
        salt: str | None = None,
        deck: JSON | None = None,
    ) -> None:
        row = {
            "match_id": match_id,
            "number": number,
            "commitment": commitment,
            "salt": salt,
            "deck": deck,
        }
        await self.writer.write(WriteKind.ROUND, [row], f"round {number} of {match_id}")

    async def import_match(
        self,
        players: Sequence[PlayerRecord],
        match: MatchRecord,
        rounds: Sequence[RoundRecord],
        events: Sequence[EventRecord],
    ) -> None:
        """One write, so one transaction: all of the record is stored, or none of it."""
        versions = [e.version for e in events]
        if any(e.match_id != match.id for e in events) or versions != sorted(set(versions)):
            raise StorageError(f"the events of {match.id} are not its own, in version order")
        dialect = self.engine.dialect.name
        record = {
            "players": [player_row(p) for p in players],
            "match": match_row(match),
            "rounds": [round_row(r) for r in rounds],
            "events": [event_values(e, dialect) for e in events],
        }
        await self.writer.write(WriteKind.IMPORT, [record], f"the record of match {match.id}")

    # -- reads ----------------------------------------------------------------------------

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        async with self._sessions() as session:
            row = await session.scalar(select(Player).where(Player.token_hash == token_hash))
            return None if row is None else player_record(row)

    async def player_by_name_key(self, name_key: str) -> PlayerRecord | None:
        async with self._sessions() as session:
            row = await session.scalar(select(Player).where(Player.name_key == name_key))
            return None if row is None else player_record(row)

    async def session(self, token_hash: str) -> SessionRecord | None:
        async with self._sessions() as session:
            row = await session.get(PlayerSession, token_hash)
            return None if row is None else session_record(row)

    async def players(self, ids: Sequence[str]) -> dict[str, PlayerRecord]:
        if not ids:
            return {}
        async with self._sessions() as session:
            rows = await session.scalars(select(Player).where(Player.id.in_(set(ids))))
            found = {row.id: player_record(row) for row in rows}
        return {i: found[i] for i in ids if i in found}

    async def events(self, match_id: str, since_version: int = 0) -> list[EventRecord]:
        query = (
            select(MatchEvent)
            .where(MatchEvent.match_id == match_id, MatchEvent.version > since_version)
            .order_by(MatchEvent.version)
        )
        async with self._sessions() as session:
            return [event_record(row) for row in await session.scalars(query)]

    async def add_chat_line(self, line: ChatRecord) -> None:
        what = f"chat line {line.number} of {line.match_id}"
        await self.writer.write(WriteKind.CHAT, [chat_row(line)], what)

    async def chat_lines(self, match_id: str) -> list[ChatRecord]:
        query = select(ChatLine).where(ChatLine.match_id == match_id).order_by(ChatLine.number)
        async with self._sessions() as session:
            return [chat_record(row) for row in await session.scalars(query)]

    async def match(self, match_id: str) -> MatchRecord | None:
        async with self._sessions() as session:
            row = await session.get(Match, match_id)
            return None if row is None else match_record(row)

    async def rounds(self, match_id: str) -> list[RoundRecord]:
        query = select(Round).where(Round.match_id == match_id).order_by(Round.number)
        async with self._sessions() as session:
            return [round_record(row) for row in await session.scalars(query)]

    @property
    def server_id(self) -> str | None:
        return self.lease.server_id if self.lease is not None else None

    def lease_reason(self) -> str | None:
        return self.lease.unready_reason() if self.lease is not None else None

    async def register_again(self) -> str | None:
        lease = self.lease
        if lease is None:
            return None
        await lease.register_again(self.engine)
        self.writer.owner = lease.server_id
        return lease.server_id

    async def owner_of(self, match_id: str) -> str | None:
        async with self._one_statement.connect() as conn:
            return await owner_of(conn, match_id, LIVE)

    async def claim_orphans(self, *, own: bool = False) -> list[MatchRecord]:
        lease = self.lease
        if lease is None:  # one process's store: every live match is its own
            return await self.unfinished_matches() if own else []
        claimed: list[str] = []

        async def take_over(conn: AsyncConnection) -> None:
            claimed[:] = await lease.take_over(conn, own=own)  # the last try's, if retried

        await self.writer.write(WriteKind.SERVER, [take_over], "the claim of orphaned matches")
        if not claimed:
            return []
        query = select(Match).where(Match.id.in_(claimed)).order_by(Match.created_at, Match.id)
        async with self._sessions() as session:
            return [match_record(row) for row in await session.scalars(query)]

    async def unfinished_matches(self) -> list[MatchRecord]:
        live = [MatchStatus.WAITING.value, MatchStatus.ACTIVE.value]
        query = select(Match).where(Match.status.in_(live)).order_by(Match.created_at, Match.id)
        async with self._sessions() as session:
            return [match_record(row) for row in await session.scalars(query)]

    async def ended_matches(
        self,
        statuses: Sequence[MatchStatus],
        limit: int,
        before: tuple[int, str] | None = None,
        player: str | None = None,
    ) -> list[MatchRecord]:
        query = select(Match).where(
            Match.status.in_([s.value for s in statuses]), Match.ended_at.is_not(None)
        )
        if player is not None:
            query = query.where(
                or_(Match.first_player_id == player, Match.second_player_id == player)
            )
        if before is not None:
            moment = datetime_from_ms(before[0])
            query = query.where(
                or_(Match.ended_at < moment, and_(Match.ended_at == moment, Match.id < before[1]))
            )
        query = query.order_by(Match.ended_at.desc(), Match.id.desc()).limit(limit)
        async with self._sessions() as session:
            return [match_record(row) for row in await session.scalars(query)]

    async def ended_with_players(
        self, limit: int, before: tuple[int, str] | None = None
    ) -> list[SeatedMatch]:
        """Read backwards along ``match (ended_at, id)``, so a page costs a page whatever the
        number of ended matches. A match has an ``ended_at`` exactly when it is finished or
        aborted (``service.entries.header_of``, the recovery, an import), so that is the whole
        filter: a test of the status too would lead SQLite to the ``(status, ended_at)`` index
        and a sort of every ended match. The cursor is a range on the index's first column
        (``ended_at <= t``) with the tie broken beside it, which both databases seek to."""
        first, second = aliased(Player), aliased(Player)
        query = (
            select(Match, first, second)
            .outerjoin(first, first.id == Match.first_player_id)
            .outerjoin(second, second.id == Match.second_player_id)
            .where(Match.ended_at.is_not(None))
        )
        if before is not None:
            moment = datetime_from_ms(before[0])
            query = query.where(
                Match.ended_at <= moment, or_(Match.ended_at < moment, Match.id < before[1])
            )
        query = query.order_by(Match.ended_at.desc(), Match.id.desc()).limit(limit)
        async with self._one_statement_sessions() as session:
            rows = (await session.execute(query)).all()
        return [
            SeatedMatch(
                match_record(header),
                None if one is None else player_record(one),
                None if two is None else player_record(two),
            )
            for header, one, two in rows
        ]

    async def rating_changes_of(self, match_ids: Sequence[str]) -> list[RatingChange]:
        if not match_ids:
            return []
        query = select(RatingChangeRow).where(RatingChangeRow.match_id.in_(set(match_ids)))
        async with self._one_statement_sessions() as session:
            return [rating_change_record(row) for row in await session.scalars(query)]

    async def results(self, player_id: str) -> tuple[int, int]:
        first_won = Match.winner == "first"
        second_won = Match.winner == "second"
        first, second = Match.first_player_id == player_id, Match.second_player_id == player_id
        won = or_(and_(first_won, first), and_(second_won, second))
        lost = or_(and_(first_won, second), and_(second_won, first))
        query = select(
            func.coalesce(func.sum(case((won, 1), else_=0)), 0),
            func.coalesce(func.sum(case((lost, 1), else_=0)), 0),
        ).where(
            Match.status == MatchStatus.FINISHED.value,
            or_(first, second),
            # A shared-device match: the player held both seats, so it won nothing from anyone.
            Match.first_player_id != Match.second_player_id,
        )
        async with self._sessions() as session:
            wins, losses = (await session.execute(query)).one()
        return int(wins), int(losses)

    async def rating_changes(self, player_id: str, limit: int) -> list[RatingChange]:
        latest = (
            select(RatingChangeRow)
            .where(RatingChangeRow.player_id == player_id)
            .order_by(RatingChangeRow.at.desc(), RatingChangeRow.match_id.desc())
            .limit(limit)
        )
        async with self._sessions() as session:
            rows = [rating_change_record(row) for row in await session.scalars(latest)]
        return rows[::-1]


async def _revision(engine: AsyncEngine) -> str | None:
    """The database's Alembic revision, or None without the schema: read with one query, not
    through Alembic's migration context, which logs two lines each time (a proxy asks every few
    seconds)."""
    async with engine.connect() as conn:
        if not await conn.run_sync(lambda sync: inspect(sync).has_table("alembic_version")):
            return None
        found = await conn.scalar(text("SELECT version_num FROM alembic_version"))
        return str(found) if found is not None else None
