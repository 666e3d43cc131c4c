"""The five levels of computer opponent and their one entry point, :func:`decide`.

1. a uniformly random legal action; in the auction, a random one of the decline or accept and
   the bids within level 2's estimate of the opening's worth (§6);
2. greedy: the largest award now (R3.5), and an auction from a quick estimate of the opening's
   worth (§6);
3. to 5. determinized search (:mod:`.search`): worlds sampled from what the seat saw, each legal
   action played out in each, the best on average. The levels grow in worlds, playouts per
   world and playout quality; the auction's estimate comes from the same kind of playouts.

A bot sees only its own seat's filtered events (R2.2, D4); it reads no clock but the injected one
and draws randomness only from the ``random.Random`` it is given, so a decision replays exactly
from its inputs: randomness is an input, never drawn globally (tests/test_architecture.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from spectacular_bid.bots.bidding import auction_action, estimated_worth, random_auction_action
from spectacular_bid.bots.knowledge import Knowledge, read
from spectacular_bid.bots.policies import greedy_action, mixed_policy, random_action
from spectacular_bid.bots.search import Effort, best_action, opening_values
from spectacular_bid.bots.worlds import sample_world
from spectacular_bid.rules.actions import Event, SeatAction
from spectacular_bid.rules.phase import Phase
from spectacular_bid.rules.seats import Seat


@dataclass(frozen=True, slots=True)
class Level:
    """A searching level: its effort per decision and the most of the budget it may use."""

    effort: Effort
    share: float


LEVELS: Final = {
    3: Level(Effort(worlds=30, playouts=1, policy=mixed_policy(0.3)), share=0.25),
    4: Level(Effort(worlds=80, playouts=2, policy=mixed_policy(0.15)), share=0.6),
    5: Level(Effort(worlds=100_000, playouts=1, policy=mixed_policy(0.1), settle=32), share=1.0),
}
"""Level 5 is bound by time alone; 3 and 4 by their world counts first."""
LOWEST, HIGHEST = 1, 5
BUDGET_S: Final = {1: 0.0, 2: 0.0, 3: 0.3, 4: 0.6, 5: 0.8}
"""Each level's thinking budget per decision in seconds on this machine (level 5 at most ~1 s,
so that a computer opponent answers within a person's patience); the bench and the bot seat both
give it."""


def _searched(
    level: Level,
    k: Knowledge,
    legal: Sequence[SeatAction],
    rng: random.Random,
    clock: Callable[[], float],
    budget_s: float,
) -> SeatAction:
    deadline = clock() + budget_s * level.share
    if k.phase is Phase.AUCTION:
        mine, theirs = opening_values(k, rng, level.effort, clock, deadline)
        return auction_action(k, legal, mine - theirs)
    return best_action(k, legal, rng, level.effort, clock, deadline)


def decide(
    level: int,
    seat: Seat,
    seen: Sequence[Event],
    rng: random.Random,
    *,
    clock: Callable[[], float],
    budget_s: float,
) -> SeatAction:
    """``seat``'s action at its decision, from ``seen``: every event of the match so far as
    ``seat`` sees it, from the first deal on. A decision with one legal action is instant."""
    if not LOWEST <= level <= HIGHEST or isinstance(level, bool):
        raise ValueError(f"a bot level is {LOWEST} to {HIGHEST}, not {level!r}")
    if budget_s < 0:
        raise ValueError(f"a thinking budget is >= 0 seconds, not {budget_s!r}")
    k = read(seat, seen)
    if k.phase not in (Phase.AUCTION, Phase.OPENING, Phase.PLAYING):
        raise ValueError(f"no decision for {seat} in the {k.phase.value} phase")
    world = sample_world(k, rng)
    legal = world.legal_actions(seat)
    if not legal:
        raise ValueError(f"it is not {seat}'s decision: {world.to_act} is to act")
    if len(legal) == 1:
        return legal[0]
    if level == 1:
        if k.phase is Phase.AUCTION:
            return random_auction_action(k, legal, estimated_worth(k), rng)
        return random_action(world, legal, rng)
    if level == 2:
        if k.phase is Phase.AUCTION:
            return auction_action(k, legal, estimated_worth(k))
        return greedy_action(world, legal, rng)
    return _searched(LEVELS[level], k, legal, rng, clock, budget_s)


__all__ = ["BUDGET_S", "HIGHEST", "LEVELS", "LOWEST", "Level", "decide"]
