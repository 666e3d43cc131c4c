"""What the single writer is given to store (``store.writer``): writes of rows by kind, each
stored together or not at all, and the errors that fail one write alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from spectacular_bid.service.ports import StorageError


class WriteKind(Enum):
    SERVER = "server"
    """Takeovers of expired leases and the claims of their matches (``store.leases``), each a
    :data:`Change`, applied first."""
    PLAYER = "player"
    MATCH = "match"
    ROUND = "round"
    EVENTS = "events"
    ACCOUNT = "account"
    """Changes to accounts and their sessions (``store.accounts``), each a :data:`Change`,
    applied in queue order right after the players."""
    RATING = "rating"
    """The rating of an ended match's players (``store.ratings``), each a :data:`Change`,
    applied in queue order after the events, so its match and players are stored."""
    CHAT = "chat"
    """Chat lines (``store.chat``), inserted after the events, so their match is stored."""
    IMPORT = "import"
    """A whole ended match at once (``SqlStore.import_match``): one dict of players, match,
    rounds and event rows, inserted after every other kind."""


Change = Callable[[AsyncConnection], Awaitable[None]]
"""A write that runs its own statements on the writer's connection, inside the batch's
transaction (and, when the batch is isolated, its write's savepoint)."""

Part = tuple[WriteKind, list[Any]]
"""Rows of one kind: dicts of column values; for events, tuples of driver parameters
(``event_values``); for accounts and ratings, :data:`Change` functions."""


@dataclass(slots=True, eq=False)
class Write:
    parts: tuple[Part, ...]
    """One caller's rows, stored together or not at all (a version's events with the round rows
    and the match header they change)."""
    what: str
    """Names the write in error messages: ``"version 3 of m1"``."""
    future: asyncio.Future[None]
    error: StorageError | None = field(default=None)


class RefusedWriteError(Exception):
    """A write the store refuses for a reason of its own (not the database's): its caller gets
    :class:`StorageError`, the batch's other writes are stored."""


def storage_error(write: Write, exc: BaseException) -> StorageError:
    """The error ``write``'s caller gets for ``exc``: what was not stored, and why."""
    cause = getattr(exc, "orig", None) or exc
    error = StorageError(f"{write.what} was not stored: {cause}")
    error.__cause__ = exc
    return error
