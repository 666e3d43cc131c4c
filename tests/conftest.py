"""Every test runs with the lenient server settings of :mod:`lenient` in its environment."""

from __future__ import annotations

import os

from lenient import LENIENT

for _name, _value in LENIENT.items():
    os.environ.setdefault(_name, _value)
