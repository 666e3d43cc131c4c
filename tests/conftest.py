"""Every test runs with the lenient server settings of :mod:`lenient` in its environment, and
without the shell's ``REDIS_URL``: a test that relays through Redis names it (``TEST_REDIS_URL``),
so that every other app in the suite is the one process of the embedded default."""

from __future__ import annotations

import os

from lenient import LENIENT

for _name, _value in LENIENT.items():
    os.environ.setdefault(_name, _value)
os.environ.pop("REDIS_URL", None)
