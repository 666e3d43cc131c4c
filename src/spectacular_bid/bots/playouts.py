"""Playing a world to the end of its round and scoring the outcome for one seat.

The value of a finished playout is the seat's balance change over the rest of the round (every
award, payment and block settlement is a transfer, R1.2), plus a bonus for winning the match
(R1.5: a balance at zero ends it, which points alone undervalue), and a small one for becoming
the next auction's jockey (R4.5, R6.4: its own winning bid is 15 cheaper). The win bonus
shrinks by a point per action the playout needed: a win now is surer than one a playout policy
only reached later, so the search does not put off a winning placement.
"""

from __future__ import annotations

import random
from typing import Final

from spectacular_bid.bots.policies import Policy
from spectacular_bid.rules.match import Match
from spectacular_bid.rules.phase import ACTIVE
from spectacular_bid.rules.seats import Seat

WIN_BONUS: Final = 150
"""Half the points in play (R1.2): winning is worth more than any single transfer."""
JOCKEY_VALUE: Final = 5


def outcome(match: Match, seat: Seat, start_balance: int, actions: int = 0) -> float:
    """The value to ``seat`` of a match whose round (or the whole match) has ended, ``actions``
    after the decision."""
    value = float(match.balances[seat] - start_balance)
    result = match.result
    if result is not None:
        bonus = WIN_BONUS - actions
        return value + (bonus if result.winner == seat else -bonus)
    if match.jockey is not None:
        value += JOCKEY_VALUE if match.jockey == seat else -JOCKEY_VALUE
    return value


def playout(
    match: Match, seat: Seat, start_balance: int, policy: Policy, rng: random.Random
) -> float:
    """Play ``match`` (changed in place) to the end of its round under ``policy``."""
    active = ACTIVE
    actions = 0
    while match.phase in active:
        legal = match.legal_actions()
        match.apply(policy(match, legal, rng))
        actions += 1
    return outcome(match, seat, start_balance, actions)


__all__ = ["JOCKEY_VALUE", "WIN_BONUS", "outcome", "playout"]
