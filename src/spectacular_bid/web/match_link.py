"""What a match socket asks of its match, whether this process runs it or another does.

A socket's loops (``web/ws.py``) are the same for both: they read its frames, apply its limits
and send what its subscriber is offered. What differs is where a command or a chat line goes:
to the actor here (:class:`LocalLink`), or over the relay to the process that owns the match
(``web/remote_room.py``, PROTOCOL.md "Several servers on one database"). Either raises the same
:class:`Rejection` values.
"""

from __future__ import annotations

from typing import Protocol

from spectacular_bid.service.chat import ChatLine, Phrase
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.ports import Player
from spectacular_bid.web.messages import ClientCommand, command_of
from spectacular_bid.web.room import Room


class MatchLink(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def version(self) -> int:
        """The latest version known here, for the errors sent to the socket."""
        ...

    async def submit(
        self, player_id: str | None, data: object, message: ClientCommand, received_ms: int
    ) -> int:
        """Run the command; the version it made. ``received_ms`` counts only here: a relayed
        command is timed at the owner's receipt (R7.7)."""
        ...

    async def say(
        self, speaker: Player | None, text: str | None, phrase: Phrase | None
    ) -> ChatLine | None:
        """Store a chat line (PROTOCOL.md "chat"): the line, for :meth:`show` after the speaker's
        ``ack``; None when it was stored and shown elsewhere (the owner shows it)."""
        ...

    def show(self, line: ChatLine) -> None:
        """Send a line just said to every socket shown its channel."""
        ...


class LocalLink:
    """A match this process runs: its actor and its room."""

    def __init__(self, room: Room, service: MatchService) -> None:
        self.room = room
        self.actor = room.actor
        self.service = service

    @property
    def id(self) -> str:
        return self.actor.id

    @property
    def version(self) -> int:
        return self.actor.version

    async def submit(
        self, player_id: str | None, data: object, message: ClientCommand, received_ms: int
    ) -> int:
        return await self.actor.submit(
            player_id, command_of(message), message.version, received_ms, message.acting_seat()
        )

    async def say(
        self, speaker: Player | None, text: str | None, phrase: Phrase | None
    ) -> ChatLine | None:
        return await self.service.say(self.actor.id, speaker, text, phrase)

    def show(self, line: ChatLine) -> None:
        self.room.chat(line)
