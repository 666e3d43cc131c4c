"""Waiting in a test on the condition itself, never on a guessed sleep.

The suite runs on a shared, loaded machine: a wait is generous (it fails only when the condition
never comes) and polls often (it returns as soon as the condition holds).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable

POLL_S = 0.005
"""How often a condition is read again."""

WITHIN_S = 30.0
"""How long a condition may take before the test fails: far longer than any should."""


async def until(
    condition: Callable[[], object | Awaitable[object]],
    within_s: float = WITHIN_S,
    what: str = "the condition",
) -> float:
    """Let the event loop run until ``condition()`` is true (awaited when it is a coroutine, as
    a request is); the seconds that took."""
    started = time.monotonic()
    while not await _read(condition):
        if time.monotonic() - started > within_s:
            raise AssertionError(f"{what}: still false after {within_s} s")
        await asyncio.sleep(POLL_S)
    return time.monotonic() - started


async def _read(condition: Callable[[], object | Awaitable[object]]) -> object:
    value = condition()
    return await value if inspect.isawaitable(value) else value


def until_blocking(
    condition: Callable[[], object], within_s: float = WITHIN_S, what: str = "the condition"
) -> float:
    """:func:`until` for a test that has no event loop (the condition runs in another thread
    or process)."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > within_s:
            raise AssertionError(f"{what}: still false after {within_s} s")
        time.sleep(POLL_S)
    return time.monotonic() - started
