"""Accounts (PROTOCOL.md "Identity"): a guest claims its name with a password, then logs in
anywhere.

A guest stays what it was — a name and one bearer token in one browser. Claiming the name makes
the same player row an account, so its matches stay its own; the guest token is retired and a
session token takes its place (a new id at every login, so that a token someone planted before
does not become an account's). An account has a session per browser: each a random token of
which only the SHA-256 is stored, ending after :data:`IDLE_MS` unused or :data:`ABSOLUTE_MS`
after it began, whichever comes first. A new password ends every other session. A token that
ends, ends on every server process at once (``service.sessions``).

Names of accounts are unique after NFKC normalisation and case folding, so ``Ann``, ``ANN`` and
``Ａｎｎ`` are one account; guests may share names. A wrong password and a name without an account
get the same refusal, after the same hash (``service.passwords``).
"""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Callable
from dataclasses import replace
from typing import Final

from spectacular_bid.service.guests import Guests, clean_name, token_hash
from spectacular_bid.service.passwords import Passwords
from spectacular_bid.service.ports import MatchStore, Player, SessionRecord, StorageError
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.sessions import EndedTokens, SessionEnds

IDLE_MS: Final = 30 * 24 * 3600 * 1000
ABSOLUTE_MS: Final = 365 * 24 * 3600 * 1000
TOUCH_EVERY_MS: Final = 3600 * 1000
"""A session's last use is written at most this often (a write per request would cost a commit
per request)."""
WRONG_LOGIN: Final = "wrong name or password"


def name_key(name: str) -> str:
    """The form account names are compared in: NFKC, case-folded, NFKC again (Unicode's
    NFKC_Casefold, near enough), after the display name's own cleaning."""
    folded = unicodedata.normalize("NFKC", clean_name(name)).casefold()
    return unicodedata.normalize("NFKC", folded)


