"""The ``specbid`` command line: ``specbid board …``, ``specbid bench …``, ``specbid serve``,
``specbid replay`` and ``specbid schema``.

One subparser per subcommand, each handled by one small function that takes the parsed arguments
and returns the exit status, so ``serve``, ``replay``, ``bench server`` and ``bench store`` slot in
later as one more parser and one more function each.

Exit statuses: 0 when all went well; 1 when a check failed (a record that does not verify, a
database whose schema is not at head under ``--no-upgrade``); 2 for a usage error (argparse) or
for bad input: an illegal or malformed move given to ``specbid board``, a file that is not a
match record, a match that is not stored.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import io
import json
import math
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from spectacular_bid.bench import rules as bench_rules
from spectacular_bid.bench import server as bench_server
from spectacular_bid.bench import store as bench_store
from spectacular_bid.rules.board import Board
from spectacular_bid.rules.errors import RulesError
from spectacular_bid.store.engine import default_sqlite_url

EXIT_OK = 0
EXIT_FAILED = 1
"""A check failed: ``replay --verify`` found a discrepancy, ``serve --no-upgrade`` refused."""
EXIT_ERROR = 2
"""Matches argparse's own usage-error status, so a script sees one "bad input" code."""

Handler = Callable[[argparse.Namespace], int]


# -- board ------------------------------------------------------------------------------------


def describe_sequence(moves: Iterable[str]) -> bool:
    """Lay ``moves`` on one fresh board and print the Appendix A description after each.

    A move the engine refuses prints ``error: <move>: <reason>`` instead, and the rest of the
    sequence is skipped: the board no longer shows the position the later moves were written for.
    Return whether every move was laid.
    """
    board = Board()
    for move in moves:
        try:
            board.push_notation(move)
        except (RulesError, ValueError) as exc:
            # RulesError is the engine's contract (R8.3). Any other ValueError is an engine bug
            # in parsing odd input; it is still a refused move here, never a traceback.
            print(f"error: {move}: {exc}")
            return False
        print(board.describe())
    return True


def run_board(args: argparse.Namespace) -> int:
    """``specbid board [MOVE …]``: the board description of Appendix A, move by move.

    With moves on the command line they form one sequence. Without, each non-blank line of
    standard input is a sequence (moves separated by spaces), and each sequence's output ends
    with one empty line so the blocks stay apart. A bad move does not stop later sequences; the
    exit status reports it at the end.
    """
    moves: list[str] = args.moves
    if moves:
        return EXIT_OK if describe_sequence(moves) else EXIT_ERROR
    all_ok = True
    for line in sys.stdin:
        sequence = line.split()
        if not sequence:
            continue
        all_ok = describe_sequence(sequence) and all_ok
        print()
    return EXIT_OK if all_ok else EXIT_ERROR


# -- bench ------------------------------------------------------------------------------------


def positive_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds greater than zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected seconds > 0, got {text!r}")
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


def run_bench_rules(args: argparse.Namespace) -> int:
    """``specbid bench rules``: random complete matches through the engine, one JSON line.

    One line of JSON so a script or CI job can parse and compare runs; the targets themselves
    live in the benchmark, not here.
    """
    result = bench_rules.run(seconds=args.seconds, repeats=args.repeats, seed=args.seed)
    print(json.dumps(result))
    return EXIT_OK


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


def run_bench_server(args: argparse.Namespace) -> int:
    """``specbid bench server``: live matches against a server in its own process (issue 3)."""
    result = bench_server.run(
        matches=args.matches,
        seconds=args.seconds,
        think_ms=args.think_ms,
        timeout_matches=args.timeout_matches,
        seed=args.seed,
    )
    print(json.dumps(result))
    return EXIT_OK


def run_bench_store(args: argparse.Namespace) -> int:
    """``specbid bench store``: event appends through the storage port (issue 4), one JSON line."""
    result = bench_store.run(
        seconds=args.seconds,
        repeats=args.repeats,
        sqlite_path=args.sqlite_path,
        database_url=args.database_url,
    )
    print(json.dumps(result))
    return EXIT_OK


# -- serve ------------------------------------------------------------------------------------

SERVE_FLAGS = (
    ("host", str, "interface to listen on"),
    ("port", int, "TCP port"),
    ("bank_ms", int, "each seat's bank for the whole match, ms (R7.1)"),
    ("delay_ms", int, "the delay of each new decision, ms (R7.2)"),
    ("grace_ms", int, "a round deals this long after its settlement anyway, ms (D3)"),
    ("join_timeout_ms", int, "a match not joined by then is aborted, ms (D3)"),
    ("lag_threshold_ms", int, "an event-loop stall that aborts running matches, ms (D5)"),
    ("rate_limit_per_s", float, "messages per second allowed per socket"),
    ("rate_burst", int, "messages allowed in a burst per socket"),
    ("fixed_deck_seed", int, "TEST ONLY: deal predictable decks from this seed"),
    ("database_url", str, "a database URL, e.g. postgresql://user@host/db (or $DATABASE_URL)"),
    ("finished_ttl_ms", int, "a finished match stays in memory this long, ms"),
)
"""``specbid serve`` flags, each overriding its ``SPECBID_*`` environment variable."""


