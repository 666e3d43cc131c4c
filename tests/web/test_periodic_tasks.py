"""No periodic task dies in silence (``service.periodic``; OPERATIONS.md, "Running it for real": a
failing task): each of the server's loops is given the raw errors a database driver raises when
PostgreSQL closes a connection under it, and a plain bug, and its next tick works; each failure
is logged with the task's name and counted in ``/metrics``; a task failing again and again
makes ``/readyz`` name it."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import httpx
import pytest
from sqlalchemy import exc as sa_exc

from spectacular_bid.bus.redis import RedisBus
from spectacular_bid.service.handover import Handover
from spectacular_bid.service.live_cap import LiveMatchCap
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.periodic import FAILING_AFTER, Periodic, TaskHealth
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.web.app import create_app
from spectacular_bid.web.collector import Collector
from spectacular_bid.web.metrics import Metrics
from spectacular_bid.web.relay import Relay
from spectacular_bid.web.relay_owner import OwnerSide
from spectacular_bid.web.remote_room import RemoteRooms
from spectacular_bid.web.room import RoomSettings
from spectacular_bid.web.settings import WebSettings
from spectacular_bid.web.shared_lobby import SharedLobby

from .test_relay_calls import MemoryBus


def raw_errors() -> list[Exception]:
    """What a dropped PostgreSQL connection raises through SQLAlchemy and asyncpg, and a bug."""
    closed = Exception("connection is closed")
    return [
        sa_exc.InterfaceError("SELECT 1", {}, closed),
        sa_exc.InternalError("SELECT 1", {}, Exception("cannot perform operation")),
        asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        RuntimeError("a bug"),
    ]


ERRORS = raw_errors()
IDS = [type(e).__name__ for e in ERRORS]


class Faulty:
    """``call`` that raises ``error`` on its first ``times`` calls, then works; ``healed`` is
    set at the first call that works after a failure."""

    def __init__(self, call: Callable[..., Any], error: Exception, times: int = 1) -> None:
        self.call = call
        self.error = error
        self.left = times
        self.healed = asyncio.Event()

    def _next(self) -> None:
        if self.left > 0:
            self.left -= 1
            raise self.error

    def sync(self, *args: Any, **kwargs: Any) -> Any:
        self._next()
        result = self.call(*args, **kwargs)
        self.healed.set()
        return result

    async def coro(self, *args: Any, **kwargs: Any) -> Any:
        self._next()
        result = await self.call(*args, **kwargs)
        self.healed.set()
        return result


async def healed(faulty: Faulty, timeout_s: float = 10.0) -> None:
    async with asyncio.timeout(timeout_s):
        await faulty.healed.wait()


def fast_service() -> MatchService:
    settings = ServiceSettings(orphan_scan_ms=10, lag_tick_ms=10)
    return MatchService(InMemoryStore(), settings)


@pytest.mark.parametrize("error", ERRORS, ids=IDS)
async def test_the_failover_scan_runs_again_after_a_driver_error(error: Exception) -> None:
    service = fast_service()
    store = service.store
    await service.start()  # its start-up claim, then the scans
    faulty = Faulty(store.claim_orphans, error)
    store.claim_orphans = faulty.coro  # type: ignore[method-assign]
    try:
        await healed(faulty)
    finally:
        await service.stop()
    assert service.tasks.failures == {"failover": 1}
    assert service.tasks.streaks == {}


@pytest.mark.parametrize("error", ERRORS, ids=IDS)
async def test_the_handover_adoption_runs_again_after_a_driver_error(error: Exception) -> None:
    service = fast_service()
    store = service.store
    faulty = Faulty(store.owned_matches, error)
    store.owned_matches = faulty.coro  # type: ignore[method-assign]
    handover = Handover(service)
    handover.start(scan_ms=10)
    try:
        await healed(faulty)
    finally:
        await handover.stop()
    assert service.tasks.failures == {"handover-adoption": 1}


@pytest.mark.parametrize("error", ERRORS, ids=IDS)
async def test_the_lag_monitor_runs_again_after_an_error(error: Exception) -> None:
    service = fast_service()
    faulty = Faulty(service.admission.on_tick, error)
    service.admission.on_tick = faulty.sync  # type: ignore[method-assign]
    await service.start()
    try:
        await healed(faulty)
        ticked = service.lag.last_tick_ms
        async with asyncio.timeout(10):  # and it goes on ticking
            while service.lag.last_tick_ms == ticked:
                await asyncio.sleep(0.01)
    finally:
        await service.stop()
    assert service.tasks.failures == {"lag-monitor": 1}


@pytest.mark.parametrize("error", ERRORS, ids=IDS)
async def test_the_collector_runs_again_after_an_error(error: Exception) -> None:
    tasks = TaskHealth()
    collector = Collector(lambda: True, tasks)
    faulty = Faulty(collector.round, error)
    collector.round = faulty.sync  # type: ignore[method-assign]
    collector.start()
    try:
        await healed(faulty)
    finally:
        await collector.stop()
    assert tasks.failures == {"collector": 1}


class Bus:
    """A bus whose puts the test controls."""

    is_up = True

    def __init__(self) -> None:
        self.puts: list[str] = []

    async def put(self, key: str, text: str, ttl_ms: int) -> None:
        self.puts.append(key)


class Rooms:
    def spectators(self, match_id: str) -> int:
        return 0


@pytest.mark.parametrize("error", ERRORS, ids=IDS)
async def test_the_lobby_share_runs_again_after_an_error(error: Exception) -> None:
    service = fast_service()
    bus = Bus()
    faulty = Faulty(bus.put, error)
    bus.put = faulty.coro  # type: ignore[method-assign]
    lobby = SharedLobby(bus, "me", service, Rooms())  # type: ignore[arg-type]
    lobby.start()  # the first share fails at once; the next, a second later, works
    try:
        await healed(faulty)
    finally:
        await lobby.close()
    assert bus.puts == ["specbid:lobby:me"]
    assert service.tasks.failures == {"lobby-share": 1}


@pytest.mark.parametrize("error", ERRORS, ids=IDS)
def test_a_relay_listener_survives_its_handler_and_the_next_message_is_handled(
    error: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    tasks = TaskHealth()
    bus = RedisBus("redis://127.0.0.1:1/0")  # never connected: messages are pushed by hand
    bus.on_failure = lambda task, _exc: tasks.counted(task)
    seen: list[str] = []
    faulty = Faulty(seen.append, error)
    bus._handlers["ch"] = faulty.sync
    with caplog.at_level(logging.ERROR):
        bus._on_push(["message", "ch", "one"])
    bus._on_push(["message", "ch", "two"])
    assert seen == ["two"]
    assert tasks.failures == {"relay-listener": 1}
    assert "the handler of ch failed" in caplog.text


# -- the runner: logged once with its name, counted, reported when it keeps failing ----------


async def test_a_failure_is_logged_with_the_task_name_and_counted_in_metrics(
    caplog: pytest.LogCaptureFixture,
) -> None:
    metrics = Metrics()
    tasks = TaskHealth(on_failure=metrics.task_failed)
    runs: list[int] = []

    async def body() -> None:
        runs.append(len(runs))
        if len(runs) <= 3:
            raise ERRORS[len(runs) - 1]

    periodic = Periodic("adopt-test", 1.0, body, tasks)
    with caplog.at_level(logging.WARNING):
        for _ in range(4):
            await periodic.run_once()
    failures = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [r.getMessage().split(":")[0] for r in failures] == [
        "task adopt-test failed",
        "task adopt-test failed again (2 in a row)",
        "task adopt-test failed again (3 in a row)",
    ]
    assert failures[0].exc_info is not None  # the first of a streak with its traceback
    assert all(r.exc_info is None for r in failures[1:])
    assert "task adopt-test works again after 3 failure(s)" in caplog.text
    exposition = metrics.exposition().decode()
    assert 'specbid_task_failures_total{task="adopt-test"} 3.0' in exposition


async def test_a_failure_for_a_match_names_the_match(caplog: pytest.LogCaptureFixture) -> None:
    tasks = TaskHealth()
    with caplog.at_level(logging.ERROR):
        tasks.failed("handover-adoption", ERRORS[0], "m123")
    assert "task handover-adoption failed for match m123" in caplog.text


async def test_a_task_that_keeps_failing_makes_the_server_unready(tmp_path: Any) -> None:
    app = create_app(WebSettings(static_dir=tmp_path / "none", data_dir=tmp_path))
    service = app.state.service
    assert isinstance(service, MatchService)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            for _ in range(FAILING_AFTER - 1):
                service.tasks.failed("failover", ERRORS[0])
            assert (await http.get("/readyz")).status_code == 200  # a blip is no reason
            service.tasks.failed("failover", ERRORS[0])
            response = await http.get("/readyz")
            assert response.status_code == 503
            assert response.json()["reasons"] == [
                f"the periodic task failover failed {FAILING_AFTER} times in a row"
            ]
            metrics = (await http.get("/metrics")).text
            assert f'specbid_task_failures_total{{task="failover"}} {FAILING_AFTER}.0' in metrics
            service.tasks.worked("failover")
            assert (await http.get("/readyz")).status_code == 200


async def test_a_stopped_task_runs_no_more() -> None:
    runs: list[float] = []

    async def body() -> None:
        runs.append(time.monotonic())

    periodic = Periodic("t", 0.001, body, TaskHealth())
    periodic.start()
    async with asyncio.timeout(10):
        while len(runs) < 3:
            await asyncio.sleep(0.001)
    await periodic.stop()
    count = len(runs)
    await asyncio.sleep(0)
    assert len(runs) == count
    assert not periodic.is_running


def test_a_periodic_task_needs_a_positive_interval() -> None:
    async def body() -> None:
        pass

    with pytest.raises(ValueError, match="every > 0 s"):
        Periodic("t", 0, body, TaskHealth())


class Feeds:
    """The owner's rooms with relayed sockets: none, after ``faulty``'s failures."""

    def __init__(self, error: Exception) -> None:
        self.faulty = Faulty(lambda: [], error)
        self.with_feeds = self.faulty.sync


@pytest.mark.parametrize("error", ERRORS, ids=IDS)
async def test_the_relay_sweep_runs_again_after_an_error(error: Exception) -> None:
    service = fast_service()
    rooms = Feeds(error)
    side = OwnerSide(Relay(MemoryBus(), "me", service.now_ms), service, rooms)  # type: ignore[arg-type]
    side._sweeper.every_s = 0.01
    side.start()
    try:
        await healed(rooms.faulty)
    finally:
        await side.close()
    assert service.tasks.failures == {"relay-sweep": 1}


class FlakyBus(MemoryBus):
    """A bus whose state cannot be read until ``faulty`` has failed."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.faulty = Faulty(lambda: False, error)

    @property
    def is_up(self) -> bool:  # type: ignore[override]
        up: bool = self.faulty.sync()
        return up

    def on_reconnect(self, callback: Callable[[], None]) -> None:
        pass


@pytest.mark.parametrize("error", ERRORS, ids=IDS)
async def test_the_relay_hold_runs_again_after_an_error(error: Exception) -> None:
    tasks = TaskHealth()
    bus = FlakyBus(error)
    relay = Relay(bus, "me", lambda: 0)  # type: ignore[arg-type]
    remote = RemoteRooms(relay, RoomSettings(), tasks=tasks)
    remote._holder.every_s = 0.01
    remote.start()
    try:
        await healed(bus.faulty)
    finally:
        await remote.close()
    assert tasks.failures == {"relay-hold": 1}


@pytest.mark.parametrize("error", ERRORS, ids=IDS)
async def test_the_capacity_estimate_runs_again_after_an_error(error: Exception) -> None:
    service = fast_service()
    faulty = Faulty(lambda: 1_000, error)
    service.admission.cap = LiveMatchCap(estimate=faulty.sync, every_s=0.01)
    await service.start()
    try:
        async with asyncio.timeout(10):  # the estimate made after the failure is the cap
            while service.admission.cap.value is None:
                await asyncio.sleep(0.01)
    finally:
        await service.stop()
    assert service.admission.cap.value == 1_000
    assert service.tasks.failures == {"capacity": 1}
