"""Who watches a match as whom: a seat, the shared device holding both, or a spectator."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.service.ports import Player


class Audience(Enum):
    """Who a message is built for; each audience sees its own view (R2.2, D4)."""

    FIRST = "first"
    SECOND = "second"
    SPECTATOR = "spectator"
    DEVICE = "device"
    """A shared device holding both seats: it sees the hand of the revealed seat only (R7.5)."""


SEAT_AUDIENCES = (Audience.FIRST, Audience.SECOND)


def seats_held(seats: Sequence[Player | None], player_id: str | None) -> list[Seat]:
    """The seats the player ``player_id`` holds: none, one, or both on a shared device."""
    if player_id is None:
        return []
    return [s for s in SEATS if (p := seats[s]) is not None and p.id == player_id]


def audience_of(seats: Sequence[Player | None], player_id: str | None) -> Audience:
    """Who ``player_id`` watches as: their seat, the device holding both, or a spectator."""
    held = seats_held(seats, player_id)
    if len(held) == 2:
        return Audience.DEVICE
    if held:
        return SEAT_AUDIENCES[held[0]]
    return Audience.SPECTATOR
