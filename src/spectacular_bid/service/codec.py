"""Plain-JSON forms of the engine's values, shared by the wire and the match record.

Tiles are written in Appendix A move notation (``"1-4"``), open places as ``"1-4:smaller"``, seats
as ``"first"``/``"second"``, enums by value. Commands decode back into engine actions so a stored
match can be replayed through the engine (D4); events only ever need encoding.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from enum import Enum
from typing import Any

from spectacular_bid.clock import ClockReading
from spectacular_bid.rules.actions import (
    Abort,
    AbortReason,
    Accept,
    Action,
    Bid,
    Deal,
    Decline,
    Draw,
    Flag,
    Play,
    Resign,
)
from spectacular_bid.rules.board import Joint, Place, parse_side
from spectacular_bid.rules.errors import NotationError
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import Tile, parse_tile

JSON = Any
"""A value made of dicts, lists, str, int, bool and None."""

_SNAKE = re.compile(r"(?<!^)(?=[A-Z])")
_SEAT_NAMES = {"first": Seat.FIRST, "second": Seat.SECOND}


def type_name(cls: type) -> str:
    """``BidAccepted`` → ``bid_accepted``: the ``type`` of an encoded event or command."""
    return _SNAKE.sub("_", cls.__name__).lower()


def place_text(place: Place) -> str:
    return f"{place.tile.notation()}:{place.side.notation}"


def parse_place(text: str) -> Place:
    """Parse ``"1-4:smaller"`` into an open-place reference (Appendix A)."""
    tile_text, colon, side_text = text.partition(":")
    if not colon:
        raise NotationError(f"invalid place: {text!r} (expected TILE:SIDE, e.g. 1-4:smaller)")
    return Place(parse_tile(tile_text), parse_side(side_text))


def parse_seat(text: object) -> Seat:
    if isinstance(text, str) and text in _SEAT_NAMES:
        return _SEAT_NAMES[text]
    raise NotationError(f"invalid seat: {text!r} (expected 'first' or 'second')")


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def to_json(value: object) -> JSON:
    """Encode an engine or service value (dataclasses included) as plain JSON data."""
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


def event_json(event: object) -> JSON:
    """An event as ``{"type": "played", …fields}``."""
    body = to_json(event)
    return {"type": type_name(type(event)), **body}


def clock_json(reading: ClockReading) -> JSON:
    return to_json(reading)


def action_json(action: Action) -> JSON:
    """A command as recorded in the match record: ``{"type": "play", "seat": …}``."""
    return event_json(action)


def _field(data: Mapping[str, Any], name: str) -> Any:
    if name not in data:
        raise NotationError(f"missing field {name!r} in {dict(data)!r}")
    return data[name]


def parse_action(data: Mapping[str, Any]) -> Action:
    """Decode a recorded command back into an engine action (the inverse of action_json)."""
    kind = _field(data, "type")
    if kind == "deal":
        deck = _field(data, "deck")
        if not isinstance(deck, list):
            raise NotationError(f"invalid deck: {deck!r}")
        return Deal(tuple(parse_tile(t) for t in deck))
    if kind == "abort":
        try:
            return Abort(AbortReason(_field(data, "reason")))
        except ValueError:
            raise NotationError(f"invalid abort reason: {data.get('reason')!r}") from None
    seat = parse_seat(_field(data, "seat"))
    if kind == "play":
        at = data.get("at")
        return Play(seat, parse_tile(_field(data, "tile")), None if at is None else parse_place(at))
    if kind == "bid":
        amount = _field(data, "amount")
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise NotationError(f"invalid bid amount: {amount!r}")
        return Bid(seat, amount)
    simple: dict[str, type[Draw | Accept | Decline | Resign | Flag]] = {
        "draw": Draw,
        "accept": Accept,
        "decline": Decline,
        "resign": Resign,
        "flag": Flag,
    }
    if kind in simple:
        return simple[kind](seat)
    raise NotationError(f"unknown command type: {kind!r}")
