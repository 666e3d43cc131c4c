"""The writes of accounts and their sessions, as changes the group-commit writer applies in
queue order (``WriteKind.ACCOUNT``): each is stored with the rest of its batch or refused alone."""

from __future__ import annotations

from sqlalchemy import delete, insert, update
from sqlalchemy.ext.asyncio import AsyncConnection

from spectacular_bid.service.ports import SessionRecord
from spectacular_bid.store.models import Player, PlayerSession, datetime_from_ms
from spectacular_bid.store.writes import Change, RefusedWriteError


def session_row(session: SessionRecord) -> dict[str, object]:
    return {
        "token_hash": session.token_hash,
        "player_id": session.player_id,
        "created_at": datetime_from_ms(session.created_at_ms),
        "last_seen_at": datetime_from_ms(session.last_seen_ms),
    }


def claim(
    player_id: str,
    name_key: str,
    password_hash: str,
    retired_token_hash: str,
    session: SessionRecord,
) -> Change:
    async def change(conn: AsyncConnection) -> None:
        # The unique index on name_key refuses a taken name, even one taken a moment ago.
        claimed = await conn.execute(
            update(Player)
            .where(Player.id == player_id, Player.password_hash.is_(None))
            .values(name_key=name_key, password_hash=password_hash, token_hash=retired_token_hash)
        )
        if claimed.rowcount != 1:
            raise RefusedWriteError(f"player {player_id} is not a guest")
        await conn.execute(insert(PlayerSession), [session_row(session)])

    return change


def add_session(session: SessionRecord) -> Change:
    async def change(conn: AsyncConnection) -> None:
        await conn.execute(insert(PlayerSession), [session_row(session)])

    return change


def touch_session(token_hash: str, now_ms: int) -> Change:
    async def change(conn: AsyncConnection) -> None:
        await conn.execute(
            update(PlayerSession)
            .where(PlayerSession.token_hash == token_hash)
            .values(last_seen_at=datetime_from_ms(now_ms))
        )

    return change


def end_sessions(player_id: str, keep: str | None) -> Change:
    async def change(conn: AsyncConnection) -> None:
        query = delete(PlayerSession).where(PlayerSession.player_id == player_id)
        if keep is not None:
            query = query.where(PlayerSession.token_hash != keep)
        await conn.execute(query)

    return change


def end_session(token_hash: str) -> Change:
    async def change(conn: AsyncConnection) -> None:
        await conn.execute(delete(PlayerSession).where(PlayerSession.token_hash == token_hash))

    return change


def set_password(player_id: str, password_hash: str, keep: str | None, end_others: bool) -> Change:
    ended = end_sessions(player_id, keep) if end_others else None

    async def change(conn: AsyncConnection) -> None:
        changed = await conn.execute(
            update(Player)
            .where(Player.id == player_id, Player.password_hash.is_not(None))
            .values(password_hash=password_hash)
        )
        if changed.rowcount != 1:
            raise RefusedWriteError(f"player {player_id} is not an account")
        if ended is not None:
            await ended(conn)

    return change
