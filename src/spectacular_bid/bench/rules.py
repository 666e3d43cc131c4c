"""``specbid bench rules``: complete random matches through the public engine API (BENCHMARKS.md
"bench rules").

Every legal action is chosen uniformly at random and every round is dealt from a fresh shuffle,
so the figures describe the real rules path: ``legal_actions`` then ``apply`` with its events.
Runs on one core; each repeat plays whole matches for ``seconds`` and the report gives medians.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from spectacular_bid.rules.actions import Deal
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.tiles import TILES


def play_random_match(rng: random.Random) -> tuple[int, int]:
    """Play one match to its end; return (rounds, actions)."""
    match = Match()
    deck = list(TILES)
    rounds = actions = 0
    awaiting = Phase.AWAITING_DEAL
    pick = rng.random
    while not match.is_over:
        if match.phase is awaiting:
            rng.shuffle(deck)
            match.apply(Deal(tuple(deck)))
            rounds += 1
            continue
        legal = match.legal_actions()
        match.apply(legal[int(pick() * len(legal))])
        actions += 1
    return rounds, actions


def measure(
    seconds: float, rng: random.Random, clock: Callable[[], float] = time.perf_counter
) -> dict[str, float]:
    """Random matches for ``seconds`` of ``clock`` (the wall clock; a thread's CPU time for a
    figure that whatever else runs on the machine does not lower, ``bench/capacity.py``)."""
    rounds = actions = matches = 0
    start = clock()
    deadline = start + seconds
    while True:
        r, a = play_random_match(rng)
        rounds += r
        actions += a
        matches += 1
        now = clock()
        if now >= deadline:
            break
    elapsed = now - start
    return {
        "rounds_per_s": rounds / elapsed,
        "actions_per_s": actions / elapsed,
        "matches_per_s": matches / elapsed,
        "rounds_per_match": rounds / matches,
        "actions_per_round": actions / rounds,
    }


def run(seconds: float = 2.0, repeats: int = 5, seed: int | None = None) -> dict[str, object]:
    """Repeat the measurement and report the median of each figure."""
    if seconds <= 0 or repeats < 1:
        raise ValueError(f"need seconds > 0 and repeats >= 1, got {seconds!r}, {repeats!r}")
    rng = random.Random(seed)
    runs = [measure(seconds, rng) for _ in range(repeats)]
    medians = {key: round(statistics.median(r[key] for r in runs), 1) for key in runs[0]}
    return {
        "benchmark": "rules",
        "repeats": repeats,
        "seconds_per_repeat": seconds,
        **medians,
        "rounds_per_s_min": round(min(r["rounds_per_s"] for r in runs), 1),
        "rounds_per_s_max": round(max(r["rounds_per_s"] for r in runs), 1),
        "target_rounds_per_s": 10_000,
    }
