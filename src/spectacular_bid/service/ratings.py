"""Glicko-2 ratings on whole-match results, as a pure calculation (PROTOCOL.md, "Players:
profiles, ratings and archives").

Mark E. Glickman, "Example of the Glicko-2 system" (2013): a rating ``r``, its deviation ``RD``
and a volatility ``σ``, on the Glicko scale outside and on the Glicko-2 scale (``μ``, ``φ``,
divided by :data:`SCALE`) inside. Each rated match is a rating period of one game for each of its
players; the time since a player's last rated match counts as idle periods (:func:`aged`), during
which only the deviation grows, as step 6 of the paper does for a period without games.

Two caps are our departure from the paper, which has neither:

- A deviation never exceeds :data:`MAX_DEVIATION`, a newcomer's. The paper gives an unrated
  player 350 but lets idle periods grow a deviation without bound; a player away for years would
  then be less known than one who never played, and their first result would swing further than
  a newcomer's. Glickman's earlier Glicko system caps the deviation at 350 the same way.
- Playing never makes a deviation larger than it was before the match. The paper's steps 6 and 7
  can: against a very uncertain opponent ``v`` is large, so ``φ'`` is close to
  ``φ* = √(φ² + σ'²)``, above ``φ``. A result is information about the player, and a rating
  shown as less certain, or provisional again, for having been played would tell them the
  opposite.

No I/O, no clock: the service passes the ratings and the number of idle periods.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

SCALE: Final = 173.7178
"""Glicko-2's ratio between the Glicko scale and its own (the paper's step 2)."""
START_VALUE: Final = 1500.0
MAX_DEVIATION: Final = 350.0
"""A newcomer's deviation, and the most any rating has."""
START_VOLATILITY: Final = 0.06
TAU: Final = 0.5
"""The system constant: how much the volatility may change in a period. The paper suggests 0.3
to 1.2; 0.5 is its example's, and lichess's."""
PROVISIONAL_DEVIATION: Final = 110.0
"""A rating whose deviation is above this is provisional (shown as ``1500?``)."""
RATING_PERIOD_MS: Final = 24 * 3600 * 1000
"""One idle period: a day without a rated match grows the deviation by one step."""
_CONVERGENCE: Final = 0.000001
"""The paper's ε for the volatility's iteration (step 5)."""


@dataclass(frozen=True, slots=True)
class Rating:
    value: float = START_VALUE
    deviation: float = MAX_DEVIATION
    volatility: float = START_VOLATILITY

    @property
    def is_provisional(self) -> bool:
        return self.deviation > PROVISIONAL_DEVIATION


@dataclass(frozen=True, slots=True)
class Game:
    """One result against one opponent, whose rating is the one from before the match."""

    opponent: Rating
    score: float
    """1 for a win, 0 for a loss (0.5 for a draw, which this game's matches do not have)."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.score <= 1.0:
            raise ValueError(f"a game's score is between 0 and 1, not {self.score!r}")


def aged(rating: Rating, periods: float) -> Rating:
    """``rating`` after ``periods`` rating periods without a game (step 6 alone, repeated)."""
    if periods < 0:
        raise ValueError(f"periods must be >= 0, got {periods!r}")
    phi = rating.deviation / SCALE
    grown = math.sqrt(phi * phi + periods * rating.volatility**2) * SCALE
    return Rating(rating.value, min(grown, MAX_DEVIATION), rating.volatility)


def updated(rating: Rating, games: Sequence[Game], tau: float = TAU) -> Rating:
    """``rating`` after one rating period with ``games`` (the paper's steps 2 to 8)."""
    if not games:
        return aged(rating, 1)
    mu = (rating.value - START_VALUE) / SCALE
    phi = rating.deviation / SCALE
    terms = [_term(mu, game) for game in games]
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in terms)
    improvement = sum(g * (s - e) for g, e, s in terms)
    delta = v * improvement
    sigma = _new_volatility(phi, rating.volatility, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    deviation = min(new_phi * SCALE, rating.deviation, MAX_DEVIATION)
    return Rating(new_mu * SCALE + START_VALUE, deviation, sigma)


def _term(mu: float, game: Game) -> tuple[float, float, float]:
    """``g(φj)``, ``E(μ, μj, φj)`` and the score, for steps 3 and 4."""
    mu_j = (game.opponent.value - START_VALUE) / SCALE
    phi_j = game.opponent.deviation / SCALE
    g = 1.0 / math.sqrt(1.0 + 3.0 * phi_j * phi_j / (math.pi * math.pi))
    e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
    return g, e, game.score


def _new_volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the root of ``f`` by the Illinois algorithm, as the paper gives it."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        spread = phi * phi + v + ex
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * spread * spread) - (x - a) / (
            tau * tau
        )

    low = a
    if delta * delta > phi * phi + v:
        high = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > _CONVERGENCE:
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = c, f_c
    return math.exp(low / 2.0)
