"""Wire types shared by the snapshot, the events and the commands: seats, tiles, places, pairs.

Tiles and places travel in Appendix A notation (``"1-4"``, ``"1-4:smaller"``), seats by name; the
patterns here put that in the JSON Schema so a client can check its frames before sending.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from spectacular_bid.rules.notation import SIDE_NOTATION
from spectacular_bid.rules.seats import Seat

SeatName = Literal["first", "second"]

TILE_PATTERN = r"^[0-6]-[0-6]$"
PLACE_PATTERN = rf"^[0-6]-[0-6]:({'|'.join(SIDE_NOTATION)})$"

TileText = Annotated[
    str,
    Field(
        pattern=TILE_PATTERN,
        description="A tile in Appendix A notation, low half first: '1-4'.",
        examples=["1-4"],
    ),
]
PlaceText = Annotated[
    str,
    Field(
        pattern=PLACE_PATTERN,
        description="An open place, TILE:SIDE (Appendix A): '1-4:smaller', '1-1:lineB'.",
        examples=["1-4:smaller"],
    ),
]


class WireModel(BaseModel):
    """A wire shape: unknown fields are refused, so a frame that drifts from the model fails."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class IntPair(WireModel):
    """One integer per seat (``BySeat[int]``)."""

    first: int
    second: int


class BoolPair(WireModel):
    first: bool
    second: bool


class TilesPair(WireModel):
    """Both hands, once they are public (D4)."""

    first: list[TileText]
    second: list[TileText]


class HiddenTilesPair(WireModel):
    """Both hands as one viewer may see them: a hand it may not see is null (R2.2)."""

    first: list[TileText] | None
    second: list[TileText] | None


def seat_name(seat: Seat) -> SeatName:
    return "first" if seat is Seat.FIRST else "second"
