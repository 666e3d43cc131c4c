"""The store's side of a hand-over between live servers (PROTOCOL.md "Several servers on one
database").

A server that stops while a peer lives moves the ``match_owner`` rows of its live matches to
that peer, in a transaction of its own writer, so fenced by its lease (``store.leases``): a
server that already lost its lease moves nothing. Each match's hand-over version is stored
before its row moves, and the leaving server writes nothing of the match after it: its actor
takes no input after the hand-over, the machine refuses every input to a stood match but the
peer's resume, and a version written twice would be refused by the events' primary key
(match, version). The peer finds the rows that name it for matches it does not run, and
resumes those matches from their records.
"""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from spectacular_bid.store.leases import LIVE, Lease
from spectacular_bid.store.models import Match, MatchOwner, Server
from spectacular_bid.store.writer import GroupCommitWriter
from spectacular_bid.store.writes import WriteKind


class HandoverQueries:
    """The hand-over's part of ``SqlStore`` (which gives it its engine, lease and writer)."""

    engine: AsyncEngine
    lease: Lease | None
    writer: GroupCommitWriter

    async def live_peers(self) -> list[str]:
        """The other servers whose lease runs now, longest-lived lease first."""
        lease = self.lease
        if lease is None:
            return []
        query = (
            select(Server.id)
            .where(
                Server.gone.is_(False),
                Server.id != lease.server_id,
                Server.lease_until_ms > lease.now_ms(),
            )
            .order_by(Server.lease_until_ms.desc(), Server.id)
        )
        async with self.engine.connect() as conn:
            return list((await conn.execute(query)).scalars())

    async def hand_over(self, match_ids: list[str], server_id: str) -> list[str]:
        lease = self.lease
        if lease is None or not match_ids:
            return []
        moved: list[str] = []

        async def move(conn: AsyncConnection) -> None:
            result = await conn.execute(
                update(MatchOwner)
                .where(
                    MatchOwner.match_id.in_(match_ids),
                    MatchOwner.server_id == lease.server_id,
                )
                .values(server_id=server_id)
                .returning(MatchOwner.match_id)
            )
            moved[:] = sorted(result.scalars())  # the last try's, if retried

        await self.writer.write(WriteKind.SERVER, [move], "the hand-over of matches")
        return moved

    async def owned_matches(self) -> list[str]:
        lease = self.lease
        if lease is None:
            return []
        query = (
            select(MatchOwner.match_id)
            .join(Match, Match.id == MatchOwner.match_id)
            .where(MatchOwner.server_id == lease.server_id, Match.status.in_(LIVE))
            .order_by(MatchOwner.match_id)
        )
        async with self.engine.connect() as conn:
            return list((await conn.execute(query)).scalars())
