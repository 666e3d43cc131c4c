"""The match clock (§7): a delay, then a bank, as an immutable value.

Every decision gets a fresh delay; only the time beyond it is taken from the seat's bank, which
lasts the whole match (R7.1, R7.2). The clock never reads time itself: every method takes
``now_ms``, an integer millisecond of the server's monotonic clock, so a match replays exactly
from its record and tests need no sleeping. Methods return new values and never mutate.

Draws inside one turn (R7.3) and viewing the rules (R7.8) have no method here on purpose: they are
not new decisions, so the caller simply does not touch the clock and the running delay goes on.
Disconnecting does not touch it either (R7.6). Forced passes, declines and accepts take no time
(D2): the caller switches past them at the same ``now_ms``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from spectacular_bid.rules.seats import BySeat, Seat


@dataclass(frozen=True, slots=True)
class ClockSettings:
    """The time control of one match: bank per seat and delay per decision, in ms (R7.1, R7.2)."""

    bank_ms: int = 120_000
    delay_ms: int = 10_000

    def __post_init__(self) -> None:
        if self.bank_ms < 0:
            raise ValueError(f"bank_ms must be >= 0, got {self.bank_ms!r}")
        if self.delay_ms < 0:
            raise ValueError(f"delay_ms must be >= 0, got {self.delay_ms!r}")


DEFAULT_SETTINGS = ClockSettings()


@dataclass(frozen=True, slots=True)
class ClockReading:
    """What the clock shows at ``now_ms``: the snapshot sent to the players' displays."""

    now_ms: int
    running: Seat | None
    bank_left_ms: BySeat[int]
    delay_left_ms: int
    deadline_ms: int | None


@dataclass(frozen=True, slots=True)
class MatchClock:
    """Both seats' banks and the decision being timed, if any.

    ``running`` is None while the clocks stand: during the deal, the settlement and a shared
    device's hand-over (R7.5). ``decision_started_ms`` is when the running decision began; while
    the clocks stand it is when they stopped, so no later call may go back before it.
    ``delay_ms`` is the delay the running decision started with.
    """

    settings: ClockSettings
    bank_ms: BySeat[int]
    running: Seat | None
    decision_started_ms: int
    delay_ms: int

    def __post_init__(self) -> None:
        for bank_ms in self.bank_ms:
            if not 0 <= bank_ms <= self.settings.bank_ms:
                raise ValueError(
                    f"bank_ms must be in [0, {self.settings.bank_ms}], got {self.bank_ms!r}"
                )
        if self.delay_ms < 0:
            raise ValueError(f"delay_ms must be >= 0, got {self.delay_ms!r}")

    @classmethod
    def new(cls, settings: ClockSettings = DEFAULT_SETTINGS) -> MatchClock:
        """A match's clock before the first Start: both banks full, clocks standing (R7.1, R7.5)."""
        full = settings.bank_ms
        return cls(settings, BySeat(full, full), None, 0, settings.delay_ms)

    def start_decision(self, seat: Seat, now_ms: int) -> MatchClock:
        """Time a genuinely new decision of ``seat`` with a fresh, full delay (R7.2).

        The bank is not refilled (R7.1). Starting while a decision is timed is a bug in the caller,
        since the running seat would never be charged: use :meth:`switch` instead.
        """
        self._check_time(now_ms)
        if self.running is not None:
            raise ValueError(f"cannot start {seat}'s decision: {self.running}'s clock is running")
        return replace(
            self, running=seat, decision_started_ms=now_ms, delay_ms=self.settings.delay_ms
        )

    def stop(self, now_ms: int) -> tuple[MatchClock, int]:
        """Stand the clocks and charge the running seat; return the new clock and the bank cost.

        Only the time beyond the delay costs bank (R7.2), and never more than is left, so a bank
        charged after the deadline ends at 0, not below.
        """
        seat = self.running
        if seat is None:
            raise ValueError(f"cannot stop at {now_ms!r}: no clock is running")
        self._check_time(now_ms)
        cost_ms = self._bank_cost_ms(seat, now_ms)
        stopped = replace(
            self,
            bank_ms=self.bank_ms.replace(seat, self.bank_ms[seat] - cost_ms),
            running=None,
            decision_started_ms=now_ms,
        )
        return stopped, cost_ms

    def switch(self, seat: Seat, now_ms: int) -> tuple[MatchClock, int]:
        """End the running decision and time a new one of ``seat``; return the clock and bank cost.

        A bid or a raise switches to the other player; an accept or a decline starts the clock of
        the player who opens, who may be the same seat again (R7.4).
        """
        stopped, cost_ms = self.stop(now_ms)
        return stopped.start_decision(seat, now_ms), cost_ms

    def deadline_ms(self) -> int | None:
        """When the running seat loses on time: decision start + delay + bank (R7.7).

        None while the clocks stand: nobody can lose on time then (R7.5).
        """
        if self.running is None:
            return None
        return self.decision_started_ms + self.delay_ms + self.bank_ms[self.running]

    def is_flagged(self, now_ms: int) -> bool:
        """True when a command arriving at ``now_ms`` is too late (R7.7).

        Arriving exactly at the deadline is already a loss on time (D6).
        """
        self._check_time(now_ms)
        deadline_ms = self.deadline_ms()
        return deadline_ms is not None and now_ms >= deadline_ms

    def delay_left_ms(self, now_ms: int) -> int:
        """The running decision's delay left at ``now_ms``; 0 when it is used up or nothing runs."""
        self._check_time(now_ms)
        if self.running is None:
            return 0
        return max(0, self.delay_ms - (now_ms - self.decision_started_ms))

    def bank_left_ms(self, seat: Seat, now_ms: int) -> int:
        """``seat``'s bank at ``now_ms``: it falls only once the running delay is used up (R7.2)."""
        self._check_time(now_ms)
        if seat != self.running:
            return self.bank_ms[seat]
        return self.bank_ms[seat] - self._bank_cost_ms(seat, now_ms)

    def reading(self, now_ms: int) -> ClockReading:
        """Everything a display needs at ``now_ms``, so a client keeps no clock rules of its own."""
        return ClockReading(
            now_ms=now_ms,
            running=self.running,
            bank_left_ms=BySeat(
                self.bank_left_ms(Seat.FIRST, now_ms), self.bank_left_ms(Seat.SECOND, now_ms)
            ),
            delay_left_ms=self.delay_left_ms(now_ms),
            deadline_ms=self.deadline_ms(),
        )

    def _bank_cost_ms(self, seat: Seat, now_ms: int) -> int:
        over_delay_ms = now_ms - self.decision_started_ms - self.delay_ms
        return min(max(0, over_delay_ms), self.bank_ms[seat])

    def _check_time(self, now_ms: int) -> None:
        """Refuse a time before the last one the clock saw: the server's clock is monotonic."""
        if now_ms < self.decision_started_ms:
            raise ValueError(
                f"now_ms {now_ms!r} is before the clock's last time {self.decision_started_ms}"
            )
