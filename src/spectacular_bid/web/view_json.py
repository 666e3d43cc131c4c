"""Plain-JSON forms of the engine's views, for the ``match`` object of the wire (issue 9 §6).

The views (``rules/views.py``) are frozen dataclasses; they are encoded field by field here, and
``web/snapshot.py``'s models (unknown fields refused) pin the shape, so a renamed view field fails
the frame tests instead of silently changing the protocol. Events and commands have their own
explicit codec (``service/codec.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from enum import Enum

from spectacular_bid.rules.board import Joint, Place
from spectacular_bid.rules.notation import place_text
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import Tile
from spectacular_bid.service.ports import JSON

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return names


def to_json(value: object) -> JSON:
    """Encode a view (dataclasses, tiles, places, seats, pairs, enums) as plain JSON data."""
    kind = type(value)
    if kind is int or kind is str or value is None or kind is bool:
        return value
    names = _FIELD_NAMES.get(kind)
    if names is not None:
        return {name: to_json(getattr(value, name)) for name in names}
    if isinstance(value, Tile):
        return value.notation()
    if isinstance(value, Seat):
        return str(value)
    if isinstance(value, Place):
        return place_text(value)
    if isinstance(value, Joint):
        return {"old": place_text(value.old), "new": place_text(value.new)}
    if isinstance(value, int):
        return int(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, BySeat):
        return {"first": to_json(value.first), "second": to_json(value.second)}
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: to_json(getattr(value, name)) for name in _field_names(kind)}
    raise TypeError(f"cannot encode {value!r} as JSON")
