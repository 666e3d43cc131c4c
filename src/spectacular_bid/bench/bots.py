"""``specbid bench bots``: complete matches between the bot levels on the pure engine.

Every pair of levels plays ``matches`` matches (each level also plays itself), seats alternating
between matches, every round dealt from a fresh seeded shuffle. Each bot is given only its own
seat's view of every event (:func:`~spectacular_bid.rules.views.event_for`) and a budget in
seconds, and its decisions are timed. With no clock in play (R7.7 needs a service) and no resign,
every match ends with a winner (R1.5). Win rates come with a Wilson 95 % interval.

The full table takes hours, so a run can keep a journal: one JSON line per finished match, written
as it finishes. A run given the same journal replays nothing it already holds and plays only the
rest, so a table interrupted (a session's end, a reboot) is finished later rather than restarted.
Each line names the code that played it (a digest of the engine and the bots): a changed level
starts its table afresh.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import multiprocessing
import random
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import astuple, dataclass
from pathlib import Path

from spectacular_bid import bots as bots_package
from spectacular_bid import rules as rules_package
from spectacular_bid.bots import BUDGET_S, decide
from spectacular_bid.rules.actions import Deal, Event
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.seats import SEATS, BySeat, Seat
from spectacular_bid.rules.tiles import TILES
from spectacular_bid.rules.views import event_for


@dataclass
class Timings:
    """One level's decision times: how many, their sum and the longest, in seconds (one-action
    decisions are instant and counted). Sums, not lists: a journal line stays short."""

    count: int = 0
    total_s: float = 0.0
    max_s: float = 0.0

    def add(self, seconds: float) -> None:
        self.count += 1
        self.total_s += seconds
        self.max_s = max(self.max_s, seconds)

    def merge(self, other: Timings) -> None:
        self.count += other.count
        self.total_s += other.total_s
        self.max_s = max(self.max_s, other.max_s)

    def report(self) -> dict[str, float | int]:
        mean = self.total_s / self.count if self.count else 0.0
        return {
            "mean_decision_ms": round(mean * 1000, 2),
            "max_decision_ms": round(self.max_s * 1000, 2),
            "decisions": self.count,
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
            timings[levels[seat]].add(clock() - start)
            events = match.apply(action)
        for viewer in SEATS:
            seen[viewer].extend(event_for(viewer, e) for e in events)
    winner = match.result.winner if match.result is not None else None
    if winner is None:
        raise ValueError(f"a bench match ended with no winner: {match.result!r}")
    return winner


@dataclass(frozen=True)
class Game:
    """One match of the table: the pair, which seat ``a`` holds, and its own seed, so that its
    deals and choices do not depend on which process plays it, or when."""

    a: int
    b: int
    a_seat: Seat
    seed: int
    budget_scale: float


Outcome = tuple[bool, dict[int, Timings]]


def play_game(game: Game) -> Outcome:
    """Whether ``a`` won, and each level's decision times (in a worker of ``--jobs``)."""
    by_seat = BySeat(game.a, game.b) if game.a_seat is Seat.FIRST else BySeat(game.b, game.a)
    budgets = by_seat.map(lambda lv: BUDGET_S[lv] * game.budget_scale)
    timings = {lv: Timings() for lv in {game.a, game.b}}
    winner = play_match(by_seat, random.Random(game.seed), budgets, timings)
    return winner is game.a_seat, timings


