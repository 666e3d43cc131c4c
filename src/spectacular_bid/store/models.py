"""The tables, as typed SQLAlchemy 2 declarative models.

Singular snake_case table names, ``_at`` timestamps (timezone-aware, UTC) and a naming convention
for every constraint and index, so that migrations name them the same on SQLite and PostgreSQL. The
schema itself is made only by the Alembic migrations; a test proves that these models and the
migrations agree.

- ``player``: a guest, or an account (a unique name and a password hash); only a hash of its
  bearer token is kept; its rating after its last rated match, if any.
- ``player_session``: an account's logged-in browsers, each a hash of its token.
- ``match``: a match's header (settings, seats, status, result; an imported one's original id).
- ``round``: the deck commitment of each round, and the salt and deck revealed at its end (D4).
- ``match_event``: the append-only log, one row per version of a match.
- ``rating_change``: each player's rating before and after each rated match (PROTOCOL.md "Players:
  profiles, ratings and archives").
- ``chat_line``: what was said at a match's table, in either channel (PROTOCOL.md "chat").
- ``server``: each server process that used the database, and its lease (PROTOCOL.md "Several
  servers on one database").
- ``match_owner``: the server that runs each match made since (PROTOCOL.md "Several servers on one
  database").
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    MetaData,
    String,
    TypeDecorator,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

encode_json = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
"""The text a JSON column holds for a value (the engines' ``json_serializer``)."""

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)

ID_LENGTH = 64
"""Room for any id the service makes (uuid4 hex is 32 characters)."""


def datetime_from_ms(ms: int) -> datetime:
    """Milliseconds since the Unix epoch as an aware UTC datetime, exactly (no float)."""
    return EPOCH + ms * _MS


def ms_from_datetime(moment: datetime) -> int:
    """The inverse of :func:`datetime_from_ms`."""
    return (moment - EPOCH) // _MS


class UtcTimestamp(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every database.

    PostgreSQL stores ``timestamp with time zone``. SQLite has no time zones: the value is stored
    as naive UTC and read back as aware UTC, so both databases return the same values.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"expected an aware datetime, got naive {value!r}")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is not None:
            return value
        return value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UtcTimestamp(), Any: JSON()}


class Player(Base):
    __tablename__ = "player"
    __table_args__ = (Index(None, "name_key", unique=True),)

    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    """SHA-256 hex of the bearer token; the token itself is never stored."""
    created_at: Mapped[datetime]
    name_key: Mapped[str | None] = mapped_column(String(64))
    """An account's name folded for comparison (NFKC, case-folded): unique among accounts.
    NULL for a guest, whose name need not be unique."""
    password_hash: Mapped[str | None] = mapped_column(String(255))
    """An account's argon2id hash (``service.passwords``); NULL for a guest."""
    rating: Mapped[float | None]
    """The Glicko-2 rating after the player's last rated match, with its deviation and
    volatility; all three NULL until its first (``service.ratings``)."""
    rating_deviation: Mapped[float | None]
    rating_volatility: Mapped[float | None]
    rated_at: Mapped[datetime | None]
    """When the player's last rated match ended: its deviation grows from then."""


class PlayerSession(Base):
    """An account's logged-in browser: only the SHA-256 of its token is kept."""

    __tablename__ = "player_session"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("player.id"), index=True)
    created_at: Mapped[datetime]
    """When it began: it ends a fixed time after, however active (absolute expiry)."""
    last_seen_at: Mapped[datetime]
    """When it was last used, to the hour: it ends after a while unused (idle expiry)."""


class Match(Base):
    __tablename__ = "match"
    __table_args__ = (
        Index(None, "status", "ended_at"),
        Index(None, "first_player_id", "ended_at"),
        Index(None, "second_player_id", "ended_at"),
        Index(None, "ended_at", "id"),
    )
    """``(ended_at, id)`` is the order of every list of ended matches, newest first: read
    backwards, it gives the lobby's page of them without sorting every match ever ended."""

    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    mode: Mapped[str] = mapped_column(String(16))
    """A :class:`~spectacular_bid.service.ports.MatchMode` value."""
    settings: Mapped[Any]
    first_player_id: Mapped[str | None] = mapped_column(ForeignKey("player.id"))
    second_player_id: Mapped[str | None] = mapped_column(ForeignKey("player.id"))
    status: Mapped[str] = mapped_column(String(16))
    """A :class:`~spectacular_bid.service.ports.MatchStatus` value."""
    winner: Mapped[str | None] = mapped_column(String(8))
    """``"first"``, ``"second"`` or NULL."""
    reason: Mapped[str | None] = mapped_column(String(32))
    rated: Mapped[bool]
    created_at: Mapped[datetime]
    ended_at: Mapped[datetime | None]
    imported_id: Mapped[str | None] = mapped_column(String(ID_LENGTH))
    """For a match imported from a record document, the id that document gave it (the match's
    own id is always a fresh one). NULL for every other match, and for those imported before
    revision 0c4e5a9b7d21 added it."""
    first_account: Mapped[bool] = mapped_column(server_default=false())
    """Whether the first seat's player was an account when it took the seat: a match is rated
    only between two accounts. False in every match stored before revision 5d2e8f1a7c34."""
    second_account: Mapped[bool] = mapped_column(server_default=false())


