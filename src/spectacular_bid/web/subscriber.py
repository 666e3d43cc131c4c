"""One socket's outgoing queue (lila-ws's client actor, reduced to its mailbox).

Its own module, so that a room (``room.py``) and a socket watched from another server process
(``remote_room.py``) share it without one depending on the other.
"""

from __future__ import annotations

from spectacular_bid.service.audience import Audience
from spectacular_bid.service.mailbox import Mailbox
from spectacular_bid.service.ports import Player


class Subscriber:
    """One socket's outgoing queue: ``None`` in it tells the socket's sender to stop."""

    def __init__(self, audience: Audience, player: Player | None, limit: int) -> None:
        self.audience = audience
        self.player = player
        self.limit = limit
        self.queue: Mailbox[str | None] = Mailbox()
        self.dropped = False
        self.restarting = False
        """Closed because the match moved to another server process (PROTOCOL.md "Several servers on
        one database"): the socket closes with 1012, not 1013."""

    @property
    def player_id(self) -> str | None:
        return self.player.id if self.player is not None else None

    def offer(self, message: str) -> None:
        if self.dropped:
            return
        if self.queue.qsize() >= self.limit:
            self.dropped = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(message)

    def close(self) -> None:
        """The match is gone or the server shuts down."""
        if not self.dropped:
            self.dropped = True
            self.queue.put_nowait(None)

    def restart(self) -> None:
        """The match moved to another server process: reconnect there (PROTOCOL.md "Several servers
        on one database")."""
        if not self.dropped:
            self.restarting = True
        self.close()
