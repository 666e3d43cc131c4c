"""The live-match cap admission control applies (OPERATIONS.md, "Under load and abuse"): the
operator's, or an estimate the server keeps revising while it runs.

Admission refuses new matches on three signals (``service.admission``): the loop's lag and the
process's CPU, read as the server runs, and a cap on live matches, the only one that can turn a
burst away before it does harm. An operator who measured their machine sets the cap
(``--max-live-matches``, ``SPECBID_MAX_LIVE_MATCHES``), and it is never changed. Otherwise the
cap is estimated from how fast this machine runs the rules engine (``specbid serve`` gives the
estimator, ``bench/capacity.py``), and the estimate is never pinned:

- The estimator counts the CPU time its own thread used, not the time that passed: what ran
  beside the server (a neighbour burning a core at start-up, the server's own loop holding the
  interpreter) slows a probe's wall clock, not its rounds per CPU second. A neighbour's share of
  the machine is the lag's and the CPU's to see, while it lasts.
- A start-up estimate only seeds the cap. Every :attr:`LiveMatchCap.every_s` a new estimate is
  made off the loop, and the cap is the best of the last :data:`ESTIMATES_KEPT`: a probe slowed
  by a moment's contention is outvoted as soon as a later one runs free, and a machine that
  really became slower lowers the cap within that many estimates.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Final, Literal

ESTIMATES_KEPT: Final = 10
"""The estimates whose best is the cap: five minutes of them at the default 30 s."""
REESTIMATE_S: Final = 30.0
"""How often the estimate is made again (one probe of 0.1 s of one thread's CPU each time in
``specbid serve``)."""

Source = Literal["operator", "estimate"]


class LiveMatchCap:
    """The cap on live matches now (None: no cap), and where it came from."""

    def __init__(
        self,
        explicit: int | None = None,
        estimate: Callable[[], int] | None = None,
        every_s: float = REESTIMATE_S,
        revise_with: Callable[[], int] | None = None,
    ) -> None:
        if explicit is not None and explicit < 1:
            raise ValueError(f"a live-match cap is >= 1, got {explicit!r}")
        if every_s <= 0:
            raise ValueError(f"the cap is estimated every > 0 s, got {every_s!r}")
        self.explicit = explicit
        self._estimate = estimate if explicit is None else None
        self._revise_with = revise_with or self._estimate
        """What a revision runs: a cheaper estimate than the seed's where one is given, since a
        revision's CPU is taken from the live matches every ``every_s`` for the process's life."""
        self.every_s = every_s
        self.estimates: deque[int] = deque(maxlen=ESTIMATES_KEPT)
        """The latest estimates, oldest first."""

    @property
    def value(self) -> int | None:
        if self.explicit is not None:
            return self.explicit
        return max(self.estimates) if self.estimates else None

    @property
    def source(self) -> Source | None:
        if self.explicit is not None:
            return "operator"
        return "estimate" if self.estimates else None

    @property
    def is_estimated(self) -> bool:
        """Whether the server revises it (no operator's cap, an estimator given)."""
        return self._estimate is not None

    def seed(self) -> int | None:
        """Estimate once now, on the caller's thread (``specbid serve``, before it listens)."""
        if self._estimate is None:
            return self.value
        self.estimates.append(self._estimate())
        return self.value

    async def revise(self) -> None:
        """One more estimate, off the loop (a periodic task, ``service.periodic``)."""
        if self._estimate is not None and self._revise_with is not None:
            self.estimates.append(await asyncio.to_thread(self._revise_with))
