"""The pool's pairing replayed against simulated arrival streams: how long players wait and how far
apart the ratings they are paired with are (service/pairing.py).

Simulated time only: arrivals are drawn from a seeded :class:`random.Random` (a Poisson stream
whose rate changes by phase), and :func:`~spectacular_bid.service.pairing.run_waves` is called at
each arrival, each departure and each wave it asks for, exactly as a server would call it. A
player who finds no partner within :data:`PATIENCE_MS` leaves (the lobby offers them the
computer after that long); their wait counts as that long, so leaving never flatters the median.

Each arrival blocks a few of the players already waiting, the block written on one side only
(either side), so both directions are exercised; a few arrive having abandoned their last pool
match. Guests are rated 1500 (a newcomer's rating), so the rating gaps reported are those of
rated pairs, where a gap measures something.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Any, Final

from spectacular_bid.service.pairing import Pairing, PairingParameters, PoolEntry, run_waves

PATIENCE_MS: Final = 60_000
TIME_CONTROL: Final = "2+0"
DEFAULTS: Final = PairingParameters()


@dataclass(frozen=True, slots=True)
class Stream:
    """An arrival stream: phases of ``(seconds, arrivals per second)``, repeated for
    ``duration_s``."""

    name: str
    phases: tuple[tuple[float, float], ...]
    duration_s: float = 1_800.0
    account_share: float = 0.8
    provisional_share: float = 0.15
    abandoner_share: float = 0.05
    block_chance: float = 0.03
    """The chance an arrival blocks each player already waiting."""

    def rate_at(self, t_s: float) -> float:
        cycle = sum(seconds for seconds, _ in self.phases)
        t_s %= cycle
        for seconds, rate in self.phases:
            if t_s < seconds:
                return rate
            t_s -= seconds
        return self.phases[-1][1]


STREAMS: Final = (
    Stream("steady", ((60.0, 3.0),)),
    Stream("bursty", ((20.0, 6.0), (100.0, 0.3))),
    Stream("sparse", ((60.0, 0.1),)),
)
"""``steady`` keeps about 20 players waiting, the figure the pool is judged at; ``bursty``
brings a crowd every two minutes and little between; ``sparse`` one player every 10 s."""


@dataclass(slots=True)
class Outcome:
    """What happened to one arrival."""

    entry: PoolEntry
    wait_ms: int | None = None
    paired_with: PoolEntry | None = None
    missed_waves: int = 0
    left: bool = False


def _arrivals(stream: Stream, rng: random.Random) -> list[PoolEntry]:
    """The stream's arrivals, by thinning a Poisson stream at the highest phase rate."""
    top = max(rate for _, rate in stream.phases)
    entries: list[PoolEntry] = []
    t_s = 0.0
    while True:
        t_s += rng.expovariate(top)
        if t_s >= stream.duration_s:
            return entries
        if rng.random() * top >= stream.rate_at(t_s):
            continue
        is_rated = rng.random() < stream.account_share
        if is_rated:
            rating = min(max(rng.gauss(1500, 300), 600), 2600)
            provisional = rng.random() < stream.provisional_share
            deviation = 350.0 if provisional else rng.uniform(45, 110)
        else:
            rating, deviation = 1500.0, 350.0
        entries.append(
            PoolEntry(
                f"p{len(entries)}",
                round(rating),
                deviation,
                is_rated,
                TIME_CONTROL,
                round(t_s * 1000),
                abandoned_last=rng.random() < stream.abandoner_share,
            )
        )


