"""Chat at the table (PROTOCOL.md "chat"), as lichess has it: the two seats talk in the players'
channel, everyone else who has a name in the spectators' channel, and neither channel is shown to
the other side while the match is live. Once it has ended, both are part of its record for anyone.

A line never goes through the match's actor: it changes no version and waits behind no command,
so a line sent in the middle of a turn leaves a pending command as valid as it was (R8.3 is
about moves, and a line is none). It is stored before anyone is sent it (nothing is lost), and
numbered per match so that a page which reads the history while lines arrive shows each once.

A line is at most :data:`MAX_CHARS` characters after normalisation (NFC; runs of white space,
new lines included, become one space; other control and format characters are refused, so no
line can reorder or hide the text around it), a speaker says at most
:data:`LINES_BURST` lines at once and :data:`LINES_PER_S` a second after that, and a match keeps
at most :data:`MAX_LINES`. Quick phrases are sent as keys, so each reader sees them in their own
language. Muting is the reader's: each line names its speaker by a key (not their id), and the
page hides the keys its reader muted.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from spectacular_bid.rules.seats import Seat
from spectacular_bid.service.audience import Audience, seats_held
from spectacular_bid.service.ports import ChatRecord, MatchMode, MatchStore, Player, StorageError
from spectacular_bid.service.ratelimit import TokenBucket
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.state import MatchState
from spectacular_bid.service.timesource import MsSource

MAX_CHARS: Final = 140
LINES_BURST: Final = 4
LINES_PER_S: Final = 0.5
"""Four lines at once, then one every two seconds: a conversation, not a flood."""
MAX_LINES: Final = 500
"""Per match: a table that has said this much has said enough; storage stays bounded."""

_SPACES = re.compile(r"\s+")


class Channel(Enum):
    PLAYERS = "players"
    SPECTATORS = "spectators"


class Phrase(Enum):
    """The quick phrases, shown in each reader's language."""

    HELLO = "hello"
    GOOD_LUCK = "good_luck"
    WELL_PLAYED = "well_played"
    THANKS = "thanks"
    GOOD_GAME = "good_game"


BOTH: Final = frozenset(Channel)
NONE: Final[frozenset[Channel]] = frozenset()


@dataclass(frozen=True, slots=True)
class ChatLine:
    number: int
    """1, 2, … within the match, in the order the lines were said."""
    channel: Channel
    speaker: str
    """A key for the speaker (the same in every match), so that a reader can mute them."""
    name: str
    seat: Seat | None
    """The speaker's seat in the players' channel; None for a spectator."""
    text: str | None
    phrase: Phrase | None
    wall_ms: int


def speaker_key(player_id: str) -> str:
    """The key a line names its speaker by: stable, short, and not their id."""
    return hashlib.sha256(f"chat:{player_id}".encode()).hexdigest()[:16]


_NO_PLAYERS_CHANNEL: Final = (MatchMode.SHARED, MatchMode.BOT)


def shown_channels(
    state: MatchState, player_id: str | None, audience: Audience
) -> frozenset[Channel]:
    """The channels a socket of ``player_id`` watching as ``audience`` is shown: both once the
    match has ended; while it is live, the players' to the seats, the spectators' to the rest.
    A seated player is never shown the spectators' channel while live, even watching as a
    spectator (``?as=spectator``), and a shared device holds both seats (PROTOCOL.md "chat"); the
    computer reads no chat, so its opponent has no players' channel (PROTOCOL.md "POST
    /api/matches")."""
    if not state.is_live:
        return BOTH
    if seats_held(state.seats, player_id) or audience is Audience.DEVICE:
        return NONE if state.mode in _NO_PLAYERS_CHANNEL else frozenset((Channel.PLAYERS,))
    if audience is Audience.SPECTATOR:
        return frozenset((Channel.SPECTATORS,))
    return frozenset((Channel.PLAYERS,))


def speaking_channel(state: MatchState, player: Player | None) -> tuple[Channel, Seat | None]:
    """Where ``player``'s line goes, or why it cannot be said."""
    if player is None:
        raise Rejection(
            ErrorCode.UNAUTHORIZED, "choose a name to chat: anonymous watchers read only"
        )
    held = seats_held(state.seats, player.id)
    if not held:
        return Channel.SPECTATORS, None
    if state.mode is MatchMode.SHARED:
        raise Rejection(
            ErrorCode.NOT_A_PLAYER, "both players of a shared device sit at it: no chat"
        )
    if state.mode is MatchMode.BOT:
        raise Rejection(ErrorCode.NOT_A_PLAYER, "the computer reads no chat")
    return Channel.PLAYERS, held[0]


