"""A match's recent versions, for a socket that comes back (lila-ws ``History``, PROTOCOL.md
"Reconnecting").

A bounded window of per-version frames: :meth:`History.since` gives what a client that saw
version ``v`` missed, or None when it is further behind than the window (or ahead of the match,
or the window began after it): that client needs a full state instead (a resync).
"""

from __future__ import annotations

from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class History(Generic[T]):
    def __init__(self, limit: int, version: int = 0) -> None:
        if limit < 0:
            raise ValueError(f"a history keeps at least 0 versions, not {limit!r}")
        self._items: deque[tuple[int, T]] = deque(maxlen=limit or None)
        self._limit = limit
        self.version = version
        """The newest version added (or the match's version when the window began)."""

    def add(self, version: int, item: T) -> None:
        if version <= self.version:
            raise ValueError(f"version {version} is not after {self.version}")
        self.version = version
        if self._limit:
            self._items.append((version, item))

    def since(self, version: int) -> list[T] | None:
        """The items after ``version``, oldest first, or None: resync."""
        if version == self.version:
            return []
        if not 0 <= version < self.version:
            return None
        oldest = self._items[0][0] if self._items else self.version + 1
        if version + 1 < oldest:
            return None
        return [item for v, item in self._items if v > version]
