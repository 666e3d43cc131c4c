"""The ``specbid`` command line: ``specbid board …``, ``specbid bench …``, ``specbid serve``,
``specbid replay`` and ``specbid schema``.

One subparser per subcommand, each handled by one small function that takes the parsed arguments
and returns the exit status. This package module holds the entry point and the parser table; each
subcommand's handler lives in the module named for it (:mod:`.board`, :mod:`.bench`,
:mod:`.serve`, :mod:`.replay`, :mod:`.schema`), so a new subcommand is one more parser here and one
more module.

Exit statuses (:mod:`.exit_status`): 0 when all went well; 1 when a check failed (a record that
does not verify, a database whose schema is not at head under ``--no-upgrade``); 2 for a usage
error (argparse) or for bad input: an illegal or malformed move given to ``specbid board``, a file
that is not a match record, a match that is not stored.
"""

from __future__ import annotations

import argparse
import codecs
import io
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from spectacular_bid.cli.bench import (
    PLACEMENTS,
    level_list,
    non_negative_float,
    non_negative_int,
    positive_int,
    positive_number,
    positive_seconds,
    run_bench_bots,
    run_bench_page,
    run_bench_rules,
    run_bench_server,
    run_bench_store,
    think_range,
)
from spectacular_bid.cli.board import describe_sequence, run_board
from spectacular_bid.cli.exit_status import EXIT_ERROR, EXIT_FAILED, EXIT_OK
from spectacular_bid.cli.replay import run_replay
from spectacular_bid.cli.schema import run_schema
from spectacular_bid.cli.serve import SERVE_FLAGS, run_serve