def simulate(stream: Stream, seed: int, parameters: PairingParameters = DEFAULTS) -> dict[str, Any]:
    """Replay ``stream`` against the pairing; the figures as a JSON-ready dict."""
    rng = random.Random(seed)
    arrivals = _arrivals(stream, rng)
    outcomes = {entry.player_id: Outcome(entry) for entry in arrivals}
    waiting: list[PoolEntry] = []
    blocks: set[frozenset[str]] = set()
    """Every block made, kept apart from the entries to check the pairs against."""
    last_wave_at_ms: dict[str, int] = {}
    pairs: list[Pairing] = []
    next_wave_at_ms: int | None = None
    waiting_area_ms = 0.0
    waves = 0
    now_ms = 0
    index = 0
    end_ms = round(stream.duration_s * 1000)
    while True:
        candidates = [end_ms]
        if index < len(arrivals):
            candidates.append(arrivals[index].entered_at_ms)
        if next_wave_at_ms is not None:
            candidates.append(next_wave_at_ms)
        if waiting:
            candidates.append(min(e.entered_at_ms for e in waiting) + PATIENCE_MS)
        at_ms = min(candidates)
        waiting_area_ms += len(waiting) * (at_ms - now_ms)
        now_ms = at_ms
        if now_ms >= end_ms:
            break
        # Who ran out of patience leaves; then who arrives now comes in.
        for entry in [e for e in waiting if e.entered_at_ms + PATIENCE_MS <= now_ms]:
            waiting.remove(entry)
            outcome = outcomes[entry.player_id]
            outcome.wait_ms, outcome.left, outcome.missed_waves = (
                PATIENCE_MS,
                True,
                entry.missed_waves,
            )
        while index < len(arrivals) and arrivals[index].entered_at_ms <= now_ms:
            waiting = _arrive(arrivals[index], waiting, stream, rng, blocks)
            index += 1
        result = run_waves(waiting, now_ms, last_wave_at_ms, parameters)
        for time_control in result.ran:
            last_wave_at_ms[time_control] = now_ms
            waves += 1
        for pair in result.pairs:
            pairs.append(pair)
            for me, other in ((pair.first, pair.second), (pair.second, pair.first)):
                outcome = outcomes[me.player_id]
                outcome.wait_ms = now_ms - me.entered_at_ms
                outcome.paired_with, outcome.missed_waves = other, me.missed_waves
        waiting = list(result.staying)
        next_wave_at_ms = result.next_wave_at_ms
    figures = _report(stream, seed, outcomes, pairs, waiting_area_ms / end_ms, waves, parameters)
    figures["blocks"] = len(blocks)
    figures["blocked_pairs"] = sum(
        frozenset((p.first.player_id, p.second.player_id)) in blocks for p in pairs
    )
    return figures


def _arrive(
    entry: PoolEntry,
    waiting: list[PoolEntry],
    stream: Stream,
    rng: random.Random,
    blocks: set[frozenset[str]],
) -> list[PoolEntry]:
    """``waiting`` with ``entry`` in it, after it blocks some of them or they block it (added
    to ``blocks``)."""
    blocked: set[str] = set()
    updated: list[PoolEntry] = []
    for other in waiting:
        if rng.random() < stream.block_chance:
            blocks.add(frozenset((entry.player_id, other.player_id)))
            if rng.random() < 0.5:
                blocked.add(other.player_id)
            else:
                other = replace(other, blocked=other.blocked | {entry.player_id})
        updated.append(other)
    updated.append(replace(entry, blocked=frozenset(blocked)))
    return updated


def _report(
    stream: Stream,
    seed: int,
    outcomes: dict[str, Outcome],
    pairs: list[Pairing],
    mean_waiting: float,
    waves: int,
    parameters: PairingParameters,
) -> dict[str, Any]:
    # Arrivals too close to the end to have found a partner or left are not counted.
    end_ms = round(stream.duration_s * 1000)
    settled = [o for o in outcomes.values() if o.entry.entered_at_ms + PATIENCE_MS <= end_ms]
    waits_s = [o.wait_ms / 1000 for o in settled if o.wait_ms is not None]
    rated_gaps = [pair.gap for pair in pairs if pair.first.is_rated]
    abandoner_pairs = [p for p in pairs if p.first.abandoned_last or p.second.abandoned_last]
    return {
        "stream": stream.name,
        "seed": seed,
        "arrivals": len(outcomes),
        "mean_waiting": round(mean_waiting, 1),
        "waves": waves,
        "pairs": len(pairs),
        "left_for_computer": sum(o.left for o in settled),
        "settled": len(settled),
        "median_wait_s": round(_percentile(waits_s, 50), 1),
        "p90_wait_s": round(_percentile(waits_s, 90), 1),
        "median_gap": round(_percentile(rated_gaps, 50), 1),
        "p90_gap": round(_percentile(rated_gaps, 90), 1),
        "abandoner_pairs_together": sum(
            p.first.abandoned_last and p.second.abandoned_last for p in abandoner_pairs
        ),
        "abandoner_pairs_mixed": sum(
            p.first.abandoned_last != p.second.abandoned_last for p in abandoner_pairs
        ),
        "abandoners_mixed_early": sum(
            p.first.abandoned_last != p.second.abandoned_last
            and min(e.missed_waves for e in (p.first, p.second) if e.abandoned_last)
            < parameters.abandoner_apart_waves
            for p in abandoner_pairs
        ),
    }


def _percentile(values: list[float], percent: float) -> float:
    """The nearest-rank percentile; NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(math.ceil(percent / 100 * len(ordered)) - 1, 0)]


def run(seed: int = 1, parameters: PairingParameters = DEFAULTS) -> dict[str, Any]:
    """Every stream of :data:`STREAMS`, for ``specbid bench pool``."""
    return {
        "parameters": {
            name: getattr(parameters, name) for name in PairingParameters.__dataclass_fields__
        },
        "patience_ms": PATIENCE_MS,
        "streams": [simulate(stream, seed, parameters) for stream in STREAMS],
    }