class Round(Base):
    __tablename__ = "round"

    match_id: Mapped[str] = mapped_column(ForeignKey("match.id"), primary_key=True)
    number: Mapped[int] = mapped_column(primary_key=True)
    """1 for the first round of the match."""
    commitment: Mapped[str] = mapped_column(String(64))
    """SHA-256 hex over the deck order and the salt, published when the round is dealt."""
    salt: Mapped[str | None] = mapped_column(String(128))
    """Revealed when the round ends; NULL until then."""
    deck: Mapped[Any | None] = mapped_column(JSON(none_as_null=True))
    """The deck order, revealed when the round ends; NULL until then."""


class MatchEvent(Base):
    """One version of a match: the command that made it and the events it caused. Append-only."""

    __tablename__ = "match_event"

    match_id: Mapped[str] = mapped_column(ForeignKey("match.id"), primary_key=True)
    version: Mapped[int] = mapped_column(primary_key=True)
    seat: Mapped[str | None] = mapped_column(String(8))
    command: Mapped[Any]
    events: Mapped[Any]
    recorded_at: Mapped[datetime]
    """Server wall time when the version was made."""
    monotonic_ms: Mapped[int] = mapped_column(BigInteger)
    """The server's monotonic clock at that moment, the time base of the match clock."""
    clock: Mapped[Any]
    """The clock reading after the version."""
    received_ms: Mapped[int | None] = mapped_column(BigInteger)
    """When the server received the command, on the same monotonic clock: the time its clock
    charge was taken at (R7.7). NULL in versions stored before revision 6c07a19aca3a added it,
    whose replay infers it from the clock readings."""
    relayed_ms: Mapped[int | None] = mapped_column(BigInteger)
    """A relayed command's time in the relay, charged to nobody (the clock audit); NULL for
    every other version and for those stored before revision 8f3b6a2d4c19 added it."""


class RatingChange(Base):
    """One player's rating before and after one rated match, written with the match's end."""

    __tablename__ = "rating_change"
    __table_args__ = (Index(None, "player_id", "at"),)

    match_id: Mapped[str] = mapped_column(ForeignKey("match.id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("player.id"), primary_key=True)
    at: Mapped[datetime]
    """When the match ended."""
    before_value: Mapped[float]
    """The rating the match started from: the last one aged by the idle time since, or a
    newcomer's."""
    before_deviation: Mapped[float]
    before_volatility: Mapped[float]
    after_value: Mapped[float]
    after_deviation: Mapped[float]
    after_volatility: Mapped[float]


class ChatLine(Base):
    """One chat line of a match, numbered within it; never part of its versions."""

    __tablename__ = "chat_line"

    match_id: Mapped[str] = mapped_column(ForeignKey("match.id"), primary_key=True)
    number: Mapped[int] = mapped_column(primary_key=True)
    channel: Mapped[str] = mapped_column(String(16))
    """``players`` or ``spectators``."""
    player_id: Mapped[str] = mapped_column(ForeignKey("player.id"))
    name: Mapped[str] = mapped_column(String(64))
    """The speaker's name when they said it."""
    seat: Mapped[str | None] = mapped_column(String(8))
    text: Mapped[str | None] = mapped_column(String(512))
    """At most 140 characters (``service.chat``); the column leaves room for a later limit."""
    phrase: Mapped[str | None] = mapped_column(String(32))
    said_at: Mapped[datetime]


class MatchOwner(Base):
    """Which server runs a match (PROTOCOL.md "Several servers on one database"): written with the
    match's first header by the server that creates it, moved only when a peer claims it from a gone
    server (``store.leases``) or a stopping server hands it to a live one (``store.handover``), and
    deleted with the header that ends the match (revision 2b7d9e4c6a13 deleted those of the matches
    ended before). A match stored before revision 9c3d5e7f1a42, or imported, has no row. A table of
    its own, not a column of ``match``, so that the header's rows and statements stay what every
    release wrote."""

    __tablename__ = "match_owner"

    match_id: Mapped[str] = mapped_column(ForeignKey("match.id"), primary_key=True)
    server_id: Mapped[str] = mapped_column(String(ID_LENGTH), index=True)


class Server(Base):
    """One server process on this database, and its lease on the matches it owns.

    The row is made when the process starts, under a fresh id. Its owner renews ``lease_until``
    with every commit; a peer that finds it past takes the lease over by raising ``epoch`` and
    setting ``gone``, in one conditional update, and only then ends the matches it owned. Every
    commit of the owner checks ``epoch`` and ``gone`` in its own transaction, so once the update
    is in the owner can write nothing more (``store.leases``)."""

    __tablename__ = "server"

    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    epoch: Mapped[int]
    lease_until_ms: Mapped[int] = mapped_column(BigInteger)
    """Wall-clock ms after which a peer may take the lease over."""
    gone: Mapped[bool]
    started_at: Mapped[datetime]
    host: Mapped[str] = mapped_column(String(255))
    """The machine and process id, for an operator reading the table."""