def run_serve(args: argparse.Namespace) -> int:
    """``specbid serve``: the game server under uvicorn.

    Settings come from ``SPECBID_*`` environment variables, then from flags. The web stack is
    imported here, not at the top, so ``specbid board`` stays quick to start.
    """
    import uvicorn
    from pydantic import ValidationError

    from spectacular_bid.store.migrate import SchemaNotAtHeadError
    from spectacular_bid.web.app import check_database, create_app
    from spectacular_bid.web.settings import WebSettings

    overrides: dict[str, object] = {
        name: value for name, _, _ in SERVE_FLAGS if (value := getattr(args, name)) is not None
    }
    if args.allowed_origin:
        overrides["allowed_origins"] = args.allowed_origin
    if args.data_dir is not None and args.database_url is None:
        # An explicit folder means its SQLite file, whatever $DATABASE_URL says.
        overrides["database_url"] = default_sqlite_url(args.data_dir)
    if args.no_upgrade:
        overrides["upgrade"] = False
    try:
        settings = WebSettings(**overrides)  # type: ignore[arg-type]
        app = create_app(settings, freeze_startup_objects=True)
    except (ValidationError, ValueError) as exc:
        print(f"error: invalid settings: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if not settings.upgrade:
        # Refuse before the server starts, with the reason and what to run.
        try:
            asyncio.run(check_database(settings))
        except SchemaNotAtHeadError as exc:
            print(f"error: refusing to start: {exc}", file=sys.stderr)
            return EXIT_FAILED
        except (OSError, SQLAlchemyError) as exc:
            print(f"error: cannot open the database: {exc}", file=sys.stderr)
            return EXIT_FAILED
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        # websockets-sansio is uvicorn's successor to its deprecated "websockets" protocol.
        ws="websockets-sansio",
        ws_max_size=settings.max_message_bytes,
        ws_per_message_deflate=False,  # compression costs memory and CPU per socket (issue 3 §8)
        http="httptools",
        loop="uvloop",
        lifespan="on",
        log_level=args.log_level,
    )
    return EXIT_OK


# -- replay -----------------------------------------------------------------------------------


def run_replay(args: argparse.Namespace) -> int:
    """``specbid replay ID|FILE``: a match move by move; ``--verify`` re-runs it through the
    engine and checks it; ``--export`` writes its record document."""
    from spectacular_bid.service.records import RecordFormatError, parse_document
    from spectacular_bid.service.replay import RecordMismatchError, describe, verify

    try:
        data = _load_record(args.target, args.data_dir, args.database_url)
    except _InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if args.export:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
        if args.output in (None, "-"):
            sys.stdout.write(text)
        else:
            Path(args.output).write_text(text, encoding="utf-8")
        return EXIT_OK
    try:
        document = parse_document(data)
    except RecordFormatError as exc:
        print(f"error: {args.target}: not a match record: {exc}", file=sys.stderr)
        return EXIT_ERROR
    try:
        if args.verify:
            verified = verify(document)
            ending = f"{verified.winner} wins" if verified.winner else "no result"
            print(
                f"OK {verified.match_id}: {verified.versions} versions, {verified.rounds} rounds; "
                f"every event, balance, clock, commitment and the result ({ending}, "
                f"{verified.reason}) agree"
            )
            return EXIT_OK
        for line in describe(document):
            print(line)
    except RecordMismatchError as exc:
        label = "FAILED" if args.verify else "error: the record stops replaying:"
        print(f"{label} {document.id}: {exc}")
        return EXIT_FAILED
    return EXIT_OK


class _InputError(Exception):
    """A record that cannot be read: a missing or non-JSON file, an unknown match."""


def _load_record(target: str, data_dir: str | None, url: str | None) -> object:
    """A record document from a JSON file, or from the store when ``target`` is no file."""
    path = Path(target)
    if path.is_file() or target == "-" or target.endswith(".json"):
        try:
            text = sys.stdin.read() if target == "-" else path.read_text(encoding="utf-8")
            return json.loads(text)
        except (OSError, UnicodeDecodeError) as exc:
            raise _InputError(f"cannot read {target}: {exc}") from None
        except ValueError as exc:
            raise _InputError(f"{target} is not JSON: {exc}") from None
    return asyncio.run(_stored_record(target, data_dir, url))


async def _stored_record(match_id: str, data_dir: str | None, url: str | None) -> object:
    from spectacular_bid.service.intents import Rejection
    from spectacular_bid.service.records import read_document
    from spectacular_bid.store.engine import resolve_url, sqlite_path
    from spectacular_bid.store.migrate import SchemaNotAtHeadError, require_head
    from spectacular_bid.store.repository import SqlStore

    target = resolve_url(url or (default_sqlite_url(data_dir) if data_dir else None))
    path = sqlite_path(target)
    if path is not None and not path.is_file():
        raise _InputError(f"no match {match_id!r}: there is no database at {path}")
    store = SqlStore.open(target)
    try:
        await require_head(store.engine)
        return (await read_document(store, match_id)).to_json()
    except SchemaNotAtHeadError as exc:
        raise _InputError(str(exc)) from None
    except Rejection as exc:
        raise _InputError(exc.message) from None
    except (OSError, SQLAlchemyError) as exc:
        raise _InputError(f"cannot read the database: {exc}") from None
    finally:
        await store.close()


def run_schema(args: argparse.Namespace) -> int:
    """``specbid schema``: the JSON Schema of the WebSocket messages (docs/protocol.schema.json)."""
    from spectacular_bid.web.messages import schema_text

    text = schema_text()
    if args.output is None:
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    return EXIT_OK


# -- wiring -----------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree; each leaf parser sets ``handler`` to its function."""
    parser = argparse.ArgumentParser(
        prog="specbid",
        description="Spectacular Bid: a two-player Fives domino duel.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    board = commands.add_parser(
        "board",
        help="describe a board move by move (RULES.md Appendix A)",
        description=(
            "Lay placements on one board and print the one-line description of RULES.md "
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
    server.add_argument("--seed", type=int, default=1, help="seed of the clients' choices")
    server.set_defaults(handler=run_bench_server)

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
            "of RULES.md Appendix A after each placement, the balances after each transfer, "
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
