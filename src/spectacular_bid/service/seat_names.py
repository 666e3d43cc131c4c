"""The names of the two people at a shared device.

On a shared device one guest holds both seats (R7.5: the device hands over between them), so the
seats' player is one and the same; its creator may type a name for each of the two people who
play. Those names are the seats' names wherever the match is shown — its match object, the lobby,
the hand-over screen, its record and its replay — while the seats' player stays the device's
guest (its audience, its profile, its results).

They are kept in the match header's settings under :data:`SEAT_NAMES`, so that every state
rebuilt from the store (an ended match, a match handed to a peer, one ended after a crash)
has them; a record document names its seats' players with them instead (its settings are the
time control and the timeouts only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from spectacular_bid.service.accounts import name_key
from spectacular_bid.service.guests import DisplayNameError, clean_name

SEAT_NAMES: Final = "seat_names"
"""The header settings key of a shared-device match's two names, ``[first, second]``."""

SeatNames = tuple[str, str]


def checked_names(first: str, second: str) -> SeatNames:
    """Two display names (``guests.clean_name``) that differ once folded as names are at login;
    raise :class:`~spectacular_bid.service.guests.DisplayNameError` saying why not."""
    a, b = clean_name(first), clean_name(second)
    if name_key(a) == name_key(b):
        raise DisplayNameError(f"the two players need different names, not {a!r} twice")
    return a, b


def names_in(settings: object) -> SeatNames | None:
    """The names a header's settings keep, or None (none typed, or not a shared match's)."""
    if not isinstance(settings, Mapping):
        return None
    kept = settings.get(SEAT_NAMES)
    if isinstance(kept, list | tuple) and len(kept) == 2 and all(isinstance(n, str) for n in kept):
        return kept[0], kept[1]
    return None


def names_setting(names: SeatNames | None) -> dict[str, list[str]]:
    """What a header's settings keep of ``names``: nothing when none were typed."""
    return {} if names is None else {SEAT_NAMES: list(names)}
