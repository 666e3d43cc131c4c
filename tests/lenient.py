"""The settings every app and server of the test suite starts with, unless a test sets its own.

The server's defaults guard a real machine against overload and abuse (OPERATIONS.md "Under load and
abuse"): new matches are refused while the event loop lags, guests, matches and joins are
rate-limited per address, and presence is coalesced. A test suite on a busy two-core machine creates
far more guests and matches from one address than any person would, and its loop lags for reasons of
its own, so the suite's servers start with those guards opened wide. The tests of the guards
themselves set their own, strict, values. ``tests/conftest.py`` exports these to the environment
(real server processes inherit it); ``tests/web/conftest.py`` sets them again after clearing it.
"""

from __future__ import annotations

LENIENT = {
    "SPECBID_BUSY_LAG_MS": "1500",
    "SPECBID_BUSY_CPU": "1000",
    "SPECBID_MAX_LIVE_MATCHES": "100000",
    "SPECBID_PRESENCE_DELAY_MS": "0",
    "SPECBID_GUESTS_BURST": "100000",
    "SPECBID_MATCHES_BURST": "100000",
    "SPECBID_JOINS_BURST": "100000",
    "SPECBID_RECORDS_BURST": "100000",
    "SPECBID_OPEN_CHALLENGES_PER_GUEST": "100000",
    "SPECBID_SOCKETS_PER_GUEST": "100000",
    "SPECBID_SOCKETS_PER_ADDRESS": "100000",
}