def run(
    matches: int = 20,
    seed: int | None = None,
    levels: Sequence[int] = (1, 2, 3, 4, 5),
    budget_scale: float = 1.0,
    jobs: int = 1,
    journal: Path | None = None,
) -> dict[str, object]:
    """Every pair of ``levels`` (and each against itself) over ``matches`` matches, ``jobs``
    at a time in worker processes; in each pair ``a`` is the higher level, so ``win_rate``
    reads as how often it beat ``b``. Budgets are wall time: give no more jobs than idle
    cores, or every searching level plays weaker. With ``journal``, matches it already holds
    are taken from it and each new one is appended as it finishes."""
    if matches < 1 or budget_scale <= 0 or jobs < 1:
        raise ValueError(
            f"need matches >= 1, budget_scale > 0 and jobs >= 1, got {matches!r}, "
            f"{budget_scale!r}, {jobs!r}"
        )
    unknown = [lv for lv in levels if lv not in BUDGET_S]
    if unknown or not levels:
        raise ValueError(f"levels are 1 to 5, got {list(levels)!r}")
    rng = random.Random(seed)
    chosen = sorted(set(levels), reverse=True)
    pairs = list(itertools.combinations_with_replacement(chosen, 2))
    games = [
        Game(a, b, SEATS[n % 2], rng.getrandbits(64), budget_scale)
        for a, b in pairs
        for n in range(matches)
    ]
    code = code_fingerprint()
    done: dict[Game, Outcome] = {}
    if journal is not None:
        done = read_journal(journal, code)
        _end_cut_line(journal)
    outcomes = {game: done[game] for game in games if game in done}
    resumed = len(outcomes)
    pending = sorted((game for game in games if game not in done), key=_play_first)
    for game, outcome in _play(pending, jobs):
        outcomes[game] = outcome
        if journal is not None:
            _append(journal, code, game, outcome)
    timings = {lv: Timings() for lv in chosen}
    wins = dict.fromkeys(pairs, 0)
    for game in games:
        a_won, taken = outcomes[game]
        wins[game.a, game.b] += a_won
        for lv, their in taken.items():
            timings[lv].merge(their)
    return {
        "benchmark": "bots",
        "seed": seed,
        "budget_scale": budget_scale,
        "jobs": jobs,
        "resumed": resumed,
        "code": code,
        "budget_s": {str(lv): BUDGET_S[lv] * budget_scale for lv in chosen},
        "pairs": [_pair(a, b, wins[a, b], matches) for a, b in pairs],
        "levels": {str(lv): timings[lv].report() for lv in chosen},
    }


def _play_first(game: Game) -> int:
    """The order the pending matches are played in (not their seeds): first the pairs the
    targets read (each level against the one below, level 5 against greedy level 2), then the
    other pairs, each level against itself last, so an interrupted run has told most."""
    if game.a - game.b == 1 or (game.a, game.b) == (5, 2):
        return 0
    return 1 if game.a != game.b else 2


def _play(games: list[Game], jobs: int) -> Iterator[tuple[Game, Outcome]]:
    """Each game with its outcome as it finishes (in order of finishing with ``jobs`` > 1)."""
    if jobs == 1:
        for game in games:
            yield game, play_game(game)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        futures = {pool.submit(play_game, game): game for game in games}
        for future in as_completed(futures):
            yield futures[future], future.result()


def code_fingerprint() -> str:
    """A digest of the engine's and the bots' source: a journal's matches count only for the
    code that played them, so a table is never a mix of two versions of a level."""
    digest = hashlib.sha256()
    for package in (rules_package, bots_package):
        folder = Path(package.__file__ or "").parent
        for source in sorted(folder.glob("*.py")):
            digest.update(source.name.encode())
            digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def read_journal(path: Path, code: str) -> dict[Game, Outcome]:
    """The matches a journal holds that ``code`` played. A missing file holds none; a line cut
    short by a crash while it was written, or not of this form, is skipped (that match is
    played again)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return {}
    done: dict[Game, Outcome] = {}
    for line in lines:
        try:
            entry = json.loads(line)
            if entry["code"] != code:
                continue
            a, b, seat, seed, scale = entry["game"]
            game = Game(int(a), int(b), Seat(seat), int(seed), float(scale))
            timings = {
                int(lv): Timings(int(count), float(total), float(top))
                for lv, (count, total, top) in entry["timings"].items()
            }
            done[game] = (bool(entry["a_won"]), timings)
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
    return done


def _end_cut_line(path: Path) -> None:
    """End a line a crash cut short, so the next match's line is not glued to it."""
    try:
        with path.open("rb") as journal:
            journal.seek(0, 2)
            if journal.tell() == 0:
                return
            journal.seek(-1, 2)
            if journal.read(1) == b"\n":
                return
    except FileNotFoundError:
        return
    with path.open("a", encoding="utf-8") as out:
        out.write("\n")


def _append(path: Path, code: str, game: Game, outcome: Outcome) -> None:
    a_won, timings = outcome
    fields = list(astuple(game))
    fields[2] = game.a_seat.value
    entry = {
        "game": fields,
        "code": code,
        "a_won": a_won,
        "timings": {lv: [t.count, t.total_s, t.max_s] for lv, t in timings.items()},
    }
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")


def _pair(a: int, b: int, wins: int, matches: int) -> dict[str, object]:
    lo, hi = wilson(wins, matches)
    return {
        "a": a,
        "b": b,
        "matches": matches,
        "a_wins": wins,
        "win_rate": round(wins / matches, 3),
        "ci95": [round(lo, 3), round(hi, 3)],
    }
