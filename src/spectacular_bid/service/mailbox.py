"""A queue with a single reader: a match actor's mailbox, a socket's outgoing texts (OPERATIONS.md
"Under load and abuse").

``asyncio.Queue`` is made for many consumers and for producers that wait: three deques and an
``Event`` (a fourth) each, about 3 KiB before anything is queued, for every live match and every
open socket. Here one task reads (the actor, the socket's sender) and producers never wait (the
actor's mailbox is unbounded, the room drops a socket that falls behind instead), so a deque and
at most one waiting future do the same job.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class Mailbox(Generic[T]):
    """First in, first out; :meth:`get` is awaited by one task at a time.

    The deque is made when an item arrives and let go when the last is taken: an empty deque
    is about 0.7 KiB, and most mailboxes are empty most of the time (an idle socket, a match
    between two commands).
    """

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[T] | None = None
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: T) -> None:
        if self._items is None:
            self._items = deque()
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def get_nowait(self) -> T:
        """The oldest item; ``IndexError`` when there is none."""
        items = self._items
        if not items:
            raise IndexError("the mailbox is empty")
        item = items.popleft()
        if not items:
            self._items = None
        return item

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items) if self._items else 0

    async def get(self) -> T:
        while not self._items:
            if self._waiter is not None:
                raise RuntimeError("a Mailbox has one reader")
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self.get_nowait()
