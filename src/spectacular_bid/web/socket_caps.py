"""How many match sockets one client address and one guest may hold open (PROTOCOL.md "Limits and
close codes").

Every socket costs the server memory and a share of every broadcast of its match, so a single
client must not open thousands: 2,000 anonymous sockets from one address once grew the server by
114 MiB and delayed the real players' commands by seconds. A socket over either cap is closed
with 1008 and a reason that names the cap, before it is subscribed to anything.
"""

from __future__ import annotations


class SocketCaps:
    """Open sockets counted per address and per guest; :meth:`open` takes a place or refuses."""

    def __init__(self, per_address: int, per_guest: int) -> None:
        if per_address < 1 or per_guest < 1:
            raise ValueError(
                f"need per_address >= 1 and per_guest >= 1, got {per_address!r}, {per_guest!r}"
            )
        self.per_address = per_address
        self.per_guest = per_guest
        self._addresses: dict[str, int] = {}
        self._guests: dict[str, int] = {}
        self.open_sockets = 0

    def open(self, address: str | None, guest_id: str | None) -> str | None:
        """Count one more socket and return None, or return why it is refused (nothing is
        counted then)."""
        if address is not None and self._addresses.get(address, 0) >= self.per_address:
            return f"too many sockets from one address (at most {self.per_address})"
        if guest_id is not None and self._guests.get(guest_id, 0) >= self.per_guest:
            return f"too many sockets for one guest (at most {self.per_guest})"
        self.open_sockets += 1
        if address is not None:
            self._addresses[address] = self._addresses.get(address, 0) + 1
        if guest_id is not None:
            self._guests[guest_id] = self._guests.get(guest_id, 0) + 1
        return None

    def close(self, address: str | None, guest_id: str | None) -> None:
        """A socket counted by :meth:`open` has closed."""
        self.open_sockets -= 1
        _release(self._addresses, address)
        _release(self._guests, guest_id)


def _release(counts: dict[str, int], key: str | None) -> None:
    if key is None:
        return
    left = counts.get(key, 0) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)
