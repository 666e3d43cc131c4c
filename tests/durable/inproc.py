"""Matches played in this process, through the match service and a real storage port."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from spectacular_bid.rules.match import Phase
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.commands import PlayerCommand, ResignMatch, Start, move_of
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.ports import MatchMode, Player
from spectacular_bid.service.state import MatchState


async def seated_match(
    service: MatchService, *, accounts: bool = False
) -> tuple[MatchActor, tuple[Player, Player]]:
    """An invitation match between two new guests, both seated; with ``accounts``, seated as
    accounts would be (so that the match is rated, PROTOCOL.md "Players: profiles, ratings and
    archives")."""
    now = service.wall_ms()
    ann, _ = await service.guests.create("Ann", now)
    bo, _ = await service.guests.create("Bo", now)
    if accounts:
        ann, bo = replace(ann, account=True), replace(bo, account=True)
    actor = await service.create_match(ann, MatchMode.INVITE)
    assert await service.join(actor.id, bo) is Seat.SECOND
    return actor, (ann, bo)


async def play(
    service: MatchService,
    actor: MatchActor,
    players: tuple[Player, Player],
    rng: random.Random,
    until: Callable[[MatchState], bool] = lambda _state: False,
) -> None:
    """Random legal moves (and Start between rounds) until ``until`` holds for the match's state
    or the match ends."""
    while not until(actor.state) and not actor.state.match.is_over:
        state = actor.state
        command: PlayerCommand
        if state.match.phase is Phase.AWAITING_DEAL:
            seat = next(s for s in SEATS if s not in state.ready)
            command = Start()
        else:
            action = rng.choice(state.match.legal_actions())
            seat, command = action.seat, move_of(action)
        await actor.submit(players[seat].id, command, actor.version, service.now_ms())


async def resign(service: MatchService, actor: MatchActor, player: Player) -> None:
    await actor.submit(player.id, ResignMatch(), actor.version, service.now_ms())


async def end(service: MatchService, actor: MatchActor, player: Player) -> None:
    """End a randomly played match: ``player`` resigns unless the play already ended it (an
    auction can take a balance to 0 within a few versions, R1.5)."""
    if not actor.state.match.is_over:
        await resign(service, actor, player)
