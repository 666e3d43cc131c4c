"""The server's settings, read from ``SPECBID_*`` environment variables (flags override them).

The match defaults come from :class:`ServiceSettings` and :class:`ClockSettings`, so the rules'
values (R7.1 bank, R7.2 delay, D3 grace and join timeout, D5 lag threshold, D7 grace, D8 abandon
timeout) live in one place.

Storage: the embedded SQLite file ``<data_dir>/specbid.sqlite3`` by default, or the database of
``database_url``; when neither is set, ``$DATABASE_URL`` (the usual name, unprefixed) is used if
present, else the ``./data`` folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from spectacular_bid.clock import ClockSettings
from spectacular_bid.service.live_cap import REESTIMATE_S
from spectacular_bid.service.record_document import FIRST_DECISION_GRACE_MS_MAX
from spectacular_bid.service.residency import IDLE_TTL_MS
from spectacular_bid.service.sessions import TOKEN_CACHE_MS
from spectacular_bid.service.settings import (
    FIRST_DECISION_GRACE_MS,
    LEASE_MS,
    BotSettings,
    Capacity,
    ServiceSettings,
)
from spectacular_bid.web.room import RoomSettings

_SERVICE = ServiceSettings()
_CLOCK = ClockSettings()

REPO_STATIC = Path(__file__).resolve().parents[3] / "static"
"""The browser client's folder in a source checkout; served only if it exists."""


class WebSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SPECBID_", extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)

    bank_ms: int = Field(default=_CLOCK.bank_ms, ge=0)
    """R7.1: each seat's bank for the whole match."""
    delay_ms: int = Field(default=_CLOCK.delay_ms, ge=0)
    """R7.2: the fresh delay of each new decision."""
    grace_ms: int = Field(default=_SERVICE.grace_ms, gt=0)
    """D3: a round starts this long after its settlement even if nobody presses Start."""
    join_timeout_ms: int = Field(default=_SERVICE.join_timeout_ms, gt=0)
    """D3: a match whose second seat is still empty this long after its creation and after its
    creator's last socket on it closed is aborted with no result (never while the creator has it
    open)."""
    shared_abandon_ms: int = Field(default=_SERVICE.shared_abandon_ms, gt=0)
    """D8: a shared-device match nobody has open this long is aborted with no result."""
    first_decision_grace_ms: int = Field(
        default=FIRST_DECISION_GRACE_MS, ge=0, le=FIRST_DECISION_GRACE_MS_MAX
    )
    """D7: a player who has made no decision of their own yet is not flagged but the match is
    aborted, unrated, this long after their running decision's delay (or at its R7.7 deadline)."""
    lag_threshold_ms: int = Field(default=_SERVICE.lag_threshold_ms, gt=0)
    """D5: an event-loop stall longer than this while a clock runs aborts the match unrated."""
    resend_limit: int = Field(default=_SERVICE.resend_limit, ge=0)
    """Reconnect window: a client further behind than this many versions gets a full state."""
    subscriber_queue: int = Field(default=_SERVICE.subscriber_queue, ge=1)
    """Messages waiting for one socket before it is dropped (closed with 1013)."""
    fixed_deck_seed: int | None = None
    """Test-only: deal from decks drawn from this seed. Off by default: decks are secure."""

    allowed_origins: Annotated[list[str], NoDecode] = []
    """Browser origins allowed to open a WebSocket besides the server's own host, e.g.
    ``https://play.example.com``. From the environment: a JSON list or comma-separated."""
    session_cache_ms: int = Field(default=TOKEN_CACHE_MS, ge=0)
    """How long this process trusts what it read of a token (a guest's or a session's) before
    reading the store again: the longest an ended token is still honoured by a process that
    did not hear of its end (no Redis, or Redis down). With Redis every process hears it at
    once; 0 reads the store at every request."""
    rate_limit_per_s: float = Field(default=10.0, gt=0)
    """Messages a socket may send per second on average (a token bucket)..."""
    rate_burst: int = Field(default=20, ge=1)
    """...and in a burst; a socket still flooding after this many refusals is closed (1008)."""
    max_message_bytes: int = Field(default=4096, ge=64)
    """The largest client WebSocket message; uvicorn's ``ws_max_size`` is set to it too."""

    # -- capacity, caps and timeouts (OPERATIONS.md "Under load and abuse") --
    max_live_matches: Annotated[int, Field(ge=1)] | Literal["auto"] = "auto"
    """Admission control: no new match past this many live matches, never changed. ``auto``:
    ``specbid serve`` estimates the machine's speed at start-up and again every
    ``capacity_reestimate_s`` while it runs (``service.live_cap``); an app made in-process (the
    tests) has no cap then."""
    capacity_reestimate_s: float = Field(default=REESTIMATE_S, gt=0)
    """With ``max_live_matches=auto``, how often the cap is estimated again."""
    busy_lag_ms: int = Field(default=40, ge=1)
    """Admission control: new matches are refused with 503 while the event loop's
    mean lag over the last second exceeds this (well under the D5 stall threshold, so live
    matches never suffer)."""
    busy_cpu: float | None = Field(default=None, gt=0)
    """Admission control: ...or, when set, while the process used more than this share of a
    core over 2 s. Off by default: a busy core is not harm. At 90 % it refused most of the
    handshake burst of 2,000 matches arriving at once, matches the server then timed at p99
    15 ms."""
    sockets_per_address: int = Field(default=256, ge=1)
    """Open match sockets allowed from one client address; one more is closed with 1008."""
    sockets_per_guest: int = Field(default=16, ge=1)
    """Open match sockets allowed for one guest token; one more is closed with 1008."""
    handshake_timeout_s: float = Field(default=10.0, gt=0)
    """A connection that has not completed its HTTP request or WebSocket handshake by then is
    closed."""
    ws_ping_interval_s: float = Field(default=20.0, gt=0)
    """The server pings every idle socket this often..."""
    ws_ping_timeout_s: float = Field(default=20.0, gt=0)
    """...and closes one whose pong has not come back in this long."""
    presence_delay_ms: int = Field(default=250, ge=0)
    """Presence changes within this long are sent as one ``presence`` message."""
    spectator_crowd: int = Field(default=32, ge=0)
    """Beyond this many spectators of a match, a change in their number alone is sent at most
    every 5 s (a player coming or going still goes out after ``presence_delay_ms``)."""
    guests_per_minute: float = Field(default=10.0, gt=0)
    """HTTP rate limit: guests created per client address per minute (on average)..."""
    guests_burst: int = Field(default=20, ge=1)
    """...and in a burst; past it, 429 with ``Retry-After``."""
    matches_per_minute: float = Field(default=20.0, gt=0)
    """HTTP rate limit: matches created per guest and per address per minute..."""
    matches_burst: int = Field(default=20, ge=1)
    """...and in a burst."""
    joins_per_minute: float = Field(default=60.0, gt=0)
    """HTTP rate limit: joins per guest and per address per minute..."""
    joins_burst: int = Field(default=30, ge=1)
    """...and in a burst."""
    records_per_minute: float = Field(default=10.0, gt=0)
    """HTTP rate limit: record documents imported or verified (each a whole replay through the
    engine) per guest and per address per minute..."""
    records_burst: int = Field(default=10, ge=1)
    """...and in a burst."""
    open_challenges_per_guest: int = Field(default=3, ge=1)
    """At most this many open (lobby) challenges waiting per guest."""

    # -- computer opponents --
    bot_workers: int = Field(default=_SERVICE.bots.workers, ge=1)
    """Worker processes that think for the computer opponents, off the event loop."""
    bot_matches_per_worker: int = Field(default=_SERVICE.bots.matches_per_worker, ge=1)
    """Live matches against the computer per worker; one more is refused with 503."""
    bot_delay_ms: int = Field(default=_SERVICE.bots.min_delay_ms, ge=0)
    """The least time a computer takes to answer (times a random 1 to 1.5)."""
    bot_budget_scale: float = Field(default=_SERVICE.bots.budget_scale, gt=0, le=10)
    """A factor on each level's thinking time (below 1 on a slow machine: weaker bots)."""

    static_dir: Path | None = None
    """The browser client's folder; by default the repository's ``static/`` when it exists."""

    data_dir: Path | None = None
    """The folder of the embedded SQLite database (``SPECBID_DATA_DIR``; default ``./data``),
    created on first start."""
    database_url: str | None = None
    """A database instead of the embedded file, e.g. ``postgresql://user@host/db``
    (``SPECBID_DATABASE_URL``, or ``DATABASE_URL``)."""
    redis_url: str | None = None
    """The Redis through which several server processes on one database relay their matches'
    commands and frames (``SPECBID_REDIS_URL``, or ``REDIS_URL``). Without it
    a process relays nothing: the embedded default."""
    upgrade: bool = True
    """Bring the database's schema to the migrations' head at start; when false, refuse to start
    unless it is there already."""
    finished_ttl_ms: int = Field(default=300_000, ge=0)
    """How long a finished match stays in memory; afterwards it is read from the database."""
    idle_ttl_ms: int = Field(default=IDLE_TTL_MS, ge=0)
    """...or this long after its last socket closed, if that is sooner."""
    lease_ms: int = Field(default=LEASE_MS, ge=500)
    """How long this server's lease on its matches outlives its last commit: a peer on the same
    database ends the matches of a server silent this long."""

    # -- operations (PROTOCOL.md "Probes and metrics") --
    drain_s: float = Field(default=0.0, ge=0)
    """On the first SIGTERM, refuse new matches and let the live ones play on for up to this
    long before stopping (``web/drain.py``); 0 stops at once. A container runtime must wait
    longer than this before it kills the process."""
    log_format: Literal["text", "json"] = "text"
    """``json``: one JSON object per log line, with the match id when there is one
    (``web/logs.py``)."""

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @field_validator("allowed_origins")
    @classmethod
    def _normalize_origins(cls, value: list[str]) -> list[str]:
        return [origin.strip().rstrip("/").lower() for origin in value]

    def service_settings(self) -> ServiceSettings:
        """The match service's settings from these (the clock per R7.1/R7.2, D3, D5)."""
        return ServiceSettings(
            clock=ClockSettings(bank_ms=self.bank_ms, delay_ms=self.delay_ms),
            grace_ms=self.grace_ms,
            join_timeout_ms=self.join_timeout_ms,
            shared_abandon_ms=self.shared_abandon_ms,
            first_decision_grace_ms=self.first_decision_grace_ms,
            lag_threshold_ms=self.lag_threshold_ms,
            resend_limit=self.resend_limit,
            subscriber_queue=self.subscriber_queue,
            fixed_deck_seed=self.fixed_deck_seed,
            capacity=Capacity(
                self.busy_lag_ms,
                self.busy_cpu,
                self.max_live_matches if isinstance(self.max_live_matches, int) else None,
            ),
            open_challenges_per_guest=self.open_challenges_per_guest,
            bots=BotSettings(
                workers=self.bot_workers,
                matches_per_worker=self.bot_matches_per_worker,
                min_delay_ms=self.bot_delay_ms,
                budget_scale=self.bot_budget_scale,
            ),
        )

    def room_settings(self) -> RoomSettings:
        """How each match's room treats its sockets."""
        return RoomSettings(
            resend_limit=self.resend_limit,
            queue_limit=self.subscriber_queue,
            presence_delay_ms=self.presence_delay_ms,
            spectator_crowd=self.spectator_crowd,
        )

    def static_folder(self) -> Path | None:
        folder = self.static_dir if self.static_dir is not None else REPO_STATIC
        return folder if folder.is_dir() else None
