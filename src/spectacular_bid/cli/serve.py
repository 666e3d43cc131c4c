"""``specbid serve``: the game server under uvicorn, its flags over the ``SPECBID_*`` environment,
and the refusal to start (``--no-upgrade`` on a schema not at head, another server on the
database) turned into one line on stderr and exit status 1 rather than a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import SQLAlchemyError

from spectacular_bid.cli.exit_status import EXIT_ERROR, EXIT_FAILED, EXIT_OK
from spectacular_bid.store.engine import default_sqlite_url

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from spectacular_bid.service.matches import MatchService
    from spectacular_bid.web.drain import HandOver
    from spectacular_bid.web.settings import WebSettings

SERVE_FLAGS = (
    ("host", str, "interface to listen on"),
    ("port", int, "TCP port"),
    ("bank_ms", int, "each seat's bank for the whole match, ms (R7.1)"),
    ("delay_ms", int, "the delay of each new decision, ms (R7.2)"),
    ("grace_ms", int, "a round deals this long after its settlement anyway, ms (D3)"),
    ("join_timeout_ms", int, "a waiting match its creator left is aborted after, ms (D3)"),
    ("shared_abandon_ms", int, "a shared-device match nobody has open is aborted after, ms (D8)"),
    ("first_decision_grace_ms", int, "a first decision's grace after its delay, ms (D7)"),
    ("lag_threshold_ms", int, "an event-loop stall that aborts running matches, ms (D5)"),
    ("rate_limit_per_s", float, "messages per second allowed per socket"),
    ("rate_burst", int, "messages allowed in a burst per socket"),
    ("fixed_deck_seed", int, "TEST ONLY: deal predictable decks from this seed"),
    ("database_url", str, "a database URL, e.g. postgresql://user@host/db (or $DATABASE_URL)"),
    ("redis_url", str, "the Redis that several servers relay through (or $REDIS_URL)"),
    ("finished_ttl_ms", int, "a finished match stays in memory this long, ms"),
    ("idle_ttl_ms", int, "...or this long once nobody has it open, if sooner, ms"),
    ("lease_ms", int, "a peer on the database ends this server's matches if silent this long"),
    ("max_live_matches", str, "refuse new matches past this many live (auto: estimated, revised)"),
    ("capacity_reestimate_s", float, "with an auto cap, estimate it again this often, s"),
    ("busy_lag_ms", int, "refuse new matches while the loop lags more, ms (mean over 1 s)"),
    ("busy_cpu", float, "...or while the process uses more of a core than this (0-1)"),
    ("sockets_per_address", int, "open match sockets allowed per client address"),
    ("sockets_per_guest", int, "open match sockets allowed per guest"),
    ("handshake_timeout_s", float, "close a connection whose request or handshake is unfinished"),
    ("session_cache_ms", int, "trust what was read of a token this long before reading again, ms"),
    ("guests_per_minute", float, "guests created per address per minute"),
    ("matches_per_minute", float, "matches created per guest and per address per minute"),
    ("joins_per_minute", float, "joins per guest and per address per minute"),
    (
        "records_per_minute",
        float,
        "records imported or verified per guest and per address a minute",
    ),
    ("open_challenges_per_guest", int, "open lobby challenges waiting per guest"),
    ("bot_workers", int, "worker processes thinking for the computer opponents"),
    ("bot_matches_per_worker", int, "live matches against the computer per worker"),
    ("bot_delay_ms", int, "the least time a computer opponent takes to answer, ms"),
    ("bot_budget_scale", float, "a factor on the computer opponents' thinking time"),
    ("drain_s", float, "on SIGTERM, let live matches play on this long before stopping, s"),
    ("log_format", str, "text or json (one JSON object per line, with the match id)"),
)
"""``specbid serve`` flags, each overriding its ``SPECBID_*`` environment variable."""


def settings_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The ``WebSettings`` fields the flags set; a field left out keeps its environment value."""
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
    return overrides


def run_serve(args: argparse.Namespace) -> int:
    """``specbid serve``: the game server under uvicorn.

    Settings come from ``SPECBID_*`` environment variables, then from flags. The web stack is
    imported here, not at the top, so ``specbid board`` stays quick to start. Several servers
    may share one database, each running the matches it made (``store.leases``).
    """
    from pydantic import ValidationError

    from spectacular_bid.store.migrate import SchemaNotAtHeadError
    from spectacular_bid.web.app import check_database, create_app, served
    from spectacular_bid.web.settings import WebSettings

    try:
        from spectacular_bid.bench.capacity import (
            live_match_capacity,
            revised_live_match_capacity,
        )

        settings = WebSettings(**settings_overrides(args))  # type: ignore[arg-type]
        # With max_live_matches=auto, the cap is estimated before the server listens and
        # again while it runs (service.live_cap).
        app = create_app(
            settings,
            manage_collector=True,
            estimate_cap=live_match_capacity,
            revise_cap=revised_live_match_capacity,
        )
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
    raise_descriptor_limit()
    hand_over = app.state.hand_over
    if not run_uvicorn(served(app), app.state.service, settings, args.log_level, hand_over):
        return EXIT_FAILED  # the start-up failed, and uvicorn logged why
    return EXIT_OK


def run_uvicorn(
    app: ASGIApp,
    service: MatchService,
    settings: WebSettings,
    log_level: str,
    hand_over: HandOver | None = None,
) -> bool:
    """What ``uvicorn.run()`` does for one process, with :class:`DrainingServer` (a stop signal
    hands the live matches to a peer, or else drains first, ``web/drain.py``) and the log
    format of the settings; whether it started."""
    import uvicorn

    from spectacular_bid.web.drain import DrainingServer
    from spectacular_bid.web.logs import log_config

    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        **connection_options(settings),
        loop="uvloop",
        lifespan="on",
        log_level=log_level,
        log_config=log_config(settings.log_format),
    )
    server = DrainingServer(config, service, settings.drain_s, hand_over)
    with contextlib.suppress(KeyboardInterrupt):  # as uvicorn.run() does
        server.run()
    return server.started


def connection_options(settings: WebSettings) -> dict[str, Any]:
    """uvicorn's settings for each connection, shared with the tests that run a real server in
    their own process (``tests/live/test_connection_cycles.py``)."""
    from spectacular_bid.web.frame_errors import checking_utf8
    from spectacular_bid.web.handshake_timeout import protocols

    http_protocol, ws_protocol = protocols(settings.handshake_timeout_s)
    return {
        # uvicorn's httptools and websockets-sansio protocols (the successor to its deprecated
        # "websockets"), each closing a connection that does not finish arriving in time.
        "http": http_protocol,
        "ws": checking_utf8(ws_protocol),
        "ws_max_size": settings.max_message_bytes,
        "ws_per_message_deflate": False,  # compression costs memory and CPU per socket (§8)
        "ws_ping_interval": settings.ws_ping_interval_s,
        "ws_ping_timeout": settings.ws_ping_timeout_s,
    }


def raise_descriptor_limit() -> int:
    """Lift the soft limit on open files to the hard one and return it: every socket is a file,
    and the usual soft limit of 1,024 is reached by a few hundred matches with spectators."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        wanted = 1_048_576 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            return soft
        return wanted
    return soft
