"""Server leases: each live match is owned by exactly one server process (PROTOCOL.md "Several
servers on one database").

Several server processes may share one database. A match's state lives in the memory of the
process that runs it, so exactly one process may write its versions; two writers would fork its
log. So each process, at start, makes a ``server`` row of its own (a fresh id, epoch 0) and a
lease on it, and every match it creates gets a ``match_owner`` row with its id.

- **Renewal and fencing are one statement.** Every transaction of the process's writer begins
  with ``UPDATE server SET lease_until_ms = now + lease WHERE id = me AND epoch = mine AND NOT
  gone`` (:meth:`Lease.fence`). When it touches no row the lease is lost: the transaction is
  rolled back, nothing of it is stored, and from then on every write fails with
  :class:`~spectacular_bid.service.ports.LeaseLostError` without trying. A paused or partitioned
  process can thus never write again once a peer took its lease, however late it wakes.
- **A takeover is one conditional update** of the dead server's row (``gone``, ``epoch + 1``,
  only while its lease is past, or at once when it was a process of this machine that is no
  more: a restart after a crash ends the crashed server's matches at its start, D5), in a
  transaction of the taker's own writer, which fences the taker too. On PostgreSQL the owner's
  fence and the takeover lock the same row, so one of them waits for the other: either the
  owner renewed first (the takeover then finds the lease current and does nothing) or the
  takeover committed first (the fence then finds ``gone`` and fails). On SQLite every write
  transaction begins with ``BEGIN IMMEDIATE``: they are serial anyway.
- **The live matches of a gone server move to a live one** by ``UPDATE match_owner …
  RETURNING`` (in the takeover's transaction, or at any later scan), so a match is claimed by
  exactly one peer however many look at once. A server that stops cleanly marks itself gone at
  once. Live matches with no owner row (stored by a release without leases) are adopted by
  ``INSERT … ON CONFLICT DO NOTHING RETURNING``, once each, the same way.
  The taker then ends each as a service timing failure (D5, ``service.recovery``).
- **Only live matches have an owner row.** A server with a lease deletes a match's row with the
  header that ends it, in one transaction (:func:`owner_changes`), so this table, and every
  scan of it (each server claims orphans every second, ``service.failover``), stays the size of
  what is live, not of every match ever played: at 18,000 stored matches the claim took 19 ms
  of PostgreSQL, inside the writer's transaction, once a second on each server.

Leases are in wall-clock ms: the servers of one database must keep their clocks within a small
part of the lease of each other (NTP does far better than the default 10 s).
"""

from __future__ import annotations

