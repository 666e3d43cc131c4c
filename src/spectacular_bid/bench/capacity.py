"""How many live matches this machine can time well, estimated when ``specbid serve`` starts and
again while it runs (``service.live_cap``).

Admission control (PROTOCOL.md "When the server is busy") reads the loop's lag, which shows harm
only once it is done, and a burst of new matches arrives faster than any lag can build: offered
4,000 at once, a server admitted all 4,000 in 10 s and then timed them at p99 0.9 s. Only a count of
live matches can turn a burst away, and its right size depends on the machine. So the server times
the rules engine for a moment at start-up, before it listens, and scales that; and again every
``capacity_reestimate_s`` while it runs, off the loop.

Each probe counts the CPU time of its own thread, not the wall clock. On a wall clock a probe
run while another process used a core measured half the machine (948 live matches where a
quiet start measured about 1,900), and that start-up figure was the cap for the life of the
process. Rounds per CPU second are the machine's speed whatever else runs beside it, and also
whatever the server's own loop does while a revision runs in a thread beside it.

:data:`MATCHES_PER_ROUND_PER_S` was measured with ``specbid bench server`` (players thinking
1-5 s per decision, a spectator each, admission control off) on a machine that plays 12,000
rounds/s in ``specbid bench rules``: p99 15 ms at 2,000 matches, 19 ms at 2,500, 66 ms at
3,000. 2,400 keeps the p99 well inside 40 ms; people think longer than the benchmark's players,
so for people it errs on the safe side. An operator who measured their own machine sets
``SPECBID_MAX_LIVE_MATCHES`` instead, and no measurement is made.
"""

from __future__ import annotations

import random
import time
from typing import Final

from spectacular_bid.bench.rules import measure

MATCHES_PER_ROUND_PER_S: Final = 0.2
PROBE_S: Final = 0.3
MIN_CAPACITY: Final = 50
"""However slow the measurement (a machine busy with something else at start-up), a server
takes at least this many matches."""


PROBES: Final = 3
"""The fastest of a few short probes is taken: the CPU's caches shared with a neighbour can still
slow a probe a little, so the fastest is nearest the machine's speed. One probe of 0.3 s read
anywhere from 9,300 to 10,400 rounds/s on one machine within an hour, a capacity of 1,860 to
2,080 (on the wall clock)."""


REVISION_PROBE_S: Final = 0.1
"""A revision while the server runs is one probe this short. It runs every
``capacity_reestimate_s`` for the life of the process, so its price is paid by every command:
three probes of 0.3 s every 30 s were 3 % of a core, a tenth of the server's CPU per command at a
thousand live matches (``specbid bench server``). One short probe is noisier, but the cap is the
best of the last several estimates (``service.live_cap``), so one low reading changes nothing."""


def live_match_capacity(seconds: float = PROBE_S, seed: int = 0, probes: int = PROBES) -> int:
    """The live matches this machine is estimated to time at p99 well under 40 ms."""
    speed = max(
        measure(seconds, random.Random(seed + i), time.thread_time)["rounds_per_s"]
        for i in range(probes)
    )
    return max(MIN_CAPACITY, round(speed * MATCHES_PER_ROUND_PER_S))


def revised_live_match_capacity() -> int:
    """One short probe (:data:`REVISION_PROBE_S`): the estimate a running server makes again."""
    return live_match_capacity(REVISION_PROBE_S, probes=1)