__all__ = [
    "EXIT_ERROR",
    "EXIT_FAILED",
    "EXIT_OK",
    "Handler",
    "build_parser",
    "describe_sequence",
    "main",
]

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree; each leaf parser sets ``handler`` to its function."""
    parser = argparse.ArgumentParser(
        prog="specbid",
        description="Spectacular Bid: a two-player Fives domino duel.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    board = commands.add_parser(
        "board",
        help="describe a board move by move (docs/RULES.md Appendix A)",
        description=(
            "Lay placements on one board and print the one-line description of docs/RULES.md "
            "Appendix A after each. Without MOVE arguments, read one sequence per line from "
            "standard input and print an empty line after each sequence. A bad move prints "
            "'error: MOVE: REASON', skips the rest of its sequence, and the exit status is 2."
        ),
        epilog="example: specbid board 1-4 1-1@1-4:smaller",
    )
    board.add_argument(
        "moves",
        nargs="*",
        metavar="MOVE",
        help="the opening tile (1-4), then TILE@AT:SIDE placements (1-1@1-4:smaller)",
    )
    board.set_defaults(handler=run_board)

    bench = commands.add_parser("bench", help="measure performance; prints one JSON line")
    targets = bench.add_subparsers(dest="target", required=True, metavar="TARGET")
    rules = targets.add_parser(
        "rules",
        help="random complete matches through the rules engine",
        description="Play random complete matches through the rules engine and report medians.",
    )
    rules.add_argument(
        "--seconds",
        type=positive_seconds,
        default=2.0,
        help="length of each repeat in seconds (default: 2.0)",
    )
    rules.add_argument(
        "--repeats", type=positive_int, default=5, help="number of repeats (default: 5)"
    )
    rules.add_argument(
        "--seed", type=int, default=None, help="seed of the random choices (default: random)"
    )
    rules.set_defaults(handler=run_bench_rules)

    store = targets.add_parser(
        "store",
        help="durable event appends through the storage port",
        description=(
            "Append events through the storage port on SQLite (and PostgreSQL when a URL is "
            "given) and report capacity and append-to-durable latency at 10,000 events/s."
        ),
    )
    store.add_argument(
        "--seconds", type=positive_seconds, default=3.0, help="length of each repeat (default: 3)"
    )
    store.add_argument(
        "--repeats", type=positive_int, default=5, help="number of repeats (default: 5)"
    )
    store.add_argument(
        "--sqlite-path", type=Path, default=None, help="scratch SQLite file (default: a temp one)"
    )
    store.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL"),
        help="PostgreSQL to measure too, in a scratch schema dropped afterwards "
        "(default: $DATABASE_URL)",
    )
    store.set_defaults(handler=run_bench_store)

    server = targets.add_parser(
        "server",
        help="concurrent live matches against a real server over loopback WebSockets",
        description=(
            "Start the server in its own process and drive N concurrent matches of random-legal "
            "clients (one spectator each) from this process; report throughput, latency, flag "
            "lateness, server CPU and peak RSS."
        ),
    )
    server.add_argument("--matches", type=positive_int, default=100, help="concurrent matches")
    server.add_argument(
        "--seconds", type=positive_seconds, default=20.0, help="measured window (default: 20)"
    )
    server.add_argument(
        "--think-ms",
        type=think_range,
        default=(1000, 5000),
        help="think time before each decision, MS or LOW-HIGH (default: 1000-5000; 0 saturates)",
    )
    server.add_argument(
        "--timeout-matches",
        type=non_negative_int,
        default=20,
        help="extra matches left to time out, to measure flag lateness (default: 20)",
    )
    server.add_argument(
        "--warmup-s",
        type=non_negative_float,
        default=5.0,
        help="play before the window opens; a soak waits for the steady state (default: 5)",
    )
    server.add_argument("--seed", type=int, default=1, help="seed of the clients' choices")
    server.add_argument(
        "--processes",
        type=positive_int,
        default=1,
        help="server processes on $DATABASE_URL relaying through $REDIS_URL, the clients "
        "spread over them (default: 1)",
    )
    server.add_argument(
        "--placement",
        choices=PLACEMENTS,
        default=PLACEMENTS[0],
        help="with several processes: 'apart' puts each match's second seat and spectator on "
        "another process than its owner, relayed; 'owner' puts every socket on the owner, "
        "nothing relayed, the ceiling that prices the relay (default: apart)",
    )
    server.set_defaults(handler=run_bench_server)

    bots = targets.add_parser(
        "bots",
        help="complete matches between the computer opponents' levels",
        description=(
            "Play complete matches between every pair of bot levels (each also against itself) "
            "on the rules engine, seats alternating, and report win rates with Wilson 95 %% "
            "intervals and each level's decision times."
        ),
    )
    bots.add_argument("--matches", type=positive_int, default=20, help="matches per pair")
    bots.add_argument("--seed", type=int, default=None, help="seed of deals and bots' choices")
    bots.add_argument(
        "--levels", type=level_list, default=(1, 2, 3, 4, 5), help="levels to pair (default: all)"
    )
    bots.add_argument(
        "--budget-scale",
        type=positive_seconds,
        default=1.0,
        help="factor on every level's thinking budget per decision (default: 1)",
    )
    bots.add_argument(
        "--jobs",
        type=positive_int,
        default=1,
        help="matches played at once in worker processes; no more than idle cores (default: 1)",
    )
    bots.add_argument(
        "--journal",
        type=Path,
        default=None,
        help="file of finished matches, one JSON line each: a run given it again plays only "
        "the matches it does not hold, so an interrupted table is finished, not restarted",
    )
    bots.set_defaults(handler=run_bench_bots)

    page = targets.add_parser(
        "page",
        help="the lobby and a match page in Chromium on a throttled network",
        description=(
            "Visit the lobby and a live match page in Debian's Chromium, first with an empty "
            "cache and again with it warm, on a network throttled through the DevTools "
            "Protocol, and report each visit's requests, bytes and time until the page answers "
            "input. Starts a server of its own unless given --url."
        ),
    )
    page.add_argument(
        "--url",
        default=None,
        help="a running server to measure, e.g. an older release's (default: start one)",
    )
    page.add_argument(
        "--repeats", type=positive_int, default=3, help="visits of each kind (default: 3)"
    )
    page.add_argument(
        "--latency-ms",
        type=non_negative_float,
        default=150.0,
        help="added to each request's round trip (default: 150)",
    )
    page.add_argument(
        "--down-kbps",
        type=positive_number,
        default=1600.0,
        help="download throughput in kbit/s (default: 1600)",
    )
    page.add_argument(
        "--up-kbps",
        type=positive_number,
        default=1600.0,
        help="upload throughput in kbit/s (default: 1600)",
    )
    page.add_argument(
        "--no-throttle", action="store_true", help="measure without throttling the network"
    )
    page.add_argument(
        "--chromium", default="/usr/bin/chromium", help="the browser (default: /usr/bin/chromium)"
    )
    page.set_defaults(handler=run_bench_page)

    serve = commands.add_parser(
        "serve",
        help="run the game server (HTTP API and WebSocket)",
        description=(
            "Run the game server under uvicorn. Every setting also reads a SPECBID_* "
            "environment variable (SPECBID_PORT, SPECBID_BANK_MS, ...); a flag overrides it."
        ),
    )
    for name, kind, text in SERVE_FLAGS:
        flag = "--" + name.replace("_", "-")
        serve.add_argument(flag, dest=name, type=kind, default=None, help=text)
    serve.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another browser origin allowed to open WebSockets (repeatable)",
    )
    serve.add_argument(
        "--data-dir",
        default=None,
        metavar="DIR",
        help="folder of the embedded SQLite database, created on first start "
        "(default: $SPECBID_DATA_DIR or ./data)",
    )
    serve.add_argument(
        "--no-upgrade",
        action="store_true",
        help="do not migrate the database at start: refuse to start unless its schema is at head",
    )
    serve.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug", "trace"],
        help="uvicorn's log level (default: info)",
    )
    serve.set_defaults(handler=run_serve)

    replay = commands.add_parser(
        "replay",
        help="print, verify or export an ended match's record",
        description=(
            "Print an ended match move by move: each version's command, the board description "
            "of docs/RULES.md Appendix A after each placement, the balances after each transfer, "
            "and the clock readings. TARGET is a record file (JSON, '-' for standard input) or "
            "a match id read from the database. --verify re-runs the record through the engine "
            "and checks every event, balance, clock, commitment and the result: exit 0 with an "
            "OK line, or 1 with the first discrepancy. --export writes the record document."
        ),
        epilog="examples: specbid replay --export ID -o match.json; specbid replay --verify "
        "match.json",
    )
    replay.add_argument("target", metavar="ID|FILE", help="a match id or a record file")
    mode = replay.add_mutually_exclusive_group()
    mode.add_argument("--verify", action="store_true", help="check the record; print one line")
    mode.add_argument("--export", action="store_true", help="write the record document")
    replay.add_argument(
        "-o", "--output", default=None, metavar="FILE", help="with --export: the file to write"
    )
    replay.add_argument(
        "--data-dir",
        default=None,
        metavar="DIR",
        help="folder of the embedded SQLite database (default: $SPECBID_DATA_DIR or ./data)",
    )
    replay.add_argument(
        "--database-url",
        default=None,
        metavar="URL",
        help="the database to read instead (default: $DATABASE_URL)",
    )
    replay.set_defaults(handler=run_replay)

    schema = commands.add_parser(
        "schema",
        help="print the JSON Schema of the WebSocket messages",
        description="Print the JSON Schema of the wire models (docs/protocol.schema.json).",
    )
    schema.add_argument("-o", "--output", default=None, help="write to this file instead")
    schema.set_defaults(handler=run_schema)
    return parser


def _use_utf8(stream: object, *, errors: str) -> None:
    """Make a real text stream UTF-8: descriptions hold "–" (U+2013, Appendix A), and a non-UTF-8
    locale would otherwise turn a correct answer into a UnicodeEncodeError traceback."""
    if isinstance(stream, io.TextIOWrapper) and codecs.lookup(stream.encoding).name != "utf-8":
        stream.reconfigure(encoding="utf-8", errors=errors)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``specbid`` console script; returns the exit status.

    Usage errors raise ``SystemExit(2)`` from argparse, as every argparse tool does.
    """
    _use_utf8(sys.stdout, errors="strict")
    _use_utf8(sys.stdin, errors="replace")
    args = build_parser().parse_args(argv)
    handler: Handler = args.handler
    return handler(args)
