"""Thousands of ended matches written straight into the tables, as a long-running server's
database holds them, for the tests that a lobby read stays cheap however many have ended."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlalchemy import event, insert
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.service.ports import MatchStatus, RatingChange
from spectacular_bid.service.ratings import Rating
from spectacular_bid.store.models import Match, Player
from spectacular_bid.store.models import RatingChange as RatingChangeRow
from spectacular_bid.store.records import match_row, player_row, rating_change_row

from .factories import WALL_MS, match, player


async def seed_ended(engine: AsyncEngine, count: int) -> list[str]:
    """``count`` ended matches of Ann and Bob, one a second: every other one rated (both
    players' changes stored), the others aborted. Returns their ids, the last ended last."""
    players = [replace(player(name), password_hash="x") for name in ("ann", "bob")]
    headers, changes = [], []
    for number in range(count):
        at_ms = WALL_MS + 1_000 * number
        rated = number % 2 == 0
        headers.append(
            replace(
                match(f"e{number:06d}"),
                status=MatchStatus.FINISHED if rated else MatchStatus.ABORTED,
                winner="first" if rated else None,
                reason="resignation" if rated else "join_timeout",
                rated=rated,
                ended_at_ms=at_ms,
                first_account=True,
                second_account=True,
            )
        )
        if rated:
            for who, delta in (("p-ann", 10.0), ("p-bob", -10.0)):
                before = Rating(1500.0 + number, 200.0, 0.06)
                after = Rating(before.value + delta, 190.0, 0.06)
                changes.append(RatingChange(f"e{number:06d}", who, at_ms, before, after))
    async with engine.begin() as conn:
        await conn.execute(insert(Player), [player_row(p) for p in players])
        await conn.execute(insert(Match), [match_row(h) for h in headers])
        await conn.execute(insert(RatingChangeRow), [rating_change_row(c) for c in changes])
    return [h.id for h in headers]


class Statements:
    """Every query the engine sends, with its parameters (SQLite's ``BEGIN``, which this
    project sends itself to choose its lock, is not one)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.sent: list[tuple[str, Any]] = []
        event.listen(engine.sync_engine, "before_cursor_execute", self._on_execute)

    def _on_execute(self, *args: Any) -> None:
        _conn, _cursor, statement, parameters, _context, _many = args
        if not statement.startswith(("BEGIN", "COMMIT", "ROLLBACK")):  # SQLite's own BEGIN
            self.sent.append((statement, parameters))

    def take(self) -> list[tuple[str, Any]]:
        sent, self.sent = self.sent, []
        return sent
