"""Where a match is: in this process's memory, ended in the store, or run by another process
(issue 13 item 2), so that a socket or a request on any process can reach it."""

from __future__ import annotations

from dataclasses import dataclass

from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.replay import Rebuilt


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """A live match run by the server process ``server_id`` (its lease, ``store.leases``)."""

    server_id: str


async def locate(
    service: MatchService, match_id: str, *, relaying: bool = True
) -> MatchActor | Rebuilt | Elsewhere:
    """The match as :meth:`MatchService.find` finds it, or, when it is live on another process
    and ``relaying``, that process; raise ``not_found`` as ``find`` does otherwise."""
    try:
        return await service.find(match_id)
    except Rejection as rejection:
        if not relaying or rejection.code is not ErrorCode.NOT_FOUND:
            raise
        owner = await service.store.owner_of(match_id)
        if owner is None:
            raise
        if owner == service.store.server_id:  # handed over by a peer, not resumed yet
            raise Rejection(
                ErrorCode.SERVER_BUSY,
                f"match {match_id!r} is being taken over by this server; try again",
                retry_after_s=1,
            ) from None
        return Elsewhere(owner)
