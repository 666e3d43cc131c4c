"""Why a request changed nothing (R8.3): a machine-readable code and a message for people.

The machine returns a :class:`Rejection` as a value; the layers around it may also raise it.
"""

from __future__ import annotations

from enum import Enum


class ErrorCode(Enum):
    NOT_FOUND = "not_found"
    NOT_A_PLAYER = "not_a_player"
    NOT_YOUR_SEAT = "not_your_seat"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    ILLEGAL = "illegal"
    STALE_VERSION = "stale_version"
    TIME_EXPIRED = "time_expired"
    MATCH_OVER = "match_over"
    HANDOVER_PENDING = "handover_pending"
    STORAGE_FAILED = "storage_failed"
    SEAT_TAKEN = "seat_taken"
    FOREIGN_ORIGIN = "foreign_origin"
    """A state-changing HTTP request from another site's page (CSRF)."""
    NAME_TAKEN = "name_taken"
    """An account already has that name (compared without case, after NFKC)."""
    BAD_MESSAGE = "bad_message"
    UNKNOWN_TYPE = "unknown_type"
    TOO_LARGE = "too_large"
    RATE_LIMITED = "rate_limited"
    UNAUTHORIZED = "unauthorized"
    SERVER_BUSY = "server_busy"
    """The server is near its capacity and takes no new match or join now; live ones go on."""


class Rejection(Exception):  # noqa: N818 - a value returned to the sender, also raisable
    """Why a request changed nothing (R8.3): a machine-readable code and a human message."""

    def __init__(self, code: ErrorCode, message: str, *, retry_after_s: int | None = None) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message
        self.retry_after_s = retry_after_s
        """For a refusal that lifts by itself (``rate_limited``, ``server_busy``): how many
        seconds until trying again may succeed; HTTP sends it as ``Retry-After``."""

    def __str__(self) -> str:
        return f"{self.code.value}: {self.message}"
