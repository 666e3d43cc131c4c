"""Glicko-2 written apart from ``spectacular_bid.service.ratings``, for the tests to check the
server's ratings against: Mark E. Glickman, "Example of the Glicko-2 system" (2013), steps 2 to 8,
with τ = 0.5 and the two caps the protocol states (a deviation never above 350, and never larger
after a match than before it). ``tests/web`` and ``tests/live`` both use it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

SCALE = 173.7178
TAU = 0.5
EPSILON = 0.000001


class Glicko(NamedTuple):
    value: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


NEWCOMER = Glicko()


def glicko2(player: Glicko, games: Sequence[tuple[Glicko, float]]) -> Glicko:
    """``player`` after one rating period with ``games`` (each an opponent's rating before the
    period and the score, 1 for a win and 0 for a loss)."""
    mu, phi = (player.value - 1500) / SCALE, player.deviation / SCALE
    gs, es, scores = [], [], []
    for opponent, score in games:
        mu_j, phi_j = (opponent.value - 1500) / SCALE, opponent.deviation / SCALE
        g = 1 / math.sqrt(1 + 3 * phi_j**2 / math.pi**2)
        gs.append(g)
        es.append(1 / (1 + math.exp(-g * (mu - mu_j))))
        scores.append(score)
    v = 1 / sum(g**2 * e * (1 - e) for g, e in zip(gs, es, strict=True))
    gain = sum(g * (s - e) for g, e, s in zip(gs, es, scores, strict=True))
    delta = v * gain
    sigma = _volatility(phi, player.volatility, v, delta)
    phi_star = math.sqrt(phi**2 + sigma**2)
    phi_new = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    mu_new = mu + phi_new**2 * gain
    deviation = min(SCALE * phi_new, player.deviation, 350.0)
    return Glicko(1500 + SCALE * mu_new, deviation, sigma)


def _volatility(phi: float, sigma: float, v: float, delta: float) -> float:
    """Step 5, the Illinois iteration, as the paper writes it."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / TAU**2

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        big_b = a - k * TAU
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = c, fc
    return math.exp(big_a / 2)


def one_match(winner: Glicko, loser: Glicko) -> tuple[Glicko, Glicko]:
    """Both players after one rated match, each rated against the other's rating before it."""
    return glicko2(winner, [(loser, 1.0)]), glicko2(loser, [(winner, 0.0)])
