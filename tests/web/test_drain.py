"""Draining before a stop (PROTOCOL.md "Probes and metrics"), in-process: the first signal drains,
the drain ends when the live matches have or when its time is up, and a second signal stops at once.
``tests/durable/test_drain.py`` sends a real SIGTERM to a real server."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator

import pytest
import uvicorn

from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.ports import MatchMode, Player
from spectacular_bid.web.app import create_app
from spectacular_bid.web.drain import DrainingServer, drain
from spectacular_bid.web.settings import WebSettings
from waiting import until

ANN = Player("player-ann", "Ann")


@pytest.fixture
async def service(settings: WebSettings) -> AsyncIterator[MatchService]:
    app = create_app(settings, InMemoryStore())
    async with app.router.lifespan_context(app):
        service = app.state.service
        assert isinstance(service, MatchService)
        yield service


def server(service: MatchService, drain_s: float) -> DrainingServer:
    # log_config=None: configuring logging is the server process's business, not a test's.
    return DrainingServer(uvicorn.Config("never:loaded", log_config=None), service, drain_s)


async def test_without_a_drain_a_signal_stops_at_once(service: MatchService) -> None:
    stopping = server(service, 0)
    stopping.handle_exit(signal.SIGTERM, None)
    assert stopping.should_exit


async def test_with_nothing_live_the_drain_ends_at_once(service: MatchService) -> None:
    stopping = server(service, 300)
    stopping.handle_exit(signal.SIGTERM, None)
    assert not stopping.should_exit  # the signal handler only notes it
    assert await stopping.on_tick(1) is False
    assert service.admission.draining
    await until(lambda: stopping.should_exit, what="the drain ended")
    assert await stopping.on_tick(2) is True


async def test_a_live_match_holds_the_drain_until_a_second_signal(
    service: MatchService,
) -> None:
    await service.create_match(ANN, MatchMode.INVITE)
    stopping = server(service, 300)
    stopping.handle_exit(signal.SIGTERM, None)
    await stopping.on_tick(1)
    await asyncio.sleep(0.2)  # time passes with a match live: what is under test is the wait
    assert not stopping.should_exit  # the match is still waiting for its second seat
    assert service.live_count() == 1
    stopping.handle_exit(signal.SIGTERM, None)
    assert stopping.should_exit


async def test_the_drain_gives_up_when_its_time_is_up(service: MatchService) -> None:
    await service.create_match(ANN, MatchMode.INVITE)
    started = time.monotonic()
    assert await drain(service, 0.2, lambda: False, poll_s=0.05) == 1
    assert 0.2 <= time.monotonic() - started < 1.0
    assert service.admission.draining


async def test_the_drain_ends_when_the_last_match_does(settings: WebSettings) -> None:
    app = create_app(settings.model_copy(update={"join_timeout_ms": 300}), InMemoryStore())
    async with app.router.lifespan_context(app):
        service = app.state.service
        assert isinstance(service, MatchService)
        await service.create_match(ANN, MatchMode.INVITE)
        started = time.monotonic()
        # Nobody joins: the join timeout (D3) ends the match, and with it the drain.
        assert await drain(service, 30, lambda: False, poll_s=0.05) == 0
        assert 0.2 <= time.monotonic() - started < 5
        assert service.live_count() == 0
