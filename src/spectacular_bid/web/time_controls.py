"""The time controls a new match may be created with, told to the client with the lobby.

The lobby's form offers the server's own control (R7.1, R7.2: what a match created without one
gets, the only one a match is rated on), a few casual ones, and a custom bank and delay within
the bounds ``POST /api/matches`` accepts. The client keeps none of these numbers: it reads them
from ``GET /api/lobby`` (docs/PROTOCOL.md "GET /api/lobby"), so that a server started with
another ``--bank-ms`` or ``--delay-ms`` is shown as it is.
"""

from __future__ import annotations

from typing import Final

from spectacular_bid.clock import ClockSettings
from spectacular_bid.service.record_document import BANK_MS_MAX, DELAY_MS_MAX
from spectacular_bid.web.notation import WireModel

CASUAL: Final = (
    ClockSettings(bank_ms=60_000, delay_ms=5_000),
    ClockSettings(bank_ms=300_000, delay_ms=10_000),
    ClockSettings(bank_ms=600_000, delay_ms=20_000),
)
"""The casual presets the lobby offers besides the server's own control and a custom one."""


class TimeControl(WireModel):
    bank_ms: int
    """The bank per seat for the whole match (R7.1)."""
    delay_ms: int
    """The fresh delay of each decision (R7.2)."""

    @classmethod
    def of(cls, clock: ClockSettings) -> TimeControl:
        return cls(bank_ms=clock.bank_ms, delay_ms=clock.delay_ms)


class TimeControls(WireModel):
    own: TimeControl
    """The server's own control: what a match created without ``bank_ms`` and ``delay_ms``
    gets, and the only one it rates."""
    casual: list[TimeControl]
    """The casual presets, shortest first (the server's own left out)."""
    bank_ms_max: int
    """The largest ``bank_ms`` ``POST /api/matches`` accepts (the least is 0)."""
    delay_ms_max: int
    """The largest ``delay_ms`` ``POST /api/matches`` accepts (the least is 0)."""


def time_controls(own: ClockSettings) -> TimeControls:
    """What the lobby's form offers on a server whose own control is ``own``."""
    return TimeControls(
        own=TimeControl.of(own),
        casual=[TimeControl.of(clock) for clock in CASUAL if clock != own],
        bank_ms_max=BANK_MS_MAX,
        delay_ms_max=DELAY_MS_MAX,
    )
