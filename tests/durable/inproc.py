"""Matches played in this process, through the match service and a real storage port."""

from __future__ import annotations

import random
from collections.abc import Callable

from spectacular_bid.rules.actions import Accept, Bid, Decline, Draw, Play, SeatAction
from spectacular_bid.rules.match import Phase
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.guests import Player
from spectacular_bid.service.intents import Intent, IntentKind
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.ports import MatchMode


def intent_for(action: SeatAction, version: int) -> Intent:
    if isinstance(action, Play):
        return Intent(IntentKind.PLAY, version, tile=action.tile, at=action.at)
    if isinstance(action, Bid):
        return Intent(IntentKind.BID, version, amount=action.amount)
    kinds = {Draw: IntentKind.DRAW, Accept: IntentKind.ACCEPT, Decline: IntentKind.DECLINE}
    return Intent(kinds[type(action)], version)


async def seated_match(service: MatchService) -> tuple[MatchActor, tuple[Player, Player]]:
    """An invitation match between two new guests, both seated."""
    now = service.wall_ms()
    ann, _ = await service.guests.create("Ann", now)
    bo, _ = await service.guests.create("Bo", now)
    actor = await service.create_match(ann, MatchMode.INVITE)
    assert await service.join(actor.id, bo) is Seat.SECOND
    return actor, (ann, bo)


async def play(
    service: MatchService,
    actor: MatchActor,
    players: tuple[Player, Player],
    rng: random.Random,
    until: Callable[[MatchActor], bool] = lambda _actor: False,
) -> None:
    """Random legal moves (and Start between rounds) until ``until`` holds or the match ends."""
    while not until(actor) and not actor.match.is_over:
        match = actor.match
        if match.phase is Phase.AWAITING_DEAL:
            seat = next(s for s in SEATS if s not in actor.ready)
            intent = Intent(IntentKind.START, actor.version)
        else:
            action = rng.choice(match.legal_actions())
            seat, intent = action.seat, intent_for(action, actor.version)
        await actor.submit(players[seat], intent, service.now_ms())


async def resign(service: MatchService, actor: MatchActor, player: Player) -> None:
    await actor.submit(player, Intent(IntentKind.RESIGN, actor.version), service.now_ms())
