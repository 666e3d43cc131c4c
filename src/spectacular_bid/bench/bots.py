"""``specbid bench bots``: complete matches between the bot levels on the pure engine.

Every pair of levels plays ``matches`` matches (each level also plays itself), seats alternating
between matches, every round dealt from a fresh seeded shuffle. Each bot is given only its own
seat's view of every event (:func:`~spectacular_bid.rules.views.event_for`) and a budget in
seconds, and its decisions are timed. With no clock in play (R7.7 needs a service) and no resign,
every match ends with a winner (R1.5). Win rates come with a Wilson 95 % interval.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from spectacular_bid.bots import BUDGET_S, decide
from spectacular_bid.rules.actions import Deal, Event
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.seats import SEATS, BySeat, Seat
from spectacular_bid.rules.tiles import TILES
from spectacular_bid.rules.views import event_for


@dataclass
class Timings:
    """One level's decision times in seconds; one-action decisions are instant and counted."""

    seconds: list[float] = field(default_factory=list)

    def report(self) -> dict[str, float | int]:
        count = len(self.seconds)
        mean = sum(self.seconds) / count if count else 0.0
        top = max(self.seconds, default=0.0)
        return {
            "mean_decision_ms": round(mean * 1000, 2),
            "max_decision_ms": round(top * 1000, 2),
            "decisions": count,
        }


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (z = 1.96: 95 %)."""
    if n <= 0:
        raise ValueError(f"a win rate needs matches, not {n!r}")
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_match(
    levels: BySeat[int],
    rng: random.Random,
    budgets: BySeat[float],
    timings: dict[int, Timings],
) -> Seat:
    """One complete match; return the winner. Each seat's bot sees only its own view."""
    match = Match()
    seen: tuple[list[Event], list[Event]] = ([], [])
    deck = list(TILES)
    clock = time.perf_counter
    while not match.is_over:
        if match.phase is Phase.AWAITING_DEAL:
            rng.shuffle(deck)
            events = match.apply(Deal(tuple(deck)))
        else:
            seat = match.to_act
            assert seat is not None
            start = clock()
            action = decide(
                levels[seat], seat, seen[seat], rng, clock=clock, budget_s=budgets[seat]
            )
            timings[levels[seat]].seconds.append(clock() - start)
            events = match.apply(action)
        for viewer in SEATS:
            seen[viewer].extend(event_for(viewer, e) for e in events)
    winner = match.result.winner if match.result is not None else None
    if winner is None:
        raise ValueError(f"a bench match ended with no winner: {match.result!r}")
    return winner


def run(
    matches: int = 20,
    seed: int | None = None,
    levels: Sequence[int] = (1, 2, 3, 4, 5),
    budget_scale: float = 1.0,
) -> dict[str, object]:
    """Every pair of ``levels`` (and each against itself) over ``matches`` matches; in each
    pair ``a`` is the higher level, so ``win_rate`` reads as how often it beat ``b``."""
    if matches < 1 or budget_scale <= 0:
        raise ValueError(
            f"need matches >= 1 and budget_scale > 0, got {matches!r}, {budget_scale!r}"
        )
    unknown = [lv for lv in levels if lv not in BUDGET_S]
    if unknown or not levels:
        raise ValueError(f"levels are 1 to 5, got {list(levels)!r}")
    rng = random.Random(seed)
    chosen = sorted(set(levels), reverse=True)
    timings = {lv: Timings() for lv in chosen}
    pairs = []
    for a, b in itertools.combinations_with_replacement(chosen, 2):
        wins = 0
        for n in range(matches):
            a_seat = SEATS[n % 2]
            by_seat = BySeat(a, b) if a_seat is Seat.FIRST else BySeat(b, a)
            budgets = by_seat.map(lambda lv: BUDGET_S[lv] * budget_scale)
            wins += play_match(by_seat, rng, budgets, timings) is a_seat
        lo, hi = wilson(wins, matches)
        pairs.append(
            {
                "a": a,
                "b": b,
                "matches": matches,
                "a_wins": wins,
                "win_rate": round(wins / matches, 3),
                "ci95": [round(lo, 3), round(hi, 3)],
            }
        )
    return {
        "benchmark": "bots",
        "seed": seed,
        "budget_scale": budget_scale,
        "budget_s": {str(lv): BUDGET_S[lv] * budget_scale for lv in chosen},
        "pairs": pairs,
        "levels": {str(lv): timings[lv].report() for lv in chosen},
    }
