"""The storage port: what the service needs from a database, and nothing more, so every dependency
points inward.

The service calls :meth:`MatchStore.append` and waits for it before anyone is told of a command's
events, so whatever a player saw is durable. :mod:`spectacular_bid.service.memory` implements the
port in memory; the database implementation lives in ``spectacular_bid.store``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from spectacular_bid.service.ratings import Rating

JSON = Any
"""A value made of dicts, lists, str, int, bool and None."""


class MatchMode(Enum):
    INVITE = "invite"
    """An online match joined through its invitation link."""
    OPEN = "open"
    """An open challenge listed in the lobby for anyone to accept."""
    SHARED = "shared"
    """Both seats on one device, with a private hand-over between turns (R7.5)."""
    BOT = "bot"
    """Against the computer, which takes the second seat; never rated."""


class MatchStatus(Enum):
    WAITING = "waiting"
    """A seat is still empty (D3: the join timeout runs)."""
    ACTIVE = "active"
    FINISHED = "finished"
    ABORTED = "aborted"
    """Ended with no result (D3, D5)."""


@dataclass(frozen=True, slots=True)
class Player:
    """Who holds a seat or watches: an id, the display name, and whether it is an account.

    ``account`` is as it was when the player took a seat: a match is rated only between two accounts
    (PROTOCOL.md "Players: profiles, ratings and archives"), and a guest who makes an account later
    does not make its earlier matches rated."""

    id: str
    name: str
    account: bool = False


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    id: str
    name: str
    token_hash: str
    """SHA-256 of the guest's bearer token: the token itself is never stored."""
    created_at_ms: int
    name_key: str | None = None
    """An account's name folded for comparison, unique among accounts; None for a guest."""
    password_hash: str | None = None
    """An account's password hash; None for a guest."""
    rating: Rating | None = None
    """The rating after the player's last rated match; None until its first (PROTOCOL.md "Players:
    profiles, ratings and archives")."""
    rated_at_ms: int | None = None
    """Wall ms of the end of the player's last rated match (its deviation grows from then)."""

    @property
    def is_account(self) -> bool:
        return self.password_hash is not None


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """One logged-in browser of an account: a hash of its token and when it began and was used."""

    token_hash: str
    player_id: str
    created_at_ms: int
    last_seen_ms: int


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match's header: who sits where, its settings, its status and its result."""

    id: str
    mode: MatchMode
    settings: JSON
    first_player: str | None
    second_player: str | None
    status: MatchStatus
    winner: str | None
    """``"first"``/``"second"`` or None."""
    reason: str | None
    rated: bool
    created_at_ms: int
    ended_at_ms: int | None
    imported_id: str | None = None
    """For a match imported from a record document, the id that document gave it: the match's
    own id is always a fresh one of this server's. None for every other match,
    and for matches imported before the id was kept."""
    first_account: bool = False
    """Whether the first seat's player was an account when it took the seat (the rated policy
    reads it, and so does the replay of the match's record)."""
    second_account: bool = False


@dataclass(frozen=True, slots=True)
class RatedResult:
    """A rated match's result, stored with its ending (PROTOCOL.md "Players: profiles, ratings and
    archives"): the store rates both players in the same transaction, from their ratings as stored
    then."""

    match_id: str
    first_player: str
    second_player: str
    first_won: bool
    at_ms: int
    """Wall ms of the match's end."""


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One player's rating before and after one rated match."""

    match_id: str
    player_id: str
    at_ms: int
    before: Rating
    """The rating the match started from: the last one, aged by the idle time since (or a
    newcomer's)."""
    after: Rating


@dataclass(frozen=True, slots=True)
class SeatedMatch:
    """An ended match's header with its seats' players as stored now, read together: a line of
    the lobby's finished list needs both, and one query for both keeps the lobby cheap."""

    match: MatchRecord
    first: PlayerRecord | None
    """None for a seat nobody took (an aborted invitation, D3)."""
    second: PlayerRecord | None


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One version of a match: the command that made it and the events it caused."""

    match_id: str
    version: int
    seat: str | None
    command: JSON
    events: JSON
    wall_ms: int
    mono_ms: int
    clock: JSON
    received_ms: int | None = None
    """When the server received the command, the time its clock charge was taken at (R7.7);
    None in versions written before record format 2, whose replay infers it from the clocks."""
    relayed_ms: int | None = None
    """The clock audit of a relayed command: how long it spent in the relay between the server
    process whose socket received it and the match's owner, which did not charge it (R7.7,
    PROTOCOL.md *Several servers on one database*); None for any other version."""


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A round's deck commitment, and its salt and deck once revealed (D4)."""

    match_id: str
    number: int
    """1 for the first round of the match."""
    commitment: str
    """SHA-256 hex over the deck order and the salt, published when the round is dealt."""
    salt: str | None = None
    """None until the round ends."""
    deck: JSON | None = None
    """The deck order; None until the round ends."""


