"""The service's tunables, with the rules' values as defaults (R7.1, R7.2, D3, D5)."""

from __future__ import annotations

from dataclasses import dataclass, field

from spectacular_bid.clock import ClockSettings
from spectacular_bid.service.admission import Capacity


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    clock: ClockSettings = field(default_factory=ClockSettings)
    grace_ms: int = 20_000
    """D3: a round starts this long after the settlement even if a player never presses."""
    join_timeout_ms: int = 60_000
    """D3: a match whose seats are not both taken by then is aborted with no result."""
    lag_threshold_ms: int = 2_000
    """D5: a stall of the event loop longer than this while a clock runs is a timing failure."""
    lag_tick_ms: int = 100
    """How often the loop-lag monitor wakes up."""
    resend_limit: int = 500
    """A client that reconnects further behind than this many versions gets a full state."""
    subscriber_queue: int = 64
    """Messages waiting for one socket; a socket that falls this far behind is dropped (it
    reconnects and resyncs), so a slow reader never slows a match."""
    capacity: Capacity = field(default_factory=Capacity)
    """Admission control: when new matches and joins are refused (issue 10 item 1)."""
    fixed_deck_seed: int | None = None
    """Test-only: deal every match from decks drawn from this seed instead of the secure
    shuffle. Off by default."""

    def __post_init__(self) -> None:
        for name in ("grace_ms", "join_timeout_ms", "lag_threshold_ms", "lag_tick_ms"):
            value = getattr(self, name)
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"{name} must be a positive number of ms, got {value!r}")
        if self.resend_limit < 0 or self.subscriber_queue < 1:
            raise ValueError(
                f"need resend_limit >= 0 and subscriber_queue >= 1, got "
                f"{self.resend_limit!r}, {self.subscriber_queue!r}"
            )