import functools
import os
import secrets
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import (
    ColumnElement,
    Select,
    bindparam,
    exists,
    insert,
    literal,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from spectacular_bid.service.ports import LeaseLostError, MatchStatus
from spectacular_bid.service.settings import LEASE_MS
from spectacular_bid.service.timesource import MsSource, wall_ms
from spectacular_bid.store.engine import for_writing
from spectacular_bid.store.models import Match, MatchOwner, Server, datetime_from_ms

LIVE: Final = (MatchStatus.WAITING.value, MatchStatus.ACTIVE.value)
RENEW_QMARK: Final = "UPDATE server SET lease_until_ms = ? WHERE id = ? AND epoch = ? AND NOT gone"
RENEW_NUMBERED: Final = (
    RENEW_QMARK.replace("?", "$1", 1).replace("?", "$2", 1).replace("?", "$3", 1)
)
"""The renewal and fence (:meth:`Lease.fence`) in the driver's own parameter style: SQLite's
``?``, asyncpg's ``$n``."""


@dataclass(eq=False)
class Lease:
    """This process's lease: its server id, epoch and term; and whether it was lost."""

    server_id: str
    lease_ms: int = LEASE_MS
    now_ms: MsSource = wall_ms
    epoch: int = 0
    lost: bool = False
    registered: bool = False
    until_ms: int = 0
    """When the lease runs out as this process last renewed it: past it (the process was
    paused or cut off), a peer may have taken it, and nothing here knows yet."""
    _renewing_until_ms: int = field(default=0, init=False, repr=False)

    @classmethod
    def new(cls, lease_ms: int = LEASE_MS, now_ms: MsSource = wall_ms) -> Lease:
        if lease_ms < 1:
            raise ValueError(f"a lease must last at least 1 ms, got {lease_ms!r}")
        return cls(secrets.token_hex(16), lease_ms, now_ms)

    async def register(self, engine: AsyncEngine) -> None:
        """Make this server's row, its lease running from now."""
        now = self.now_ms()
        row = {
            "id": self.server_id,
            "epoch": self.epoch,
            "lease_until_ms": now + self.lease_ms,
            "gone": False,
            "started_at": datetime_from_ms(now),
            "host": f"{socket.gethostname()}:{os.getpid()}"[:255],
        }
        async with for_writing(engine).begin() as conn:
            await conn.execute(insert(Server), [row])
        self.registered = True
        self.until_ms = now + self.lease_ms

    async def register_again(self, engine: AsyncEngine) -> None:
        """After the lease was lost: a row of a fresh id at epoch 0, its lease from now. The
        old id stays gone (its matches are a peer's now), so nothing can mistake the new
        process for the one that was fenced off (OPERATIONS.md, "Running it for real")."""
        self.server_id = secrets.token_hex(16)
        self.epoch = 0
        self.registered = False
        await self.register(engine)
        self.lost = False

    def unready_reason(self) -> str | None:
        """Why this process may not be sent new players for its lease, read without the
        database: lost (a write found it taken), or past its term as last renewed."""
        if self.lost:
            return (
                f"this server ({self.server_id}) lost its lease on the database: a peer took "
                "over its matches; it registers again under a new identity"
            )
        late_ms = self.now_ms() - self.until_ms
        if self.registered and late_ms > 0:
            return (
                f"this server's lease on the database ran out {late_ms} ms ago (the process "
                "was paused or cut off) and is not renewed yet"
            )
        return None

    async def fence(self, conn: AsyncConnection) -> None:
        """Renew the lease inside ``conn``'s transaction, or raise :class:`LeaseLostError`.

        It runs before every commit, so it is one statement sent as text straight to the driver:
        building and compiling it through SQLAlchemy each time cost the loop more than running
        it (as for the events' insert, ``store.writer``)."""
        numbered = conn.dialect.paramstyle == "numeric_dollar"
        result = await conn.exec_driver_sql(
            RENEW_NUMBERED if numbered else RENEW_QMARK, self.renewal()
        )
        self.renewed(result.rowcount)

    def renewal(self) -> tuple[int, str, int]:
        """The parameters of the renewal and fence (:data:`RENEW_QMARK`, in its order), for a
        writer that runs it on a driver's connection itself (``store.sqlite_batches``); raise
        :class:`LeaseLostError` once the lease is known lost."""
        if self.lost:
            raise self._error()
        self._renewing_until_ms = self.now_ms() + self.lease_ms
        return (self._renewing_until_ms, self.server_id, self.epoch)

    def renewed(self, rowcount: int) -> None:
        """Take the renewal's count of rows: anything but one means the lease is lost, and
        :class:`LeaseLostError` is raised, now and at every later renewal."""
        if rowcount != 1:
            self.lost = True
            raise self._error()
        self.until_ms = max(self.until_ms, self._renewing_until_ms)

    async def release(self, engine: AsyncEngine) -> None:
        """A clean stop: the row says gone at once, so no peer waits for the lease to run out
        (the process has ended what it owned, or left it for start-up recovery to end)."""
        if self.lost or not self.registered:
            return
        async with for_writing(engine).begin() as conn:
            await conn.execute(
                update(Server)
                .where(Server.id == self.server_id, Server.epoch == self.epoch)
                .values(gone=True, lease_until_ms=self.now_ms())
            )

    async def take_over(self, conn: AsyncConnection, *, own: bool = False) -> list[str]:
        """Take every expired peer's lease and the live matches of those peers and of no one
        (and with ``own``, this server's own: ``MatchStore.claim_orphans``); return the ids of
        the matches now this server's to end. Runs in a fenced transaction."""
        now = self.now_ms()
        peers = await conn.execute(
            select(Server.id, Server.epoch, Server.lease_until_ms, Server.host).where(
                Server.gone.is_(False), Server.id != self.server_id
            )
        )
        for server_id, epoch, lease_until_ms, host in peers.all():
            expired = lease_until_ms < now
            if not expired and not _died_here(host):
                continue
            await conn.execute(
                update(Server)
                .where(
                    Server.id == server_id,
                    Server.epoch == epoch,
                    Server.gone.is_(False),
                    *([Server.lease_until_ms < now] if expired else []),
                )
                .values(gone=True, epoch=epoch + 1)
            )
        gone: ColumnElement[bool] = MatchOwner.server_id.in_(
            select(Server.id).where(Server.gone.is_(True))
        )
        if own:
            gone = or_(gone, MatchOwner.server_id == self.server_id)
        live = select(Match.id).where(Match.status.in_(LIVE))
        moved = await conn.execute(
            update(MatchOwner)
            .where(gone, MatchOwner.match_id.in_(live))
            .values(server_id=self.server_id)
            .returning(MatchOwner.match_id)
        )
        claimed = set(moved.scalars())
        unowned = live.where(~exists().where(MatchOwner.match_id == Match.id))
        adopt = _insert(conn.dialect.name).from_select(
            [MatchOwner.match_id, MatchOwner.server_id],
            unowned.add_columns(literal(self.server_id)),
        )
        adopted = await conn.execute(
            adopt.on_conflict_do_nothing(index_elements=[MatchOwner.match_id]).returning(
                MatchOwner.match_id
            )
        )
        claimed.update(adopted.scalars())
        return sorted(claimed)

    def _error(self) -> LeaseLostError:
        return LeaseLostError(
            f"this server ({self.server_id}) lost its lease on the database: a peer took over "
            "its matches, so it writes nothing more"
        )


async def owner_of(conn: AsyncConnection, match_id: str, statuses: tuple[str, ...]) -> str | None:
    """The live server that runs the match ``match_id`` while its status is one of
    ``statuses``: where its sockets' commands go."""
    result = await conn.execute(_owner_query(statuses), {"match_id": match_id})
    found: str | None = result.scalar_one_or_none()
    return found


@functools.cache
def _owner_query(statuses: tuple[str, ...]) -> Select[str]:
    """:func:`owner_of`'s query, made once: made anew, it cost about 0.1 ms a call (building it
    and its cache key), and every socket and join of a match on a peer asks it."""
    return (
        select(MatchOwner.server_id)
        .join(Server, Server.id == MatchOwner.server_id)
        .join(Match, Match.id == MatchOwner.match_id)
        .where(
            MatchOwner.match_id == bindparam("match_id"), ~Server.gone, Match.status.in_(statuses)
        )
    )


def owner_changes(headers: Iterable[Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """Of a batch's match headers (one per match), the ids of the live matches, whose owner row
    is made if there is none, and of the ended ones, whose owner row goes: an ended match is
    run by nobody."""
    live: list[str] = []
    ended: list[str] = []
    for header in headers:
        (live if header["status"] in LIVE else ended).append(header["id"])
    return live, ended


def _insert(dialect: str) -> Any:
    return postgresql.insert(MatchOwner) if dialect == "postgresql" else sqlite.insert(MatchOwner)


def _died_here(host: str) -> bool:
    """Whether ``host`` (``name:pid``) names a process of this machine that is no more: a
    server restarted after a crash need not wait for the dead one's lease to run out. A process
    of another machine (or container) is judged by its lease alone, and so is one whose pid is
    in use again, by chance."""
    name, _, pid = host.rpartition(":")
    if name != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False