@dataclass(frozen=True, slots=True)
class ChatRecord:
    """One chat line of a match (PROTOCOL.md "chat"): never part of its versions."""

    match_id: str
    number: int
    """1 for the match's first line."""
    channel: str
    """``players`` or ``spectators``."""
    player_id: str
    name: str
    """The speaker's name when they said it."""
    seat: str | None
    text: str | None
    phrase: str | None
    """A quick phrase's key, shown in each reader's language; None for a typed line."""
    wall_ms: int


class StorageError(RuntimeError):
    """A write the service depends on did not become durable."""


class LeaseLostError(StorageError):
    """This server no longer owns its matches: a peer took its lease over (PROTOCOL.md "Several
    servers on one database") and ends them, so this server may write nothing more and must let them
    go."""


class MatchStore(Protocol):
    async def unready_reason(self) -> str | None:
        """Why the store cannot serve now — its database unreachable, its schema not the one
        this program needs — or None when it can. A proxy sends a replica nothing while it says
        why (``/readyz``), so it must answer quickly and never raise."""
        ...

    async def add_player(self, player: PlayerRecord) -> None: ...

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None: ...

    async def players(self, ids: Sequence[str]) -> dict[str, PlayerRecord]: ...

    async def player_by_name_key(self, name_key: str) -> PlayerRecord | None:
        """The account whose folded name is ``name_key``."""
        ...

    async def claim_account(
        self,
        player_id: str,
        name_key: str,
        password_hash: str,
        retired_token_hash: str,
        session: SessionRecord,
    ) -> None:
        """Make a guest an account with ``session`` its first session, together: its guest token
        is replaced by ``retired_token_hash`` (of a token no one holds), as a login replaces a
        session's id. :class:`StorageError` and nothing changed if the name is taken or the
        player is not a guest."""
        ...

    async def add_session(self, session: SessionRecord) -> None: ...

    async def session(self, token_hash: str) -> SessionRecord | None: ...

    async def touch_session(self, token_hash: str, now_ms: int) -> None:
        """Record that the session was used at ``now_ms`` (for its idle expiry)."""
        ...

    async def end_session(self, token_hash: str) -> None:
        """End one session (a logout); nothing if there is none."""
        ...

    async def end_sessions(self, player_id: str, keep: str | None = None) -> None:
        """End every session of the player but ``keep`` (a token hash)."""
        ...

    async def set_password(
        self, player_id: str, password_hash: str, keep: str | None, *, end_others: bool = True
    ) -> None:
        """Store a new password hash and end every other session (``keep`` stays), together;
        with ``end_others`` false (the same password rehashed) the sessions stay."""
        ...

    async def save_match(self, match: MatchRecord) -> None:
        """Insert or update a match header."""
        ...

    async def append(
        self,
        records: Sequence[EventRecord],
        *,
        rounds: Sequence[RoundRecord] = (),
        match: MatchRecord | None = None,
        rated: RatedResult | None = None,
    ) -> None:
        """Make ``records`` durable, or raise :class:`StorageError` and keep none of them.

        ``rounds`` (saved as by :meth:`save_round`) and ``match`` (a header, as by
        :meth:`save_match`) are what the same versions change: they are stored with the events
        or not at all, and cost no commit of their own. With ``rated``, both players' ratings
        are updated by :func:`~spectacular_bid.service.match_ratings.rate` from their stored
        ratings and a :class:`RatingChange` is kept for each, in the same transaction."""
        ...

    async def events(self, match_id: str, since_version: int = 0) -> list[EventRecord]: ...

    async def match(self, match_id: str) -> MatchRecord | None: ...

    async def save_round(
        self,
        match_id: str,
        number: int,
        commitment: str,
        salt: str | None = None,
        deck: JSON | None = None,
    ) -> None:
        """Record a round's commitment when it is dealt, then its salt and deck when it ends.

        A round's commitment never changes: saving a different one for a stored round raises
        :class:`StorageError` and changes nothing. ``salt`` and ``deck`` left as None keep what is
        stored.
        """
        ...

    async def rounds(self, match_id: str) -> list[RoundRecord]:
        """The match's rounds in order of their number."""
        ...

    async def unfinished_matches(self) -> list[MatchRecord]:
        """Every match whose status is still waiting or active, whoever runs it, oldest
        first."""
        ...

    @property
    def server_id(self) -> str | None:
        """This server process's id among those sharing the store (PROTOCOL.md "Several servers on
        one database"); None for a store only one process uses."""
        ...

    def lease_reason(self) -> str | None:
        """Why this server may not write now for its lease, read without the database: a peer
        took it (:class:`LeaseLostError` was raised), or it ran out as last renewed (the
        process was paused). None for a store only one process uses."""
        ...

    async def register_again(self) -> str | None:
        """After the lease was lost: register this server under a fresh id and epoch, owning
        nothing, and return the id (OPERATIONS.md, "Running it for real"). None without leases."""
        ...

    async def owner_of(self, match_id: str) -> str | None:
        """The id of the live server that runs the live match ``match_id``, or None (no such match,
        no owner alive): where a socket's commands are relayed (PROTOCOL.md "Several servers on one
        database")."""
        ...

    async def live_peers(self) -> list[str]:
        """The ids of the other servers on the store whose lease runs now: those a stopping
        server can hand its live matches to (PROTOCOL.md "Several servers on one database")."""
        ...

    async def hand_over(self, match_ids: list[str], server_id: str) -> list[str]:
        """Make the live server ``server_id`` the owner of those of ``match_ids`` this server owns,
        fenced by this server's lease; return the ids moved (PROTOCOL.md "Several servers on one
        database"). Raises :class:`LeaseLostError` when the lease was lost."""
        ...

    async def owned_matches(self) -> list[str]:
        """The ids of the live matches the store says this server owns (a peer handed them
        over, or this server runs them)."""
        ...

    async def claim_orphans(self, *, own: bool = False) -> list[MatchRecord]:
        """Take over the live matches no live server runs — those of a server whose lease ran
        out, and those stored before leases — and return them, oldest first: each is this
        server's to end (D5). Every such match is returned to exactly one caller, once, of all
        the servers on the store. With ``own``, also this server's own live matches: a service
        starting has none running, so what its store holds as its own was left by an earlier
        service on the same store. Renews this server's lease; raises :class:`LeaseLostError`
        when it was lost."""
        ...

    async def ended_matches(
        self,
        statuses: Sequence[MatchStatus],
        limit: int,
        before: tuple[int, str] | None = None,
        player: str | None = None,
    ) -> list[MatchRecord]:
        """Up to ``limit`` ended matches with one of ``statuses``, newest first: ordered by
        ``(ended_at_ms, id)`` descending and, with ``before``, only those strictly before that
        pair (a page cursor); with ``player``, only those in which that player held a seat."""
        ...

    async def ended_with_players(
        self, limit: int, before: tuple[int, str] | None = None
    ) -> list[SeatedMatch]:
        """Up to ``limit`` ended matches, finished or aborted, each with its seats' players, in
        the order and with the cursor of :meth:`ended_matches`: the lobby's finished list, read
        on every visitor's poll, so one indexed query whatever the number of ended matches."""
        ...

    async def rating_changes_of(self, match_ids: Sequence[str]) -> list[RatingChange]:
        """The rating changes stored with those matches (two for a rated match, none for any
        other), in one indexed query: the ratings a page of the lobby's finished list moved."""
        ...

    async def results(self, player_id: str) -> tuple[int, int]:
        """The player's finished matches won and lost (a shared-device match, where it held both
        seats, counts as neither)."""
        ...

    async def rating_changes(self, player_id: str, limit: int) -> list[RatingChange]:
        """The player's latest ``limit`` rating changes, oldest first."""
        ...

    async def add_chat_line(self, line: ChatRecord) -> None:
        """Store a chat line, or raise :class:`StorageError` (one with its number already
        stored included) and store nothing."""
        ...

    async def chat_lines(self, match_id: str) -> list[ChatRecord]:
        """The match's chat lines in order of their number."""
        ...

    async def import_match(
        self,
        players: Sequence[PlayerRecord],
        match: MatchRecord,
        rounds: Sequence[RoundRecord],
        events: Sequence[EventRecord],
    ) -> None:
        """Store a whole ended match at once — its players, header, rounds and events — or raise
        :class:`StorageError` and store none of it (an imported match record)."""
        ...
