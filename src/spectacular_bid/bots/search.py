"""Determinized search (perfect-information Monte Carlo) over sampled worlds.

Each world from :mod:`.worlds` agrees with everything the seat saw; every candidate action is
tried in the same world and then played out to the round's end, each action's playouts sharing
one random stream per world so that the actions are compared on equal luck. The action with the
best mean over all worlds is chosen. The search stops at its world count or at ``deadline`` on
the injected clock, whichever comes first, having always finished at least one world; with
``settle`` set it also stops once the leader is clear: ahead of every other action by more than
three standard errors of their paired per-world differences, after at least ``settle`` worlds.
A clear choice then costs a fraction of the budget, left for the close ones.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from spectacular_bid.bots.knowledge import Knowledge
from spectacular_bid.bots.playouts import playout
from spectacular_bid.bots.policies import Policy
from spectacular_bid.bots.worlds import sample_hidden, sample_opening, sample_world
from spectacular_bid.rules.actions import SeatAction

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Effort:
    """How hard one search works: worlds sampled, playouts per action in each, their policy."""

    worlds: int
    playouts: int
    policy: Policy
    settle: int | None = None


def is_settled(values: Sequence[Sequence[float]]) -> bool:
    """True when one action's per-world values beat every other's by over 3 standard errors
    of the paired differences (the same worlds, so the luck of a deal cancels out)."""
    worlds = len(values[0])
    if worlds < 2:
        return False
    best = max(range(len(values)), key=lambda i: sum(values[i]))
    for i, other in enumerate(values):
        if i == best:
            continue
        diffs = [b - o for b, o in zip(values[best], other, strict=True)]
        mean = sum(diffs) / worlds
        variance = sum((d - mean) ** 2 for d in diffs) / (worlds - 1)
        if mean <= 3 * math.sqrt(variance / worlds):
            return False
    return True


def best_action(
    k: Knowledge,
    legal: Sequence[SeatAction],
    rng: random.Random,
    effort: Effort,
    clock: Clock,
    deadline: float,
) -> SeatAction:
    """The legal action with the best mean playout value over sampled worlds."""
    seat = k.seat
    start = k.balances[seat]
    values: list[list[float]] = [[] for _ in legal]
    settle = effort.settle
    for worlds in range(1, effort.worlds + 1):
        world = sample_world(k, rng)
        seeds = [rng.random() for _ in range(effort.playouts)]
        for i, action in enumerate(legal):
            total = 0.0
            for seed in seeds:
                trial = world.copy()
                trial.apply(action)
                total += playout(trial, seat, start, effort.policy, random.Random(seed))
            values[i].append(total)
        if clock() >= deadline:
            break
        if settle is not None and worlds >= settle and worlds % 8 == 0 and is_settled(values):
            break
    best = max(range(len(legal)), key=lambda i: sum(values[i]))
    return legal[best]


def opening_values(
    k: Knowledge, rng: random.Random, effort: Effort, clock: Clock, deadline: float
) -> tuple[float, float]:
    """The seat's mean value of the round when it opens and when the other seat opens, with no
    payment yet (R6.3): what winning the auction is worth, from the same worlds."""
    seat = k.seat
    start = k.balances[seat]
    mine = theirs = 0.0
    count = 0
    for _ in range(effort.worlds):
        hidden = sample_hidden(k, rng)
        for _ in range(effort.playouts):
            seed = rng.random()
            own = sample_opening(k, seat, hidden)
            mine += playout(own, seat, start, effort.policy, random.Random(seed))
            other = sample_opening(k, seat.other, hidden)
            theirs += playout(other, seat, start, effort.policy, random.Random(seed))
            count += 1
        if clock() >= deadline:
            break
    return mine / count, theirs / count


__all__ = ["Clock", "Effort", "best_action", "is_settled", "opening_values"]
