"""Conversions between the port's records and table rows.

Rows for writing are plain dicts (the writer inserts them with Core ``executemany``); rows read
back are model instances. Times are milliseconds in the records and aware UTC datetimes in the
tables, converted exactly.

Events are the hot path (BENCHMARKS.md "bench server and bench store": 10,000 a second), so
:func:`event_values` encodes an event row for the driver itself — JSON as text, the timestamp as the
driver wants it — when ``append`` is called, while the writer's previous commit is still running;
the writer then hands whole batches to the driver's ``executemany`` (:data:`EVENT_COLUMNS`). Read
back through the models, they give exactly what the typed columns give (a test checks).
"""

from __future__ import annotations

from typing import Any, Final

from spectacular_bid.service.ports import (
    EventRecord,
    MatchMode,
    MatchRecord,
    MatchStatus,
    PlayerRecord,
    RatingChange,
    RoundRecord,
    SessionRecord,
)
from spectacular_bid.service.ratings import Rating
from spectacular_bid.store.models import (
    Match,
    MatchEvent,
    Player,
    PlayerSession,
    Round,
    datetime_from_ms,
    encode_json,
    ms_from_datetime,
)
from spectacular_bid.store.models import RatingChange as RatingChangeRow


def player_row(player: PlayerRecord) -> dict[str, Any]:
    return {
        "id": player.id,
        "name": player.name,
        "token_hash": player.token_hash,
        "created_at": datetime_from_ms(player.created_at_ms),
        "name_key": player.name_key,
        "password_hash": player.password_hash,
        **rating_values(player.rating, player.rated_at_ms),
    }


def rating_values(rating: Rating | None, rated_at_ms: int | None) -> dict[str, Any]:
    """The player columns that hold its rating (all None for a player never rated)."""
    return {
        "rating": None if rating is None else rating.value,
        "rating_deviation": None if rating is None else rating.deviation,
        "rating_volatility": None if rating is None else rating.volatility,
        "rated_at": None if rated_at_ms is None else datetime_from_ms(rated_at_ms),
    }


def stored_rating(
    value: float | None, deviation: float | None, volatility: float | None
) -> Rating | None:
    """The rating of a player row; None unless all three columns hold one."""
    if value is None or deviation is None or volatility is None:
        return None
    return Rating(value, deviation, volatility)


def player_record(row: Player) -> PlayerRecord:
    return PlayerRecord(
        row.id,
        row.name,
        row.token_hash,
        ms_from_datetime(row.created_at),
        row.name_key,
        row.password_hash,
        stored_rating(row.rating, row.rating_deviation, row.rating_volatility),
        None if row.rated_at is None else ms_from_datetime(row.rated_at),
    )


def session_record(row: PlayerSession) -> SessionRecord:
    return SessionRecord(
        row.token_hash,
        row.player_id,
        ms_from_datetime(row.created_at),
        ms_from_datetime(row.last_seen_at),
    )


def match_row(match: MatchRecord) -> dict[str, Any]:
    return {
        "id": match.id,
        "mode": match.mode.value,
        "settings": match.settings,
        "first_player_id": match.first_player,
        "second_player_id": match.second_player,
        "status": match.status.value,
        "winner": match.winner,
        "reason": match.reason,
        "rated": match.rated,
        "created_at": datetime_from_ms(match.created_at_ms),
        "ended_at": None if match.ended_at_ms is None else datetime_from_ms(match.ended_at_ms),
        "imported_id": match.imported_id,
        "first_account": match.first_account,
        "second_account": match.second_account,
    }


def match_record(row: Match) -> MatchRecord:
    return MatchRecord(
        id=row.id,
        mode=MatchMode(row.mode),
        settings=row.settings,
        first_player=row.first_player_id,
        second_player=row.second_player_id,
        status=MatchStatus(row.status),
        winner=row.winner,
        reason=row.reason,
        rated=row.rated,
        created_at_ms=ms_from_datetime(row.created_at),
        ended_at_ms=None if row.ended_at is None else ms_from_datetime(row.ended_at),
        imported_id=row.imported_id,
        first_account=row.first_account,
        second_account=row.second_account,
    )


def rating_change_row(change: RatingChange) -> dict[str, Any]:
    return {
        "match_id": change.match_id,
        "player_id": change.player_id,
        "at": datetime_from_ms(change.at_ms),
        "before_value": change.before.value,
        "before_deviation": change.before.deviation,
        "before_volatility": change.before.volatility,
        "after_value": change.after.value,
        "after_deviation": change.after.deviation,
        "after_volatility": change.after.volatility,
    }


def rating_change_record(row: RatingChangeRow) -> RatingChange:
    return RatingChange(
        row.match_id,
        row.player_id,
        ms_from_datetime(row.at),
        Rating(row.before_value, row.before_deviation, row.before_volatility),
        Rating(row.after_value, row.after_deviation, row.after_volatility),
    )


EVENT_COLUMNS: Final = (
    "match_id",
    "version",
    "seat",
    "command",
    "events",
    "recorded_at",
    "monotonic_ms",
    "clock",
    "received_ms",
    "relayed_ms",
)
"""The order of the values of :func:`event_values`."""


def event_values(event: EventRecord, dialect: str) -> tuple[Any, ...]:
    """The driver's parameters for inserting ``event`` on ``dialect`` (``"sqlite"`` or
    ``"postgresql"``), in the order of :data:`EVENT_COLUMNS`."""
    moment = datetime_from_ms(event.wall_ms)
    if dialect == "sqlite":
        # The text SQLAlchemy's SQLite DATETIME stores: naive UTC with microseconds.
        recorded_at: Any = (
            f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d} "
            f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}.{moment.microsecond:06d}"
        )
    else:
        recorded_at = moment
    return (
        event.match_id,
        event.version,
        event.seat,
        encode_json(event.command),
        encode_json(event.events),
        recorded_at,
        event.mono_ms,
        encode_json(event.clock),
        event.received_ms,
        event.relayed_ms,
    )


def event_record(row: MatchEvent) -> EventRecord:
    return EventRecord(
        match_id=row.match_id,
        version=row.version,
        seat=row.seat,
        command=row.command,
        events=row.events,
        wall_ms=ms_from_datetime(row.recorded_at),
        mono_ms=row.monotonic_ms,
        clock=row.clock,
        received_ms=row.received_ms,
        relayed_ms=row.relayed_ms,
    )


def round_row(round_: RoundRecord) -> dict[str, Any]:
    return {
        "match_id": round_.match_id,
        "number": round_.number,
        "commitment": round_.commitment,
        "salt": round_.salt,
        "deck": round_.deck,
    }


def round_record(row: Round) -> RoundRecord:
    return RoundRecord(row.match_id, row.number, row.commitment, row.salt, row.deck)
