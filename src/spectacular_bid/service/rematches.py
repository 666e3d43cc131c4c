"""Rematch offers (issue 11 item 4): when an online match has ended, either player may offer
the other a rematch; the other accepts (by offering too) or declines.

On acceptance a new invitation match starts with the same two players and the same time control,
the seats swapped, so that each player sits in each seat in turn (as lichess swaps colours), and
everyone watching the ended match (players and spectators) is told where it is.

An offer lapses after :data:`OFFER_MS`, when either player leaves the ended match (the web layer
calls :meth:`Rematches.lapse` when a seated player's last socket closes), or when it is declined.
An offer is an intent, not a command of the match: it never changes the ended match's version
or its record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from spectacular_bid.rules.seats import Seat
from spectacular_bid.service.ports import MatchMode, MatchStatus, Player
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.timesource import MsSource

if TYPE_CHECKING:
    from spectacular_bid.service.actor import MatchActor
    from spectacular_bid.service.matches import MatchService

OFFER_MS: Final = 180_000
"""How long an offer stands: "a few minutes", well within the five that an ended match's actor,
and with it its sockets, stays in memory (``FINISHED_TTL_MS``)."""
ONLINE: Final = frozenset({MatchMode.INVITE, MatchMode.OPEN})
ENDED: Final = frozenset({MatchStatus.FINISHED, MatchStatus.ABORTED})


@dataclass(frozen=True, slots=True)
class RematchState:
    """What everyone watching an ended match is told of its rematch."""

    offered_by: Seat | None
    """The seat whose offer stands; None when there is none (or the rematch has started)."""
    expires_in_ms: int | None
    """How long the standing offer has left."""
    next_id: str | None
    """The rematch once it has started: everyone is taken there."""


NONE: Final = RematchState(None, None, None)


@dataclass(frozen=True, slots=True)
class _Offer:
    by: Seat
    at_ms: int


class Rematches:
    """The standing offers and started rematches of the ended matches in memory."""

    def __init__(self, now_ms: MsSource) -> None:
        self._now_ms = now_ms
        self._offers: dict[str, _Offer] = {}
        self._started: dict[str, str] = {}

    def state(self, match_id: str) -> RematchState:
        started = self._started.get(match_id)
        if started is not None:
            return RematchState(None, None, started)
        offer = self._standing(match_id)
        if offer is None:
            return NONE
        return RematchState(offer.by, offer.at_ms + OFFER_MS - self._now_ms(), None)

    def _standing(self, match_id: str) -> _Offer | None:
        offer = self._offers.get(match_id)
        if offer is not None and self._now_ms() - offer.at_ms >= OFFER_MS:
            del self._offers[match_id]
            return None
        return offer

    async def offer(self, service: MatchService, actor: MatchActor, player: Player) -> RematchState:
        """Offer a rematch, or accept the opponent's standing offer, which starts it."""
        seat = _seat_of(actor, player)
        match_id = actor.id
        if match_id in self._started:
            return self.state(match_id)
        standing = self._standing(match_id)
        if standing is None or standing.by is seat:
            self._offers[match_id] = _Offer(seat, self._now_ms())
            return self.state(match_id)
        first, second = actor.state.seats
        assert first is not None  # _seat_of checked both seats
        assert second is not None
        clock = actor.state.settings.clock
        rematch = await service.create_match(second, MatchMode.INVITE, clock)
        await service.join(rematch.id, first)
        del self._offers[match_id]
        self._started[match_id] = rematch.id
        return self.state(match_id)

    def decline(self, actor: MatchActor, player: Player) -> RematchState:
        """Decline the opponent's offer, or withdraw one's own."""
        _seat_of(actor, player)
        self._offers.pop(actor.id, None)
        return self.state(actor.id)

    def lapse(self, match_id: str) -> bool:
        """A player left: its offer, or the one made to it, lapses. True if one stood."""
        return self._offers.pop(match_id, None) is not None

    def forget(self, match_id: str) -> None:
        """The ended match left memory: nothing more can be offered for it."""
        self._offers.pop(match_id, None)
        self._started.pop(match_id, None)


def _seat_of(actor: MatchActor, player: Player) -> Seat:
    state = actor.state
    if state.status not in ENDED:
        raise Rejection(ErrorCode.WRONG_PHASE, "a rematch is offered once the match has ended")
    if state.mode not in ONLINE:
        raise Rejection(
            ErrorCode.WRONG_PHASE, "a shared device starts its next match from the lobby"
        )
    first, second = state.seats
    if first is None or second is None or first.id == second.id:
        raise Rejection(ErrorCode.WRONG_PHASE, "this match had no opponent to play again")
    if player.id == first.id:
        return Seat.FIRST
    if player.id == second.id:
        return Seat.SECOND
    raise Rejection(ErrorCode.NOT_YOUR_SEAT, "only the match's two players can ask for a rematch")
