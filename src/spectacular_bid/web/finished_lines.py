"""The lobby's finished list on the wire (docs/PROTOCOL.md "GET /api/lobby"): a page of ended
matches from the store, each with who played, how it ended, the ratings it moved and its replay,
and the cursor of the next page, the one ``GET /api/matches`` pages with."""

from __future__ import annotations

from typing import Final

from spectacular_bid.service.listings import FinishedLine
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.ports import MatchMode, MatchStatus, RatingChange
from spectacular_bid.web.notation import SeatName, WireModel
from spectacular_bid.web.routes.replays import cursor_text, profile_url, record_url

FINISHED_PAGE: Final = 10
"""Ended matches on the lobby's first page, and on each further one by default."""
_SEATS: Final[dict[str, SeatName]] = {"first": "first", "second": "second"}


class RatingMove(WireModel):
    """A seat's rating before and after a rated match, as stored with its end."""

    before: float
    after: float
    change: int
    """The change as shown: the rounded ``after`` less the rounded ``before`` (``+12``), so
    that it adds up with the ratings shown beside names."""

    @classmethod
    def of(cls, change: RatingChange | None) -> RatingMove | None:
        if change is None:
            return None
        before, after = round(change.before.value, 2), round(change.after.value, 2)
        return cls(before=before, after=after, change=round(after) - round(before))


class FinishedMatch(WireModel):
    """An ended match in the lobby: who played, how it ended, the ratings it moved, its
    replay."""

    id: str
    mode: MatchMode
    status: MatchStatus
    """``finished`` or ``aborted``."""
    first: str | None
    """The first seat's display name."""
    second: str | None
    """The second seat's display name; null for a seat nobody took."""
    first_profile: str | None
    """Each seat's player's profile page (``/@/…``); null for an empty seat."""
    second_profile: str | None
    winner: SeatName | None
    """Null for an aborted match."""
    reason: str | None
    """How it ended: ``zero_balance``, ``time``, ``resignation`` for a finished match; why it
    was aborted for an aborted one (``join_timeout``, ``timing_failure``, …)."""
    rated: bool
    imported: bool
    """True for a match stored from an imported record (never rated here)."""
    first_rating_change: RatingMove | None
    """Each seat's rating before and after a rated match; null when the match moved none."""
    second_rating_change: RatingMove | None
    created_at_ms: int
    ended_at_ms: int
    """Wall-clock ms since the Unix epoch."""
    replay_url: str
    """The replay viewer's page."""
    record_url: str
    bot_level: int | None = None
    """The level (1-5) of the computer in the second seat; null against a person."""

    @classmethod
    def of(cls, line: FinishedLine) -> FinishedMatch:
        m = line.match
        return cls(
            id=m.id,
            mode=MatchMode(m.mode),
            status=MatchStatus(m.status),
            first=m.first,
            second=m.second,
            first_profile=profile_url(m.first_handle),
            second_profile=profile_url(m.second_handle),
            winner=_SEATS.get(m.winner or ""),
            reason=m.reason,
            rated=m.rated,
            imported=m.imported,
            first_rating_change=RatingMove.of(line.first_change),
            second_rating_change=RatingMove.of(line.second_change),
            created_at_ms=m.created_at_ms,
            ended_at_ms=m.ended_at_ms,
            replay_url=f"/replay/{m.id}",
            record_url=record_url(m.id),
            bot_level=m.bot_level,
        )


class FinishedPage(WireModel):
    matches: list[FinishedMatch]
    """Newest first (by ``ended_at_ms``, then id)."""
    next: str | None
    """The ``before`` cursor of the next page; null on the last page."""


async def finished_page(
    service: MatchService, limit: int, before: tuple[int, str] | None
) -> FinishedPage:
    """``limit`` ended matches strictly before the cursor ``before``, newest first; one more is
    read to learn whether a next page exists."""
    found = await service.ended.finished_page(limit + 1, before)
    page = found[:limit]
    return FinishedPage(
        matches=[FinishedMatch.of(line) for line in page],
        next=cursor_text(page[-1].match.cursor) if len(found) > limit else None,
    )
