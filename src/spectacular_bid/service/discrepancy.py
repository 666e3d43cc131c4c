"""How a record differs from its replay: the first discrepancy, named by place and field."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

_NOTHING: Final = "(nothing)"


class _Missing:
    def __repr__(self) -> str:
        return _NOTHING


MISSING: Final = _Missing()
"""Stands for a value one side has and the other lacks."""


@dataclass(frozen=True, slots=True)
class Discrepancy:
    """The first place a record differs from its replay: ``where`` (``version 12``, ``round 2``,
    ``match``), the ``field`` within it, what the replay expected and what the record holds."""

    where: str
    field: str
    expected: object
    found: object

    def __str__(self) -> str:
        return f"{self.where}: {self.field}: expected {self.expected_text}, found {self.found_text}"

    @property
    def expected_text(self) -> str:
        """What the replay expected, as a person reads it (at most 200 characters)."""
        return _show(self.expected)

    @property
    def found_text(self) -> str:
        return _show(self.found)


def _show(value: object) -> str:
    if value is MISSING:
        return _NOTHING
    text = repr(value) if isinstance(value, str) else compact(value)
    return text if len(text) <= 200 else text[:197] + "..."


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class RecordMismatchError(ValueError):
    """A record the engine does not reproduce; ``discrepancy`` is the first difference."""

    def __init__(self, discrepancy: Discrepancy) -> None:
        super().__init__(str(discrepancy))
        self.discrepancy = discrepancy

    @classmethod
    def of(cls, where: str, field: str, expected: object, found: object) -> RecordMismatchError:
        return cls(Discrepancy(where, field, expected, found))


def first_difference(expected: object, found: object, path: str) -> tuple[str, object, object]:
    """The path of the first value that differs between two JSON values, and both values there;
    ``("", …)`` is never returned for equal values — call only when they differ or to check."""
    if isinstance(expected, dict) and isinstance(found, dict):
        for key, value in expected.items():
            if key not in found:
                return f"{path}.{key}", value, MISSING
            if _differs(value, found[key]):
                return first_difference(value, found[key], f"{path}.{key}")
        for key, value in found.items():
            if key not in expected:
                return f"{path}.{key}", MISSING, value
    elif isinstance(expected, list) and isinstance(found, list):
        for i in range(max(len(expected), len(found))):
            mine = expected[i] if i < len(expected) else MISSING
            theirs = found[i] if i < len(found) else MISSING
            if mine is MISSING or theirs is MISSING or _differs(mine, theirs):
                if mine is MISSING or theirs is MISSING:
                    return f"{path}[{i}]", mine, theirs
                return first_difference(mine, theirs, f"{path}[{i}]")
    return path, expected, found


def _differs(a: object, b: object) -> bool:
    """JSON inequality that tells ``true`` from ``1`` (Python's ``==`` does not)."""
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return _canonical(a) != _canonical(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is not b
    return type(a) is not type(b) or bool(a != b)


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)


def check(where: str, field: str, expected: object, found: object) -> None:
    if _differs(expected, found):
        path, mine, theirs = first_difference(expected, found, field)
        raise RecordMismatchError(Discrepancy(where, path, mine, theirs))
