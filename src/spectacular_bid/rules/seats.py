"""The two seats of a duel and a pair of values, one per seat (scalachess ``ByColor``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import IntEnum
from typing import Generic, TypeVar

T = TypeVar("T")
U = TypeVar("U")


class Seat(IntEnum):
    FIRST = 0
    SECOND = 1

    @property
    def other(self) -> Seat:
        return SEATS[1 - self]

    def __str__(self) -> str:
        return self.name.lower()


SEATS: tuple[Seat, Seat] = (Seat.FIRST, Seat.SECOND)


@dataclass(frozen=True, slots=True)
class BySeat(Generic[T]):
    """One value for each seat, indexed by :class:`Seat`."""

    first: T
    second: T

    def __getitem__(self, seat: Seat | int) -> T:
        return self.second if seat else self.first

    def __iter__(self) -> Iterator[T]:
        yield self.first
        yield self.second

    def map(self, fn: Callable[[T], U]) -> BySeat[U]:
        return BySeat(fn(self.first), fn(self.second))

    def replace(self, seat: Seat | int, value: T) -> BySeat[T]:
        return BySeat(self.first, value) if seat else BySeat(value, self.second)
