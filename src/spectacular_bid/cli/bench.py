"""``specbid bench rules | store | server | bots | page``: the benchmarks' handlers and the argparse
types of their flags, which only they use.

Each handler prints one line of JSON so a script or CI job can parse and compare runs; the targets
themselves live in :mod:`spectacular_bid.bench`, not here.
"""

from __future__ import annotations

import argparse
import json
import math

from spectacular_bid.bench import bots as bench_bots
from spectacular_bid.bench import page as bench_page
from spectacular_bid.bench import rules as bench_rules
from spectacular_bid.bench import server as bench_server
from spectacular_bid.bench import store as bench_store
from spectacular_bid.bench.server_driver import Placement
from spectacular_bid.cli.exit_status import EXIT_OK


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds, got {text!r}")
    return value


def positive_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds greater than zero."""
    value = _seconds(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected seconds > 0, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    """An argparse type: a finite number of seconds, zero or more."""
    value = _seconds(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected seconds >= 0, got {text!r}")
    return value


def positive_number(text: str) -> float:
    """An argparse type: a finite number greater than zero (a rate, say)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value


def think_range(text: str) -> tuple[int, int]:
    """An argparse type: ``MS`` or ``LOW-HIGH`` in milliseconds, e.g. ``1000-5000`` or ``0``."""
    low_text, dash, high_text = text.partition("-")
    try:
        low = int(low_text)
        high = int(high_text) if dash else low
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MS or LOW-HIGH, got {text!r}") from None
    if not 0 <= low <= high:
        raise argparse.ArgumentTypeError(f"expected 0 <= LOW <= HIGH, got {text!r}")
    return low, high


def non_negative_int(text: str) -> int:
    """An argparse type: an integer of at least 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


def run_bench_rules(args: argparse.Namespace) -> int:
    """``specbid bench rules``: random complete matches through the engine, one JSON line."""
    result = bench_rules.run(seconds=args.seconds, repeats=args.repeats, seed=args.seed)
    print(json.dumps(result))
    return EXIT_OK


def level_list(text: str) -> tuple[int, ...]:
    """An argparse type: bot levels separated by commas, each 1 to 5, e.g. ``2,5``."""
    try:
        levels = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected levels like 2,5, got {text!r}") from None
    if not all(1 <= level <= 5 for level in levels):
        raise argparse.ArgumentTypeError(f"expected levels 1 to 5, got {text!r}")
    return levels


def run_bench_bots(args: argparse.Namespace) -> int:
    """``specbid bench bots``: complete matches between bot levels on the engine, one JSON line."""
    result = bench_bots.run(
        matches=args.matches,
        seed=args.seed,
        levels=args.levels,
        budget_scale=args.budget_scale,
        jobs=args.jobs,
        journal=args.journal,
    )
    print(json.dumps(result))
    return EXIT_OK


PLACEMENTS = [placement.value for placement in Placement]
"""The values of ``bench server --placement``, the default (``apart``) first."""


def run_bench_server(args: argparse.Namespace) -> int:
    """``specbid bench server``: live matches against a server in its own process (BENCHMARKS.md
    "bench server and bench store")."""
    result = bench_server.run(
        matches=args.matches,
        seconds=args.seconds,
        think_ms=args.think_ms,
        timeout_matches=args.timeout_matches,
        seed=args.seed,
        warmup_s=args.warmup_s,
        processes=args.processes,
        placement=Placement(args.placement),
    )
    print(json.dumps(result))
    return EXIT_OK


def run_bench_store(args: argparse.Namespace) -> int:
    """``specbid bench store``: event appends through the storage port (OPERATIONS.md "Storage"),
    one JSON line."""
    result = bench_store.run(
        seconds=args.seconds,
        repeats=args.repeats,
        sqlite_path=args.sqlite_path,
        database_url=args.database_url,
    )
    print(json.dumps(result))
    return EXIT_OK


def run_bench_page(args: argparse.Namespace) -> int:
    """``specbid bench page``: the lobby and a match page in Chromium, first and repeat visit."""
    throttle = None
    if not args.no_throttle:
        throttle = bench_page.Throttle(args.latency_ms, args.down_kbps, args.up_kbps)
    result = bench_page.run(
        url=args.url, repeats=args.repeats, throttle=throttle, chromium=args.chromium
    )
    print(json.dumps(result))
    return EXIT_OK
