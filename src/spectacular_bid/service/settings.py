"""The service's tunables, with the rules' values as defaults (R7.1, R7.2, D3, D5, D7, D8)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from spectacular_bid.clock import ClockSettings

LEASE_MS: Final = 10_000
"""How long a server's lease runs past its last commit. A peer ends the dead server's matches
this long after its last sign of life (plus one scan), within the few seconds D5 allows for a
match nobody times: long enough for a loaded server's writer to come round (a commit every
second or so even when idle, ``service.matches``), short enough that players are told soon."""


FIRST_DECISION_GRACE_MS: Final = 20_000
"""D7's grace after a first decision's delay: with the rules' 10 s delay, a player who never
decides is aborted 30 s into their first decision, not flagged after two minutes and more."""


@dataclass(frozen=True, slots=True)
class Capacity:
    """The admission thresholds; a signal whose threshold is None is not used. All are off
    unless the server's settings set them (``specbid serve`` does: ``--busy-lag-ms`` and
    friends), so a service built in a test admits everything unless the test asks."""

    busy_lag_ms: int | None = None
    busy_cpu: float | None = None
    """A share of one core; more than 1 only with threads."""
    max_live_matches: int | None = None

    def __post_init__(self) -> None:
        if self.busy_lag_ms is not None and self.busy_lag_ms < 1:
            raise ValueError(f"busy_lag_ms must be >= 1, got {self.busy_lag_ms!r}")
        if self.busy_cpu is not None and self.busy_cpu <= 0:
            raise ValueError(f"busy_cpu must be > 0, got {self.busy_cpu!r}")
        if self.max_live_matches is not None and self.max_live_matches < 1:
            raise ValueError(f"max_live_matches must be >= 1, got {self.max_live_matches!r}")


@dataclass(frozen=True, slots=True)
class BotSettings:
    """The computer opponents (PROTOCOL.md "POST /api/matches"): how many processes think for them,
    how many bot matches those may serve at once, and the least time a bot takes to answer."""

    workers: int = 1
    """Worker processes that run the bots' searches, off the event loop (D5)."""
    matches_per_worker: int = 8
    """Live bot matches per worker; one more is refused as busy, so no bot waits so long for
    a worker that its clock suffers (a level 5 decision takes up to ~1 s of a worker)."""
    min_delay_ms: int = 700
    """A bot answers no sooner than this (times a random 1 to 1.5): an instant reply reads as
    a machine's and leaves no time to see what it did."""

    budget_scale: float = 1.0
    """A factor on every level's thinking budget (``bots.BUDGET_S``): below 1 on a slow machine
    or in tests, which play many matches quickly; a level plays weaker with less."""

    def __post_init__(self) -> None:
        if self.workers < 1 or self.matches_per_worker < 1 or self.min_delay_ms < 0:
            raise ValueError(
                f"need workers >= 1, matches_per_worker >= 1 and min_delay_ms >= 0, got "
                f"{self.workers!r}, {self.matches_per_worker!r}, {self.min_delay_ms!r}"
            )
        if not 0 < self.budget_scale <= 10:
            raise ValueError(f"budget_scale is > 0 and <= 10, not {self.budget_scale!r}")


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    clock: ClockSettings = field(default_factory=ClockSettings)
    grace_ms: int = 20_000
    """D3: a round starts this long after the settlement even if a player never presses."""
    join_timeout_ms: int = 600_000
    """D3: a match still waiting for its second player is aborted with no result this long
    after both its creation and its creator's last socket on it closing, never while the
    creator has it open. The match machine holds the first as a lower bound
    (``MatchState.join_deadline_ms``); the actor arms the timer from who is there
    (``service.presence``)."""
    shared_abandon_ms: int = 300_000
    """D8: a live shared-device match that nobody has open (no socket of its player) this long
    is aborted with no result."""
    first_decision_grace_ms: int | None = FIRST_DECISION_GRACE_MS
    """D7: a seat that has made no decision of its own is aborted, not flagged, this long after
    its running decision's delay (or at R7.7's deadline if sooner). None: the rule is off, as it
    was for every record before format 4."""
    lag_threshold_ms: int = 2_000
    """D5: a stall of the event loop longer than this while a clock runs is a timing failure."""
    lag_tick_ms: int = 100
    """How often the loop-lag monitor wakes up."""
    resend_limit: int = 100
    """A client that reconnects further behind than this many versions gets a full state."""
    subscriber_queue: int = 64
    """Messages waiting for one socket; a socket that falls this far behind is dropped (it
    reconnects and resyncs), so a slow reader never slows a match."""
    capacity: Capacity = field(default_factory=Capacity)
    """Admission control: when new matches are refused (PROTOCOL.md "When the server is busy")."""
    open_challenges_per_guest: int = 3
    """A guest may have this many open (lobby) challenges waiting for a second player at once;
    one more is refused, so one guest cannot fill the lobby (PROTOCOL.md "Limits and close
    codes")."""
    orphan_scan_ms: int = 1_000
    """How often a server looks for matches of a peer whose lease ran out, and ends them
    (PROTOCOL.md "Several servers on one database"); also how often an idle server renews its own
    lease."""
    bots: BotSettings = field(default_factory=BotSettings)
    fixed_deck_seed: int | None = None
    """Test-only: deal every match from decks drawn from this seed instead of the secure
    shuffle. Off by default."""

    def __post_init__(self) -> None:
        for name in (
            "grace_ms",
            "join_timeout_ms",
            "shared_abandon_ms",
            "lag_threshold_ms",
            "lag_tick_ms",
            "orphan_scan_ms",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"{name} must be a positive number of ms, got {value!r}")
        grace = self.first_decision_grace_ms
        if grace is not None and (not isinstance(grace, int) or grace < 0):
            raise ValueError(f"first_decision_grace_ms must be >= 0 ms or None, got {grace!r}")
        if (
            not isinstance(self.open_challenges_per_guest, int)
            or self.open_challenges_per_guest < 1
        ):
            raise ValueError(
                f"open_challenges_per_guest must be >= 1, got {self.open_challenges_per_guest!r}"
            )
        if self.resend_limit < 0 or self.subscriber_queue < 1:
            raise ValueError(
                f"need resend_limit >= 0 and subscriber_queue >= 1, got "
                f"{self.resend_limit!r}, {self.subscriber_queue!r}"
            )
