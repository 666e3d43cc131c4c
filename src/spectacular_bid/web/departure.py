"""A server's departure on SIGTERM while peers live (PROTOCOL.md "Several servers on one database"):
its live matches go to a peer (``service.handover``), and their sockets, here and on every process,
close with 1012 so that their clients reconnect to the match where it now runs.

The sockets close only once the peer answers that it runs the matches (the ``adopt`` op over
the bus), so a client that reconnects at once finds them there; their last version here is the
hand-over's, and the peer sends the resuming version next. Should the peer not answer, its next
scan adopts them from the store anyway, and a socket that comes too early is told to try again
(``service.whereabouts``).
"""

from __future__ import annotations

import logging

from spectacular_bid.service.handover import Handover
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.ports import StorageError
from spectacular_bid.service.refusals import Rejection
from spectacular_bid.web.json_text import compact
from spectacular_bid.web.relay import MATCH_CHANNEL, Body, Relay, Request
from spectacular_bid.web.room import Rooms

log = logging.getLogger(__name__)


class Departure:
    """The leaving side of a hand-over, and the ``adopt`` op a peer serves for it."""

    def __init__(self, service: MatchService, relay: Relay, rooms: Rooms) -> None:
        self.service = service
        self.handover = Handover(service)
        self.relay = relay
        self.rooms = rooms
        relay.serve("adopt", self._adopt)

    async def _adopt(self, request: Request) -> Body:
        ids = [str(match_id) for match_id in request.get("ids") or []]
        return {"ids": await self.handover.adopt(ids)}

    async def leave(self) -> bool:
        """Hand the live matches to a peer and close their sockets with 1012; whether a peer
        took them (else the server drains as it would alone)."""
        try:
            handed = await self.handover.leave()
        except StorageError as exc:  # the lease is lost, or the database away: as before
            log.error("no hand-over: %s", exc)
            return False
        if handed is None:
            return False
        if handed.match_ids:
            try:
                await self.relay.call(handed.peer, "adopt", {"ids": handed.match_ids})
            except Rejection as exc:
                log.warning(
                    "the peer did not confirm the hand-over (%s): it adopts at its scan", exc
                )
        for match_id in handed.match_ids:
            room = self.rooms.get(match_id)
            if room is not None:
                room.feed = None  # its sockets elsewhere are told below, not 'the match left'
                for sub in list(room.subscribers):
                    sub.restart()
            self.relay.bus.send(MATCH_CHANNEL + match_id, compact({"t": "x", "r": 1}))
        await self.service.let_go(handed.match_ids)
        return True
