"""Account passwords (PROTOCOL.md "Identity"): argon2id, hashed off the event loop, a few at a time.

A hash takes about 130 ms of a core and 64 MiB (argon2-cffi's RFC 9106 low-memory profile:
t=3, m=64 MiB, p=4, above OWASP's minimum of t=2, m=19 MiB, p=1). On the loop it would stop every
match for that long (D5), so it runs in a worker thread, and at most :data:`CONCURRENT` run at
once; past :data:`WAITING` callers in line the server answers ``server_busy`` instead of
queueing more work than it can do. A stored hash made with weaker parameters is replaced at
the next successful login (:attr:`Checked.rehashed`).

Logging in with a name that has no account costs the same hash as a wrong password, so the
time taken does not tell whether the name exists.
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from spectacular_bid.service.refusals import ErrorCode, Rejection

T = TypeVar("T")

PASSWORD_MIN: Final = 8
"""NIST SP 800-63B's minimum for a password a person chose; no rules of composition."""
PASSWORD_MAX: Final = 256
"""Enough for any passphrase or generated password, and a bound on the work one request buys."""
NEW_PASSWORD_PATTERN: Final = r"^[^\x00-\x1f\x7f-\x9f]*$"
"""No control characters (Unicode category Cc), as a schema pattern."""
CONTROL: Final = re.compile(r"[\x00-\x1f\x7f-\x9f]")
CONCURRENT: Final = 2
"""Hashes at once: each is a core and 64 MiB while it runs."""
WAITING: Final = 16
"""Callers that may wait for a hash; more are refused as ``server_busy``."""
RETRY_AFTER_S: Final = 5


class Hasher(Protocol):
    """What :class:`argon2.PasswordHasher` offers, so that tests can count and slow hashes."""

    def hash(self, password: str) -> str: ...

    def verify(self, hash: str, password: str) -> bool: ...

    def check_needs_rehash(self, hash: str) -> bool: ...


class PasswordRuleError(ValueError):
    """A new password that is too short, too long, or holds control characters."""


def checked_password(password: str) -> str:
    """``password`` as it is hashed (NFC), or raise :class:`PasswordRuleError` with the reason.
    The rules apply to what was typed, so that the API's schema states them exactly."""
    if len(password) < PASSWORD_MIN:
        raise PasswordRuleError(f"a password has at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise PasswordRuleError(f"a password has at most {PASSWORD_MAX} characters")
    if CONTROL.search(password):
        raise PasswordRuleError("a password may not contain control characters")
    return unicodedata.normalize("NFC", password)


@dataclass(frozen=True, slots=True)
class Checked:
    matches: bool
    rehashed: str | None = None
    """A new hash of the same password with today's parameters, to store in place of the old."""


class Passwords:
    def __init__(
        self, hasher: Hasher | None = None, concurrent: int = CONCURRENT, waiting: int = WAITING
    ) -> None:
        self._hasher: Hasher = hasher if hasher is not None else PasswordHasher()
        self._slots = asyncio.Semaphore(concurrent)
        self._waiting_max = waiting
        self._waiting = 0
        self._decoy: str | None = None
        """A hash of no one's password, checked when a name has no account."""

    async def hash(self, password: str) -> str:
        """The hash to store for a new password (checked against the rules first)."""
        normal = checked_password(password)
        return await self._off_loop(self._hasher.hash, normal)

    async def check(self, stored: str | None, password: str) -> Checked:
        """Whether ``password`` is the one ``stored`` was made from; ``stored`` None (no such
        account) takes as long and never matches."""
        if len(password) > 4 * PASSWORD_MAX:
            return Checked(matches=False)  # no hash for what no rule would have let in
        normal = unicodedata.normalize("NFC", password)
        if stored is None:
            if self._decoy is None:
                self._decoy = await self._off_loop(self._hasher.hash, "not anyone's password")
            await self._off_loop(self._verifies, self._decoy, normal)
            return Checked(matches=False)
        if not await self._off_loop(self._verifies, stored, normal):
            return Checked(matches=False)
        if self._hasher.check_needs_rehash(stored):
            return Checked(matches=True, rehashed=await self._off_loop(self._hasher.hash, normal))
        return Checked(matches=True)

    def _verifies(self, stored: str, password: str) -> bool:
        try:
            return self._hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False

    async def _off_loop(self, work: Callable[..., T], *args: str) -> T:
        if self._waiting >= self._waiting_max:
            raise Rejection(
                ErrorCode.SERVER_BUSY,
                "too many logins are being checked at once: try again in a few seconds",
                retry_after_s=RETRY_AFTER_S,
            )
        self._waiting += 1
        try:
            async with self._slots:
                return await asyncio.to_thread(work, *args)
        finally:
            self._waiting -= 1
