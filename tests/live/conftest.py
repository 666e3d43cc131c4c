"""Real server processes for the live tests, and a check that none logged a traceback.

Each test module starts its own server (about a second) and stops it after its last test; every
test makes its own guests and matches. Three configurations:

- ``server``: the default limits (10 messages/s, bursts of 20);
- ``fast_server``: the same with the rate limit raised, for the complete match, whose players
  answer within milliseconds (people stay far below the default limit);
- ``timers_server``: a short grace period and join timeout (D3), so those timers fire in a test.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from .server import GRACE_MS, JOIN_TIMEOUT_MS, STARTED, LiveServer, assert_clean_log, serve
from .wire import OPENED


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from serve(tmp_path_factory.mktemp("server"))


@pytest.fixture(scope="module")
def fast_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from serve(
        tmp_path_factory.mktemp("fast-server"),
        "--rate-limit-per-s",
        "10000",
        "--rate-burst",
        "10000",
    )


@pytest.fixture(scope="module")
def timers_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from serve(
        tmp_path_factory.mktemp("timers-server"),
        "--grace-ms",
        str(GRACE_MS),
        "--join-timeout-ms",
        str(JOIN_TIMEOUT_MS),
    )


@pytest.fixture(autouse=True)
def _no_server_traceback() -> Iterator[None]:
    """A server that logged an exception during a test failed it, whatever the client saw."""
    for started in STARTED:
        started.new_log()
    yield
    for started in STARTED:
        assert_clean_log(started.new_log())


@pytest.fixture(autouse=True)
async def _closed_clients() -> AsyncIterator[None]:
    """Close what a test left open (it failed half-way): no socket outlives its test."""
    yield
    failures: list[BaseException] = []
    while OPENED:
        try:
            await OPENED.pop().close()
        except Exception as exc:
            failures.append(exc)
    if failures:
        raise failures[0]
