"""The chat's WebSocket and HTTP shapes (the rules are ``service/chat.py``).

A client sends ``chat`` with a ``text`` or a quick ``phrase``; it is answered ``ack`` (with the
match's version, which a line never changes) or ``error``. Every socket shown the line's channel
is then sent a ``chat`` message; a socket that connects is sent the lines so far in one, and
``GET /api/matches/{id}/chat`` gives them over HTTP (the replay of an ended match). Lines carry
their number, so a page shows each once however it came.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Literal

from pydantic import Field

from spectacular_bid.service.chat import MAX_CHARS, ChatLine, Phrase
from spectacular_bid.web.message_base import ClientMessageBase, ServerMessageBase
from spectacular_bid.web.notation import SeatName, WireModel

PhraseName = Literal["hello", "good_luck", "well_played", "thanks", "good_game"]
ChannelName = Literal["players", "spectators"]


class ClientChat(ClientMessageBase):
    """A chat line: a ``text`` or a quick ``phrase``, not both. Never stale, no version."""

    type: Literal["chat"]
    text: str | None = Field(default=None, max_length=4 * MAX_CHARS)
    """At most 140 characters once white space is collapsed (the server counts)."""
    phrase: PhraseName | None = None

    def phrase_value(self) -> Phrase | None:
        return Phrase(self.phrase) if self.phrase is not None else None


class ChatLineModel(WireModel):
    n: int
    """The line's number in the match: 1, 2, …"""
    channel: ChannelName
    by: str
    """The speaker's key, the same in every match: what a reader mutes."""
    name: str
    seat: SeatName | None
    """The speaker's seat in the players' channel; null for a spectator."""
    text: str | None
    phrase: PhraseName | None
    """A quick phrase, to be shown in the reader's language; null for a typed line."""
    at_ms: int
    """When it was said: the server's wall clock, ms since the Unix epoch."""


class ServerChat(ServerMessageBase):
    """Chat lines in a channel the socket is shown: one just said, or the history on connect."""

    type: Literal["chat"]
    lines: list[ChatLineModel]


class ChatHistory(WireModel):
    """``GET /api/matches/{id}/chat``: the lines the caller is shown, oldest first."""

    lines: list[ChatLineModel]


def line_json(line: ChatLine) -> dict[str, object]:
    return {
        "n": line.number,
        "channel": line.channel.value,
        "by": line.speaker,
        "name": line.name,
        "seat": str(line.seat) if line.seat is not None else None,
        "text": line.text,
        "phrase": line.phrase.value if line.phrase is not None else None,
        "at_ms": line.wall_ms,
    }


def chat_text(version: int, lines: Iterable[ChatLine]) -> str:
    body = {"type": "chat", "version": version, "lines": [line_json(x) for x in lines]}
    return json.dumps(body, separators=(",", ":"))
