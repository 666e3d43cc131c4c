"""Plain-JSON forms of the engine's views, for the ``match`` object of the wire (PROTOCOL.md "The
match object").

The views (``rules/views.py``) are frozen dataclasses; they are encoded field by field here, and
``web/snapshot.py``'s models (unknown fields refused) pin the shape, so a renamed view field fails
the frame tests instead of silently changing the protocol. Events and commands have their own
explicit codec (``service/codec.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

from spectacular_bid.rules.actions import MatchEnded
from spectacular_bid.rules.board import Joint, Place
from spectacular_bid.rules.notation import place_text, tile_text
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import Tile
from spectacular_bid.service.ports import JSON

Encoder = Callable[[Any], JSON]
_ENCODERS: dict[type, Encoder] = {}
"""The encoder of each type met so far: a view holds a few kinds of value, encoded by the
thousand for every version of every live match (the loop's CPU per command), so the
type is looked up once, not tested against every kind each time."""


def to_json(value: object) -> JSON:
    """Encode a view (dataclasses, tiles, places, seats, pairs, enums) as plain JSON data."""
    kind = type(value)
    encode = _ENCODERS.get(kind)
    if encode is None:
        encode = _ENCODERS[kind] = _encoder_for(kind, value)
    return encode(value)


def _same(value: JSON) -> JSON:
    return value


def _encoder_for(kind: type, value: object) -> Encoder:
    """How values of ``kind`` are encoded; the order matters where kinds overlap (a seat is an
    enum and an int, a place a tuple, a pair a dataclass)."""
    if kind in (int, str, bool, float, type(None)):
        return _same
    if issubclass(kind, Tile):
        return tile_text
    if issubclass(kind, Seat):
        return str
    if issubclass(kind, Place):
        return place_text
    if issubclass(kind, Joint):
        return _joint_json
    if issubclass(kind, MatchEnded):
        return _result_json
    if issubclass(kind, Enum):
        return _enum_json
    if issubclass(kind, int):
        return int
    if issubclass(kind, BySeat):
        return _pair_json
    if issubclass(kind, tuple | list):
        return _list_json
    if issubclass(kind, Mapping):
        return _mapping_json
    if dataclasses.is_dataclass(kind):
        return _dataclass_encoder(tuple(f.name for f in dataclasses.fields(kind)))
    raise TypeError(f"cannot encode {value!r} as JSON")


def _joint_json(joint: Joint) -> JSON:
    return {"old": place_text(joint.old), "new": place_text(joint.new)}


def _result_json(result: MatchEnded) -> JSON:
    """A match's result: ``undecided`` only when D7 names a seat, as in ``match_ended``."""
    data: dict[str, JSON] = {"winner": to_json(result.winner), "reason": result.reason.value}
    if result.undecided is not None:
        data["undecided"] = str(result.undecided)
    return data


def _enum_json(member: Enum) -> JSON:
    encoded: JSON = member.value
    return encoded


def _pair_json(pair: BySeat[object]) -> JSON:
    return {"first": to_json(pair.first), "second": to_json(pair.second)}


def _list_json(values: tuple[object, ...] | list[object]) -> JSON:
    return [to_json(v) for v in values]


def _mapping_json(mapping: Mapping[object, object]) -> JSON:
    return {str(k): to_json(v) for k, v in mapping.items()}


def _dataclass_encoder(names: tuple[str, ...]) -> Encoder:
    def encode(value: object) -> JSON:
        return {name: to_json(getattr(value, name)) for name in names}

    return encode
