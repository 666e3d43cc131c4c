"""Settings for every app and server the tests start, unless a test sets its own.

The server's defaults guard a real machine against overload and abuse (issue 10): new matches are
refused while the event loop lags, and guests, matches and joins are rate-limited per address.
A test suite on a busy two-core machine creates far more guests and matches from one address than
any person would, and its loop lags for reasons of its own, so the suite's servers start with
those guards opened wide. The tests of the guards themselves set their own, strict, values.
Real server processes inherit these variables.
"""

from __future__ import annotations

import os

LENIENT = {
    "SPECBID_BUSY_LAG_MS": "1500",
    "SPECBID_BUSY_CPU": "1000",
}

for _name, _value in LENIENT.items():
    os.environ.setdefault(_name, _value)
