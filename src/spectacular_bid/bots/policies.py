"""Choosing among legal actions without search: uniformly at random, or greedily.

The greedy choice takes the placement with the largest award now (R3.4, R3.5), breaking ties by
laying the heavier tile, since pips left in hand are what a block costs (R4.6). It is level 2's
play and the search's playout policy; a choice it cannot rank (a draw, a forced tile) is the
first legal action.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from spectacular_bid.rules.actions import Play, SeatAction
from spectacular_bid.rules.match import Match
from spectacular_bid.rules.tiles import PIPS

Policy = Callable[[Match, Sequence[SeatAction], random.Random], SeatAction]


def random_action(match: Match, legal: Sequence[SeatAction], rng: random.Random) -> SeatAction:
    """Level 1 and the plainest playout: every legal action equally likely."""
    return legal[int(rng.random() * len(legal))]


def award_of(match: Match, action: Play) -> int:
    """What laying ``action`` would transfer before the payer cap (R3.5)."""
    assert match.round is not None
    at = action.at
    return match.round.board.award_after(action.tile, -1 if at is None else at.tile * 8 + at.side)


def greedy_action(match: Match, legal: Sequence[SeatAction], rng: random.Random) -> SeatAction:
    """The largest award now, then the heavier tile; equal ones by a fair coin."""
    if len(legal) == 1 or type(legal[0]) is not Play:
        return legal[0]
    best: list[SeatAction] = []
    best_key = (-1, -1)
    for action in legal:
        assert isinstance(action, Play)
        key = (award_of(match, action), PIPS[action.tile])
        if key > best_key:
            best_key, best = key, [action]
        elif key == best_key:
            best.append(action)
    return best[int(rng.random() * len(best))] if len(best) > 1 else best[0]


def mixed_policy(exploration: float) -> Policy:
    """Greedy, but a random legal action with probability ``exploration``: playouts that are
    not all alike, so averaging them over worlds says more than one greedy line."""

    def choose(match: Match, legal: Sequence[SeatAction], rng: random.Random) -> SeatAction:
        if rng.random() < exploration:
            return random_action(match, legal, rng)
        return greedy_action(match, legal, rng)

    return choose


__all__ = ["Policy", "award_of", "greedy_action", "mixed_policy", "random_action"]