class Accounts:
    """Accounts and their sessions. Every end of a token is written to the store first and then
    announced through :attr:`ends` (``service.sessions``), which drops it from every process's
    cache and closes its sockets; :meth:`end_sessions` is the entry point for ending all of a
    player's sessions (a ban)."""

    def __init__(
        self,
        store: MatchStore,
        guests: Guests,
        passwords: Passwords,
        wall_ms: Callable[[], int],
        ends: SessionEnds | None = None,
    ) -> None:
        self._store = store
        self._passwords = passwords
        self._wall_ms = wall_ms
        self._cache = guests.cache
        """Token hash → the account and its session as last read, shared with the guests."""
        self.ends = ends if ends is not None else SessionEnds()
        self.ends.on_end(self._cache.drop)
        self.ends.on_gap(self._cache.clear)

    async def claim(self, player: Player, guest_token: str, password: str) -> str:
        """Make the calling guest an account under its name; returns its new session token."""
        found = (await self._store.players([player.id])).get(player.id)
        if found is None or found.token_hash != token_hash(guest_token):
            raise Rejection(ErrorCode.UNAUTHORIZED, "only a guest, with its own token, can claim")
        if found.is_account:
            raise Rejection(ErrorCode.BAD_MESSAGE, f"{player.name!r} is already an account")
        key = name_key(player.name)
        if await self._store.player_by_name_key(key) is not None:
            raise _taken(player.name)
        stored_hash = await self._passwords.hash(password)
        token, session = self._new_session(player.id)
        retired = token_hash(secrets.token_urlsafe(32))
        try:
            await self._store.claim_account(player.id, key, stored_hash, retired, session)
        except StorageError:
            if await self._store.player_by_name_key(key) is not None:
                raise _taken(player.name) from None
            raise
        self.ends.end(EndedTokens(player.id, token_hash=found.token_hash))
        self._cache.keep(session.token_hash, replace(player, account=True), session)
        return token

    async def login(self, name: str, password: str) -> tuple[Player, str]:
        """A new session of the account named ``name``; refused alike for a wrong password and
        for a name without an account."""
        try:
            key = name_key(name)
        except ValueError:
            key = None
        record = await self._store.player_by_name_key(key) if key is not None else None
        checked = await self._passwords.check(
            record.password_hash if record is not None else None, password
        )
        if record is None or not checked.matches:
            raise Rejection(ErrorCode.UNAUTHORIZED, WRONG_LOGIN)
        if checked.rehashed is not None:
            await self._store.set_password(record.id, checked.rehashed, None, end_others=False)
        player = Player(record.id, record.name, account=True)
        token, session = self._new_session(record.id)
        await self._store.add_session(session)
        self._cache.keep(session.token_hash, player, session)
        return player, token

    async def logout(self, player: Player, token: str) -> None:
        """End this session of an account everywhere. A guest's token stays what it is: only
        the browser that logs out forgets it."""
        if not player.account:
            return
        digest = token_hash(token)
        await self._store.end_session(digest)
        self.ends.end(EndedTokens(player.id, token_hash=digest))

    async def change_password(self, player: Player, token: str, old: str, new: str) -> None:
        """Replace the password, given the old one; every other session of the account ends.
        The session asking is read from the store, not the cache: one that ended a moment ago
        on another process changes nothing."""
        if not player.account:
            raise Rejection(ErrorCode.UNAUTHORIZED, "only an account has a password to change")
        keep = await self.live_session(player, token)
        record = (await self._store.players([player.id])).get(player.id)
        if record is None or not record.is_account:
            raise Rejection(ErrorCode.UNAUTHORIZED, "only an account has a password to change")
        if not (await self._passwords.check(record.password_hash, old)).matches:
            raise Rejection(ErrorCode.UNAUTHORIZED, "the current password is wrong")
        stored_hash = await self._passwords.hash(new)
        await self._store.set_password(player.id, stored_hash, keep.token_hash)
        self.ends.end(EndedTokens(player.id, keep=keep.token_hash))

    async def end_sessions(self, player_id: str) -> None:
        """End every session of the account, everywhere (what a ban does first)."""
        await self._store.end_sessions(player_id)
        self.ends.end(EndedTokens(player_id))

    async def live_session(self, player: Player, token: str) -> SessionRecord:
        """``token``'s session of ``player`` as the store holds it now, or ``unauthorized``:
        what a change to the account checks, rather than what this process remembers."""
        session = await self._store.session(token_hash(token))
        if session is None or session.player_id != player.id:
            raise Rejection(ErrorCode.UNAUTHORIZED, "this session has ended: log in again")
        return session

    async def names_anyone(self, digest: str) -> bool:
        """Whether the store still holds the token of hash ``digest``: a guest's, or a session
        (read after a gap in the announcements of ends, ``web.session_sockets``)."""
        if await self._store.player_by_token_hash(digest) is not None:
            return True
        return await self._store.session(digest) is not None

    async def resolve(self, token: str | None) -> Player | None:
        """The account behind a session token, or None (no such session, or it has ended)."""
        if not token or len(token) > 128:
            return None
        digest = token_hash(token)
        known = self._cache.get(digest)
        if known is not None:
            if known.session is None:
                return None  # a guest's token
            player, session, read_ms = known.player, known.session, known.read_ms
        else:
            found = await self._read(digest)
            if found is None:
                return None
            player, session = found
            read_ms = None
        now_ms = self._wall_ms()
        if now_ms - session.last_seen_ms > IDLE_MS or now_ms - session.created_at_ms > ABSOLUTE_MS:
            self._cache.drop(EndedTokens(player.id, token_hash=digest))
            await self._store.end_session(digest)
            return None
        if now_ms - session.last_seen_ms >= TOUCH_EVERY_MS:
            session = replace(session, last_seen_ms=now_ms)
            self._cache.keep(digest, player, session, read_ms)
            await self._store.touch_session(digest, now_ms)
        return player

    async def _read(self, digest: str) -> tuple[Player, SessionRecord] | None:
        """The session and its account from the store, kept in the cache; read again if an end
        that may be this token's was heard meanwhile (the read may predate its commit)."""
        while True:
            generation = self._cache.generation
            session = await self._store.session(digest)
            if session is None:
                return None
            record = (await self._store.players([session.player_id])).get(session.player_id)
            if record is None:
                return None
            if not self._cache.ended_since(generation, record.id, digest):
                break
        player = Player(record.id, record.name, account=True)
        self._cache.keep(digest, player, session)
        return player, session

    def _new_session(self, player_id: str) -> tuple[str, SessionRecord]:
        token = secrets.token_urlsafe(32)
        now_ms = self._wall_ms()
        return token, SessionRecord(token_hash(token), player_id, now_ms, now_ms)


def _taken(name: str) -> Rejection:
    return Rejection(
        ErrorCode.NAME_TAKEN, f"the name {name!r} is taken by an account: choose another"
    )