def clean_text(raw: str) -> str:
    """The line as stored: NFC, white space collapsed; refused when empty, too long or holding
    a control or format character (bidirectional overrides, zero-width marks)."""
    text = _SPACES.sub(" ", unicodedata.normalize("NFC", raw)).strip()
    if not text:
        raise Rejection(ErrorCode.BAD_MESSAGE, "a chat line needs some text")
    if len(text) > MAX_CHARS:
        raise Rejection(ErrorCode.TOO_LARGE, f"a chat line has at most {MAX_CHARS} characters")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in text):
        raise Rejection(ErrorCode.BAD_MESSAGE, "a chat line may not hold control characters")
    return text


def line_of(record: ChatRecord) -> ChatLine:
    return ChatLine(
        record.number,
        Channel(record.channel),
        speaker_key(record.player_id),
        record.name,
        Seat.FIRST if record.seat == "first" else Seat.SECOND if record.seat == "second" else None,
        record.text,
        Phrase(record.phrase) if record.phrase is not None else None,
        record.wall_ms,
    )


@dataclass(slots=True)
class _Table:
    said: int = 0
    buckets: dict[str, TokenBucket] = field(default_factory=dict)


class Chats:
    """The chat of every match in memory: its line count and its speakers' rate limits."""

    def __init__(self, store: MatchStore, now_ms: MsSource, wall_ms: MsSource) -> None:
        self._store = store
        self._now_ms = now_ms
        self._wall_ms = wall_ms
        self._tables: dict[str, _Table] = {}

    def resume(self, match_id: str, said: int) -> None:
        """A match taken over from a peer (PROTOCOL.md "Several servers on one database") had
        ``said`` lines there: the next is numbered after them, and new sockets read them."""
        self._tables.setdefault(match_id, _Table()).said = said

    def said(self, match_id: str) -> int:
        """How many lines the match has: 0 means a new socket need not read its history."""
        table = self._tables.get(match_id)
        return table.said if table is not None else 0

    async def say(
        self,
        match_id: str,
        state: MatchState,
        player: Player | None,
        text: str | None,
        phrase: Phrase | None,
    ) -> ChatLine:
        """Store ``player``'s line (``text`` or ``phrase``) in the match; raise
        :class:`Rejection` and store nothing when it may not be said."""
        channel, seat = speaking_channel(state, player)
        assert player is not None
        if (text is None) == (phrase is None):
            raise Rejection(ErrorCode.BAD_MESSAGE, "a chat line is either a text or a phrase")
        cleaned = clean_text(text) if text is not None else None
        table = self._tables.setdefault(match_id, _Table())
        if table.said >= MAX_LINES:
            raise Rejection(
                ErrorCode.RATE_LIMITED, f"this match's chat is full ({MAX_LINES} lines)"
            )
        now = self._now_ms()
        bucket = table.buckets.get(player.id)
        if bucket is None:
            bucket = table.buckets[player.id] = TokenBucket(LINES_PER_S, LINES_BURST, now)
        if not bucket.take(now):
            raise Rejection(
                ErrorCode.RATE_LIMITED,
                f"at most {LINES_BURST} chat lines at once, then one every "
                f"{1 / LINES_PER_S:g} seconds",
                retry_after_s=max(1, round(1 / LINES_PER_S)),
            )
        table.said += 1
        record = ChatRecord(
            match_id,
            table.said,
            channel.value,
            player.id,
            player.name,
            str(seat) if seat is not None else None,
            cleaned,
            phrase.value if phrase is not None else None,
            self._wall_ms(),
        )
        try:
            await self._store.add_chat_line(record)
        except StorageError as exc:
            raise Rejection(ErrorCode.STORAGE_FAILED, "the line could not be saved") from exc
        return line_of(record)

    async def lines(self, match_id: str, shown: frozenset[Channel]) -> list[ChatLine]:
        """The match's stored lines in the channels ``shown``, oldest first."""
        if not shown:
            return []
        records = await self._store.chat_lines(match_id)
        return [line for line in map(line_of, records) if line.channel in shown]

    def forget(self, match_id: str) -> None:
        """The match has left memory: no socket can chat in it any more."""
        self._tables.pop(match_id, None)
