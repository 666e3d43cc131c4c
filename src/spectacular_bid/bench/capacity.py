"""How many live matches this machine can time well, measured when ``specbid serve`` starts.

Admission control (issue 10 item 1) reads the loop's lag, which shows harm only once it is
done, and a burst of new matches arrives faster than any lag can build: offered 4,000 at once,
a server admitted all 4,000 in 10 s and then timed them at p99 0.9 s. Only a count of live
matches can turn a burst away, and its right size depends on the machine. So the server times
the rules engine for a moment at start-up, before it listens, and scales that.

:data:`MATCHES_PER_ROUND_PER_S` was measured with ``specbid bench server`` (players thinking
1-5 s per decision, a spectator each, admission control off) on a machine that plays 12,000
rounds/s in ``specbid bench rules``: p99 15 ms at 2,000 matches, 19 ms at 2,500, 66 ms at
3,000. 2,400 keeps the p99 well inside 40 ms; people think longer than the benchmark's players,
so for people it errs on the safe side. An operator who measured their own machine sets
``SPECBID_MAX_LIVE_MATCHES`` instead, and no measurement is made.
"""

from __future__ import annotations

import random
from typing import Final

from spectacular_bid.bench.rules import measure

MATCHES_PER_ROUND_PER_S: Final = 0.2
PROBE_S: Final = 0.3
MIN_CAPACITY: Final = 50
"""However slow the measurement (a machine busy with something else at start-up), a server
takes at least this many matches."""


PROBES: Final = 3
"""The fastest of a few short probes is taken: anything else running at that moment only slows
a probe, so the fastest is nearest the machine's speed. One probe of 0.3 s read anywhere from
9,300 to 10,400 rounds/s on one machine within an hour, a capacity of 1,860 to 2,080."""


def live_match_capacity(seconds: float = PROBE_S, seed: int = 0) -> int:
    """The live matches this machine is estimated to time at p99 well under 40 ms."""
    speed = max(measure(seconds, random.Random(seed + i))["rounds_per_s"] for i in range(PROBES))
    return max(MIN_CAPACITY, round(speed * MATCHES_PER_ROUND_PER_S))
