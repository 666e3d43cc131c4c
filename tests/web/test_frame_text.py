"""The JSON text of frames and relay messages: a fast encoder and reader, and the standard
library's where they will not go."""

from __future__ import annotations

import json
from typing import NamedTuple

import pytest

from spectacular_bid.web.json_text import compact, parse


class _Pair(NamedTuple):
    first: int
    second: int


@pytest.mark.parametrize(
    "value",
    [
        {"name": "Åsa Kärkkäinen", "spectators": 3, "online": {"first": True, "second": False}},
        {"name": "Олена\u2028", "clock": None, "hand": ["5-5", "6-4"]},
        {"name": "\ud800 lone surrogate"},
        {"deadline_ms": 2**70},
        {"pair": _Pair(1, 2)},
    ],
    ids=["latin", "cyrillic-line-separator", "lone-surrogate", "past-64-bits", "named-tuple"],
)
def test_a_frame_reads_back_as_the_standard_library_would_have_written_it(value: object) -> None:
    text = compact(value)
    assert json.loads(text) == json.loads(json.dumps(value))
    assert parse(text) == json.loads(json.dumps(value))
    assert ", " not in text
    assert ": " not in text
