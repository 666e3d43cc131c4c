"""The server's own garbage-collection rounds (OPERATIONS.md "Under load and abuse"): what survives
is frozen so no collection walks it again, and an ended match leaves no reference cycle that
freezing would keep alive."""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Iterator
from functools import partial

import httpx
import pytest

from service.replayed import StoredMatches
from spectacular_bid.bench.server import longest_collections
from spectacular_bid.bench.server_process import long_collection_lines
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.state import MatchState
from spectacular_bid.web import collector as collector_module
from spectacular_bid.web.app import create_app
from spectacular_bid.web.collector import LONG_COLLECTION_LOG, NEVER, Collector
from spectacular_bid.web.room import Room
from spectacular_bid.web.settings import WebSettings
from spectacular_bid.web.subscriber import Subscriber
from spectacular_bid.web.ws import MatchSocket
from waiting import until

from .asgi_socket import AsgiSocket
from .guests import guest, joined_match

OURS = (MatchActor, MatchState, Room, Subscriber, MatchSocket)


@pytest.fixture
def running() -> Iterator[Collector]:
    """A collector started on the test's loop, stopped (and the process restored) after."""
    saved = gc.get_threshold()
    collector = Collector(lambda: True)
    yield collector
    gc.set_threshold(*saved)
    gc.unfreeze()


async def test_a_round_freezes_the_survivors_so_no_collection_walks_them(
    running: Collector,
) -> None:
    running.start()
    try:
        assert gc.get_threshold()[2] == NEVER  # no automatic full collection
        kept = [{"n": i, "more": [i]} for i in range(20_000)]
        before = len(gc.get_objects())
        running.round()
        after = len(gc.get_objects())
        assert before >= 40_000 > after
        assert gc.get_freeze_count() >= 40_000
        del kept  # frozen objects are still freed when nothing refers to them
        assert len(gc.get_objects()) == after
        assert running.rounds == 1
        assert running.max_pause_ms > 0
    finally:
        await running.stop()
    assert gc.get_freeze_count() == 0


async def test_a_sweep_waits_for_a_moment_when_no_clock_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(collector_module, "FREEZE_EVERY_S", 0.01)
    monkeypatch.setattr(collector_module, "SWEEP_EVERY_S", 0.0)
    clocks = [True]
    collector = Collector(lambda: clocks[0])
    collector.start()
    try:
        await until(lambda: collector.rounds >= 3, what="three rounds")
        assert collector.sweeps == 0  # not while a clock runs
        clocks[0] = False
        await until(lambda: collector.sweeps > 0, what="a sweep")
    finally:
        await collector.stop()


def evicted(service: MatchService, match_id: str) -> bool:
    """Whether ``match_id`` left memory; ``service`` is passed, not closed over, so that the
    test can drop every reference to its app afterwards."""
    return not service.holds(match_id)


@pytest.mark.parametrize("refused_first", [False, True], ids=["played", "refused-then-played"])
async def test_an_ended_match_and_its_sockets_leave_no_reference_cycle(
    settings: WebSettings, stored_matches: StoredMatches, refused_first: bool
) -> None:
    # A refused command once left its socket in a cycle (the refusal's traceback held the
    # awaiting frame, which held the future, which held the refusal): under load the collector
    # never sweeps, so a one-hour soak kept every such socket (OPERATIONS.md "Under load and
    # abuse").
    app = create_app(settings.model_copy(update={"finished_ttl_ms": 0}))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            ann, bo = await guest(client, "Ann"), await guest(client, "Bo")
            match_id = await joined_match(client, ann, bo)
            path = f"/ws/matches/{match_id}"
            async with (
                AsgiSocket(app, path, query={"token": ann}) as first,
                AsgiSocket(app, path, query={"token": bo}),
                AsgiSocket(app, path),
            ):
                await first.receive_until("presence")
                if refused_first:
                    await first.send_json({"type": "resign", "version": 99, "id": "stale"})
                    error = await first.receive_until("error")
                    assert error["id"] == "stale"
                await first.send_json({"type": "resign", "version": 1})
                await first.receive_until("ack")
            # The finished actor is evicted (a TTL of 0).
            await until(partial(evicted, app.state.service, match_id), what="evicted")
    # The replay check holds every actor to compare it with its record: not this test's.
    stored_matches.actors.clear()
    del app, transport, client, first
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage if isinstance(o, OURS)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []


async def test_a_long_collection_is_logged_saying_what_it_was(
    running: Collector, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A collection past ``LONG_MS`` is a pause charged to every running clock: the warning
    says whether it was a round, a sweep or automatic, so that a benchmark's long pause can be
    told apart afterwards (``specbid bench server`` lists these lines, longest first)."""
    monkeypatch.setattr(collector_module, "LONG_MS", -1.0)  # every collection is "long" here
    running.start()
    gc.disable()  # only the collections made here: none started by an allocation meanwhile
    try:
        with caplog.at_level(logging.WARNING, logger=collector_module.__name__):
            running.round()
            running.sweep()
            gc.collect(0)
    finally:
        gc.enable()
        await running.stop()
    said = [r.getMessage() for r in caplog.records if r.name == collector_module.__name__]
    assert [line.split(": ", 1)[1].split(",")[:2] for line in said] == [
        ["round", " generation 2"],
        ["sweep", " generation 2"],
        ["automatic", " generation 0"],
    ]
    assert all(line.startswith(LONG_COLLECTION_LOG) for line in said)
    assert all(" ms of CPU): " in line for line in said)
    assert all(line.endswith(f"on thread {threading.current_thread().name}") for line in said)
    # What the benchmark reads out of a server's log: the lines, whatever their prefix, and
    # the longest first.
    found = long_collection_lines(caplog.text)
    assert [line.split(": ", 1)[1].split(",")[0] for line in found] == [
        "round",
        "sweep",
        "automatic",
    ]
    made_up = [f"{LONG_COLLECTION_LOG} {ms} ms: round" for ms in (60, 229, 75, 51, 140, 99)]
    assert longest_collections(made_up) == [made_up[i] for i in (1, 4, 5, 2, 0)]


async def test_a_collection_on_another_thread_during_a_round_is_automatic(
    running: Collector, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The round's label belongs to the loop's thread: a collection that another thread (the
    store's writer) started is automatic, whatever the loop is doing."""
    monkeypatch.setattr(collector_module, "LONG_MS", -1.0)
    running.start()
    gc.disable()
    try:
        with caplog.at_level(logging.WARNING, logger=collector_module.__name__):
            running._ours = ("round", threading.get_ident())
            worker = threading.Thread(target=gc.collect, args=(1,), name="writer")
            worker.start()
            worker.join()
            running._ours = None
    finally:
        gc.enable()
        await running.stop()
    said = [r.getMessage() for r in caplog.records if r.name == collector_module.__name__]
    assert len(said) == 1
    assert ": automatic, generation 1," in said[0]
    assert said[0].endswith("on thread writer")
