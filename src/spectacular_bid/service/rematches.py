"""Rematch offers (PROTOCOL.md "rematch"): when an online match has ended, either player may offer
the other a rematch; the other accepts (by offering too) or declines.

On acceptance a new invitation match starts with the same two players and the same time control,
the seats swapped, so that each player sits in each seat in turn (as lichess swaps colours), and
everyone watching the ended match (players and spectators) is told where it is.

A rematch can be asked for from a player's archive too, a day after the match (a player
finds it in their history a day later and asks for a rematch): the ended match is then re-run from
the store, nobody is on its page, and the opponent learns of the offer from the lobby
(:meth:`Rematches.offers_to`), where it is accepted or declined alike.

An offer lapses after :data:`OFFER_MS`, when either player leaves the ended match's page while
the match is in memory (the web layer calls :meth:`Rematches.lapse` when a seated player's last
socket closes), when it is declined, or when the offering player has not been heard from for
:data:`PRESENCE_MS` (its page reads the rematch every few seconds, :meth:`Rematches.seen`). The
last rule matters most for the archive, where no socket tells that the offering player left: an
accepted rematch starts its clocks after the start grace (D3), so an offer from somebody who has
gone would deal them into a match they would lose on time. An offer is an intent, not a command
of the match: it never changes the ended match's version or its record.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final, Protocol

from spectacular_bid.clock import ClockSettings
from spectacular_bid.rules.seats import Seat
from spectacular_bid.service.ports import MatchMode, MatchStatus, Player
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.timesource import MsSource

if TYPE_CHECKING:
    from spectacular_bid.service.matches import MatchService
    from spectacular_bid.service.state import MatchState

OFFER_MS: Final = 180_000
"""How long an offer stands: "a few minutes", long enough to be seen in a lobby polled every few
seconds, short enough that an offer nobody answers does not wait for ever."""
PRESENCE_MS: Final = 15_000
"""How long an offer stands after its offering player was last heard from (an offer, or a read
of the rematch by that player): the page reads every 3 s, so a few reads may be lost."""
STARTED_MS: Final = 300_000
"""How long a started rematch is pointed to from the ended match; after that a new offer may be
made (another rematch of the same match)."""
ONLINE: Final = frozenset({MatchMode.INVITE, MatchMode.OPEN})
ENDED: Final = frozenset({MatchStatus.FINISHED, MatchStatus.ABORTED})


class EndedMatch(Protocol):
    """An ended match as offers need it: its actor in memory, or re-run from the store."""

    @property
    def id(self) -> str: ...

    @property
    def state(self) -> MatchState: ...


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
class StandingOffer:
    """An offer as the lobby of the player it is made to lists it."""

    match_id: str
    """The ended match to be played again."""
    by: Player
    clock: ClockSettings
    expires_in_ms: int


@dataclass(frozen=True, slots=True)
class _Offer:
    by: Seat
    player: Player
    """The offering player as it was when it offered (its name, whether it is an account)."""
    to: str
    """The opponent's player id."""
    clock: ClockSettings
    at_ms: int
    seen_ms: int
    """When the offering player was last heard from."""

    def stands(self, now_ms: int) -> bool:
        return now_ms - self.at_ms < OFFER_MS and now_ms - self.seen_ms < PRESENCE_MS


class Rematches:
    """The standing offers and started rematches, of ended matches in memory or in the store.

    Both maps stay small: an offer is dropped once read after :data:`OFFER_MS`, and every new
    offer sweeps the ones past it and the rematches started over :data:`STARTED_MS` ago."""

    def __init__(self, now_ms: MsSource) -> None:
        self._now_ms = now_ms
        self._offers: dict[str, _Offer] = {}
        self._started: dict[str, tuple[str, int]] = {}

    def __len__(self) -> int:
        """The offers and started rematches kept (lapsed ones may wait for the next sweep)."""
        return len(self._offers) + len(self._started)

    def state(self, match_id: str) -> RematchState:
        started = self._started_id(match_id)
        if started is not None:
            return RematchState(None, None, started)
        offer = self._standing(match_id)
        if offer is None:
            return NONE
        return RematchState(offer.by, offer.at_ms + OFFER_MS - self._now_ms(), None)

    def offers_to(self, player_id: str) -> list[StandingOffer]:
        """The offers standing for ``player_id``, the newest first (its lobby lists them)."""
        now = self._now_ms()
        return [
            StandingOffer(match_id, offer.player, offer.clock, offer.at_ms + OFFER_MS - now)
            for match_id, offer in sorted(
                self._offers.items(), key=lambda item: item[1].at_ms, reverse=True
            )
            if offer.to == player_id and offer.stands(now)
        ]

    def seen(self, match_id: str, player_id: str) -> None:
        """The player read the rematch of ``match_id``: if its offer stands, it is still there."""
        offer = self._standing(match_id)
        if offer is not None and offer.player.id == player_id:
            self._offers[match_id] = replace(offer, seen_ms=self._now_ms())

    def _standing(self, match_id: str) -> _Offer | None:
        offer = self._offers.get(match_id)
        if offer is not None and not offer.stands(self._now_ms()):
            del self._offers[match_id]
            return None
        return offer

    def _started_id(self, match_id: str) -> str | None:
        started = self._started.get(match_id)
        if started is None:
            return None
        if self._now_ms() - started[1] >= STARTED_MS:
            del self._started[match_id]
            return None
        return started[0]

    def _sweep(self) -> None:
        now = self._now_ms()
        for match_id in [m for m, o in self._offers.items() if not o.stands(now)]:
            del self._offers[match_id]
        for match_id in [m for m, s in self._started.items() if now - s[1] >= STARTED_MS]:
            del self._started[match_id]

    async def offer(self, service: MatchService, match: EndedMatch, player: Player) -> RematchState:
        """Offer a rematch, or accept the opponent's standing offer, which starts it."""
        seat, opponent = _seats(match.state, player)
        match_id = match.id
        if self._started_id(match_id) is not None:
            return self.state(match_id)
        standing = self._standing(match_id)
        clock = match.state.settings.clock
        if standing is None or standing.by is seat:
            self._sweep()
            now = self._now_ms()
            self._offers[match_id] = _Offer(seat, player, opponent.id, clock, now, now)
            return self.state(match_id)
        # The players as they are now: one of them may have made an account since the match.
        first, second = (
            (standing.player, player) if seat is Seat.SECOND else (player, standing.player)
        )
        rematch = await service.create_match(second, MatchMode.INVITE, clock)
        await service.join(rematch.id, first)
        del self._offers[match_id]
        self._started[match_id] = (rematch.id, self._now_ms())
        return self.state(match_id)

    def decline(self, match: EndedMatch, player: Player) -> RematchState:
        """Decline the opponent's offer, or withdraw one's own."""
        _seats(match.state, player)
        self._offers.pop(match.id, None)
        return self.state(match.id)

    def lapse(self, match_id: str) -> bool:
        """A player left: its offer, or the one made to it, lapses. True if one stood."""
        return self._offers.pop(match_id, None) is not None


def _seats(state: MatchState, player: Player) -> tuple[Seat, Player]:
    """The seat ``player`` held in the ended match, and its opponent."""
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
        return Seat.FIRST, second
    if player.id == second.id:
        return Seat.SECOND, first
    raise Rejection(ErrorCode.NOT_YOUR_SEAT, "only the match's two players can ask for a rematch")
