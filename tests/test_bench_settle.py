"""The load generator opens its window only on a quiet server loop (the soak's
``max_pause_ms``): a pause the instrument caused must not be measured as the server's."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from spectacular_bid.bench import server_driver
from spectacular_bid.bench.server_driver import settle


class Server:
    """``/api/health`` answers: a 200 ms stall just before each of the first ``noisy`` reads."""

    def __init__(self, noisy: int) -> None:
        self.noisy = noisy
        self.reads = 0
        self.now_ms = 1_000_000

    async def health(self) -> dict[str, Any]:
        self.reads += 1
        self.now_ms += 10
        pauses = [{"at_ms": 900_000, "lag_ms": 300}]
        if self.reads <= self.noisy:
            pauses.append({"at_ms": self.now_ms, "lag_ms": 200})
        return {"now_ms": self.now_ms, "pauses": pauses}


@pytest.fixture(autouse=True)
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_driver, "_SETTLE_S", 0.001)
    monkeypatch.setattr(server_driver, "_SETTLE_MAX_S", 0.2)


def test_the_window_waits_while_the_server_reports_fresh_stalls() -> None:
    server = Server(noisy=3)
    asyncio.run(settle(server))
    assert server.reads == 4


def test_an_old_stall_does_not_hold_the_window() -> None:
    server = Server(noisy=0)
    asyncio.run(settle(server))
    assert server.reads == 1


def test_a_server_that_never_quiets_still_gets_its_window() -> None:
    server = Server(noisy=10**9)
    asyncio.run(asyncio.wait_for(settle(server), timeout=5))
    assert server.reads > 1
