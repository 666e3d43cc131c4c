"""Compact JSON for what the server writes many times a second: frames and relay messages.

orjson does it: a version is encoded for every audience of every live match, and the standard
library's encoder took about a twentieth of the loop's samples under load (py-spy at 1,000
matches); the relay between processes (OPERATIONS.md "Running it for real") carries those frames
inside its own messages, and with the standard library it spent a twentieth of two processes'
samples again. What orjson will not take (a lone surrogate in a name, an int past 64 bits, a named
tuple) the standard library still encodes and reads, as it always did.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def compact(value: object) -> str:
    """``value`` as JSON with no spaces."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError is one
        return json.dumps(value, separators=(",", ":"))


def parse(text: str) -> Any:
    """The value of a text :func:`compact` wrote (an escaped lone surrogate included)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
