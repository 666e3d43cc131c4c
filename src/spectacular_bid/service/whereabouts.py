"""Where a match is: in this process's memory, ended in the store, or run by another process
(PROTOCOL.md "Several servers on one database"), so that a socket or a request on any process can
reach it."""

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
    and ``relaying``, that process; raise ``not_found`` as ``find`` does otherwise.

    Relaying, a match not at hand is first looked for among the live ones of other processes:
    one query, where reading it as ended first (its header, with the ORM) and then its owner
    made every socket and join of a match on a peer cost two (BENCHMARKS.md "bench server and bench
    store"). Only a match no live process runs is then read from its record."""
    if not relaying:
        return await service.find(match_id)
    held = service.at_hand(match_id)
    if held is not None:
        return held
    owner = await service.store.owner_of(match_id)
    if owner is None:
        return await service.find(match_id)
    if owner == service.store.server_id:  # handed over by a peer, not resumed yet
        raise Rejection(
            ErrorCode.SERVER_BUSY,
            f"match {match_id!r} is being taken over by this server; try again",
            retry_after_s=1,
        )
    return Elsewhere(owner)
