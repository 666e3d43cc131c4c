"""Server leases (PROTOCOL.md "Several servers on one database"): several servers on one database,
each owning its matches.

Two stores on one database stand for two server processes (each with its own lease, engine and
writer). Time is each lease's own clock, moved by hand, so that a lease runs out when a test
says so and not when a slow machine does.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import cast

import pytest
from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql.asyncpg import AsyncAdapt_asyncpg_connection

from spectacular_bid.service.ports import LeaseLostError, MatchStatus
from spectacular_bid.store.engine import for_writing
from spectacular_bid.store.leases import Lease
from spectacular_bid.store.migrate import upgrade_to_head
from spectacular_bid.store.models import MatchOwner, Server
from spectacular_bid.store.repository import SqlStore

from .conftest import Database
from .factories import WALL_MS, event, match, player

LEASE_MS = 10_000


class Clock:
    """A wall clock a test moves."""

    def __init__(self) -> None:
        self.ms = WALL_MS

    def __call__(self) -> int:
        return self.ms


@asynccontextmanager
async def server(database: Database, clock: Clock) -> AsyncIterator[SqlStore]:
    store = SqlStore(database.engine(), lease=Lease.new(LEASE_MS, clock))
    await store.start()
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def ready(database: Database) -> Database:
    await upgrade_to_head(database.engine())
    return database


async def owners(store: SqlStore) -> dict[str, str]:
    async with store.engine.connect() as conn:
        rows = await conn.execute(select(MatchOwner.match_id, MatchOwner.server_id))
        return {str(match_id): str(server_id) for match_id, server_id in rows}


async def seeded(store: SqlStore, *match_ids: str) -> None:
    for name in ("ann", "bob"):
        if not await store.players([f"p-{name}"]):
            await store.add_player(player(name))
    for match_id in match_ids:
        await store.append([event(match_id, 1)], match=match(match_id))


async def test_each_server_owns_the_matches_it_makes(ready: Database) -> None:
    clock = Clock()
    async with server(ready, clock) as a, server(ready, clock) as b:
        await seeded(a, "a1")
        await seeded(b, "b1")
        assert a.lease is not None
        assert b.lease is not None
        assert await owners(a) == {"a1": a.lease.server_id, "b1": b.lease.server_id}
        # A later live header keeps its owner.
        await a.save_match(match("a1"))
        assert (await owners(a))["a1"] == a.lease.server_id
        # Neither claims the other's live match while both leases run.
        assert await a.claim_orphans() == []
        assert await b.claim_orphans() == []


async def test_a_peer_claims_the_matches_of_a_server_whose_lease_ran_out(
    ready: Database,
) -> None:
    clock_a, clock_b = Clock(), Clock()
    async with server(ready, clock_a) as a, server(ready, clock_b) as b:
        await seeded(a, "a1", "a2")
        await seeded(b, "b1")
        clock_b.ms += LEASE_MS - 1  # a's lease runs until WALL_MS + LEASE_MS: not yet out
        assert await b.claim_orphans() == []
        clock_b.ms += 2
        claimed = await b.claim_orphans()
        assert [m.id for m in claimed] == ["a1", "a2"]
        assert b.lease is not None
        assert set((await owners(b)).values()) == {b.lease.server_id}
        assert await b.claim_orphans() == []  # once

        # a wakes: whatever it writes now is refused, and nothing of it is stored.
        with pytest.raises(LeaseLostError):
            await a.append([event("a1", 2)])
        with pytest.raises(LeaseLostError):
            await a.add_player(player("cid"))
        assert [e.version for e in await b.events("a1")] == [1]
        assert await b.players(["p-cid"]) == {}
        assert a.lease is not None
        assert a.lease.lost


async def test_a_renewed_lease_is_not_taken(ready: Database) -> None:
    clock_a, clock_b = Clock(), Clock()
    async with server(ready, clock_a) as a, server(ready, clock_b) as b:
        await seeded(a, "a1")
        clock_a.ms += LEASE_MS  # a commits (renews) at its own later time...
        await a.append([event("a1", 2)])
        clock_b.ms += LEASE_MS + 1  # ...so its lease outlives b's look at it
        assert await b.claim_orphans() == []
        await a.append([event("a1", 3)])


async def test_a_stopped_server_gives_up_its_lease_at_once(ready: Database) -> None:
    clock = Clock()
    async with server(ready, clock) as b:
        async with server(ready, clock) as a:
            await seeded(a, "a1")
        assert [m.id for m in await b.claim_orphans()] == ["a1"]  # no wait for the lease
        assert a.lease is not None
        async with b.engine.connect() as conn:
            gone = await conn.scalar(select(Server.gone).where(Server.id == a.lease.server_id))
        assert gone is True


async def test_matches_from_before_leases_are_adopted_once(ready: Database) -> None:
    clock = Clock()
    plain = SqlStore(ready.engine())  # as a release without leases stored them
    async with plain:
        await seeded(plain, "old1", "old2")
        await plain.save_match(match("done", status=MatchStatus.FINISHED))
    async with server(ready, clock) as a, server(ready, clock) as b:
        both = await asyncio.gather(a.claim_orphans(), b.claim_orphans())
        claimed = sorted(m.id for found in both for m in found)
        assert claimed == ["old1", "old2"]  # each by exactly one of them; not the ended one
        assert await a.claim_orphans() == []
        assert await b.claim_orphans() == []


async def test_a_starting_service_reclaims_what_its_own_store_left(ready: Database) -> None:
    clock = Clock()
    async with server(ready, clock) as a:
        await seeded(a, "a1")
        assert await a.claim_orphans() == []
        assert [m.id for m in await a.claim_orphans(own=True)] == ["a1"]


async def test_a_store_without_a_lease_is_one_process_alone(ready: Database) -> None:
    async with SqlStore(ready.engine()) as alone:
        await seeded(alone, "m1")
        assert await alone.claim_orphans() == []
        assert [m.id for m in await alone.claim_orphans(own=True)] == ["m1"]
        assert await owners(alone) == {}


async def test_the_header_that_ends_a_match_deletes_its_owner_row(ready: Database) -> None:
    """So the table, which every server's claim of orphans walks each second, holds only what is
    live, however many matches have been played."""
    clock = Clock()
    async with server(ready, clock) as a, server(ready, clock) as b:
        await seeded(a, "a1", "a2")
        await seeded(b, "b1")
        assert a.lease is not None
        assert b.lease is not None
        await a.save_match(match("a1", status=MatchStatus.FINISHED))
        assert await owners(a) == {"a2": a.lease.server_id, "b1": b.lease.server_id}
        # A match whose first header is an ended one never gets a row.
        await asyncio.gather(
            a.save_match(match("a3", status=MatchStatus.ABORTED)), a.save_match(match("a4"))
        )
        assert set(await owners(a)) == {"a2", "a4", "b1"}
        # A server that ends a match it took over deletes the row as well.
        await b.save_match(match("b1", status=MatchStatus.ABORTED))
        assert set(await owners(b)) == {"a2", "a4"}
        # What is left is exactly what a peer would claim if a's lease ran out.
        clock.ms += LEASE_MS + 1
        await b.append([event("b9", 1)], match=match("b9"))
        assert [m.id for m in await b.claim_orphans()] == ["a2", "a4"]


async def test_looking_up_an_owner_is_one_statement_on_postgresql(
    ready: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket or join on a process that does not run its match asks for the owner: on
    PostgreSQL that is the query alone, with no BEGIN and ROLLBACK around it, each of which would
    wait for a turn of a busy event loop while holding a pooled connection."""
    if ready.backend != "postgresql":
        pytest.skip("SQLite's reads begin no transaction of the driver's")
    begun: list[object] = []
    begin = cast(
        Callable[[AsyncAdapt_asyncpg_connection], Awaitable[None]],
        AsyncAdapt_asyncpg_connection._start_transaction,
    )

    async def counted(connection: AsyncAdapt_asyncpg_connection) -> None:
        await begin(connection)
        if connection._transaction is not None:  # BEGIN was sent
            begun.append(connection)

    monkeypatch.setattr(AsyncAdapt_asyncpg_connection, "_start_transaction", counted)
    async with server(ready, Clock()) as a:
        await seeded(a, "a1")
        assert begun  # the writes did begin transactions
        begun.clear()
        assert a.lease is not None
        assert await a.owner_of("a1") == a.lease.server_id
        assert await a.owner_of("none") is None
        assert begun == []


async def test_a_peer_that_died_on_this_machine_is_claimed_before_its_lease_runs_out(
    ready: Database,
) -> None:
    """A server restarted after a crash, or a peer on the same machine, need not wait for the
    dead process's lease: its pid says it is gone."""
    clock = Clock()
    async with server(ready, clock) as a, server(ready, clock) as b:
        await seeded(a, "a1")
        ended = subprocess.Popen([sys.executable, "-c", "pass"])
        ended.wait()
        assert a.lease is not None
        async with for_writing(a.engine).begin() as conn:
            await conn.execute(
                update(Server)
                .where(Server.id == a.lease.server_id)
                .values(host=f"{socket.gethostname()}:{ended.pid}")
            )
        assert [m.id for m in await b.claim_orphans()] == ["a1"]
