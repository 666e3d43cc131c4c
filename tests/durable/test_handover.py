"""Deploys without losing matches (PROTOCOL.md "Several servers on one database"): a real SIGTERM to
the server that runs a match, in the middle of a turn, while a peer lives on the same database and
Redis.

The match goes on at the peer: every socket, on the leaving process (closed with 1012) and on the
peer (told the match moved, 1012 too), reconnects there with ``?since=`` and gets every version
once, in order, with no gap; nothing is aborted; the record shows the hand-over and the resuming
version with its pause, and verifies; and the running seat's time left differs from that of a
clock that never stopped by no more than that recorded pause. With no peer alive, the server
drains as it does alone.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
from contextlib import AsyncExitStack
from pathlib import Path

import httpx
from sqlalchemy import select
from websockets.asyncio.client import connect

from spectacular_bid.service.record_document import parse_document
from spectacular_bid.service.replay import verify
from spectacular_bid.store.models import Server as ServerRow
from spectacular_bid.store.repository import SqlStore

from .conftest import Target
from .live import (
    JSON,
    Seat,
    Server,
    Table,
    Watcher,
    bearer,
    events_by_version,
    guest,
    running_server,
    seen_within,
)
from .test_relay import redis_url as redis_url
from .test_relay import servers, told_how_it_ended

THRESHOLD_MS = 2_000
"""The peer's D5 lag threshold in the test of a hand-over that stood too long."""
CLOCK_SLACK_MS = 3
"""The record's times are read from the wall clock at a version's store, a moment after the
monotonic reading that times it: the comparison allows this much for the two reads."""


async def handed_table(stack: AsyncExitStack, a: Server, b: Server) -> Table:
    """A match made and run on ``a``: Ann's and a spectator's sockets on ``a``, Bo's on ``b``."""
    async with httpx.AsyncClient(base_url=a.url, timeout=10) as on_a:
        ann, bo = await guest(on_a, "Ann"), await guest(on_a, "Bo")
        made = await on_a.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
        assert made.status_code == 201, made.text
        match_id = made.json()["id"]
        joined = await on_a.post(f"/api/matches/{match_id}/join", headers=bearer(bo))
        assert joined.status_code == 200, joined.text
    rng = random.Random(5)
    spectator = Watcher(await connect(a.ws_url(match_id), compression=None))
    seats = (
        Seat(await connect(a.ws_url(match_id, ann), compression=None), rng),
        Seat(await connect(b.ws_url(match_id, bo), compression=None), rng),
    )
    tasks = [asyncio.create_task(spectator.read())]
    tasks += [asyncio.create_task(s.read(s.on_frame)) for s in seats]
    table = Table(a, match_id, (ann, bo), seats, spectator, tasks)
    stack.push_async_callback(table.close)
    return table


async def reconnected(table: Table, server: Server) -> Table:
    """The table's three sockets again, on ``server``, each from its last version."""
    rng = random.Random(6)
    ann, bo = table.seats
    since = {"ann": str(ann.version), "bo": str(bo.version), "spectator": ""}
    since["spectator"] = str(table.spectator.version)
    spectator = Watcher(
        await connect(server.ws_url(table.match_id, since=since["spectator"]), compression=None)
    )
    ann_url = server.ws_url(table.match_id, table.tokens[0], since=since["ann"])
    bo_url = server.ws_url(table.match_id, table.tokens[1], since=since["bo"])
    seats = (
        Seat(await connect(ann_url, compression=None), rng),
        Seat(await connect(bo_url, compression=None), rng),
    )
    for seat in seats:
        seat.acting = False  # until the test has seen the turn the hand-over stood in
    tasks = [asyncio.create_task(spectator.read())]
    tasks += [asyncio.create_task(s.read(s.on_frame)) for s in seats]
    return Table(server, table.match_id, table.tokens, seats, spectator, tasks)


def versions_given(watcher: Watcher) -> list[int]:
    """The versions a socket was given, each once: a state's, and an update's own with those
    of its events (the hand-over's two versions have no event)."""
    given: list[int] = []
    for frame in watcher.frames:
        if frame["type"] == "state":
            given.append(frame["version"])
        elif frame["type"] == "update":
            given.extend(sorted({frame["version"], *(e["version"] for e in frame["events"])}))
    return given


def time_left_ms(clock: JSON, seat: str) -> int:
    left: int = clock["bank_left_ms"][seat]
    return left + (clock["delay_left_ms"] if clock["running"] == seat else 0)


async def test_sigterm_of_the_owner_mid_turn_hands_the_match_to_the_peer(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    async with AsyncExitStack() as stack:
        a, b = await servers(stack, target, tmp_path, redis_url, 2)
        before = await handed_table(stack, a, b)
        await before.pause_mid_round(from_version=6)
        stood_at = before.version()
        running = before.spectator.match["clock"]["running"]
        assert running is not None  # in the middle of a turn: a clock runs

        a.process.send_signal(signal.SIGTERM)
        for watcher in before.everyone:  # on the leaving process, and Bo's on the peer
            await asyncio.wait_for(watcher.ws.wait_closed(), 10)
            assert watcher.ws.close_code == 1012, watcher.ws.close_code
            assert watcher.version == stood_at + 1  # the hand-over version came before the close
        assert await asyncio.to_thread(a.process.wait, 20) == -signal.SIGTERM

        after = await reconnected(before, b)
        stack.push_async_callback(after.close)
        await after.until(lambda: all(w.version >= stood_at + 2 for w in after.everyone))
        await after.until(after.settled)
        assert after.spectator.match["status"] == "active"
        assert after.spectator.match["clock"]["running"] == running  # the same turn goes on
        for seat in after.seats:
            seat.acting = True
            seat.decide()
        await after.until(  # play on
            lambda: after.version() >= stood_at + 6 or after.is_over(), timeout_s=60
        )
        for seat in after.seats:
            seat.acting = False
        await after.until(after.answered)  # a command already sent lands
        await after.until(after.settled)
        ended_at = after.version()
        resigning = after.seats[0]
        if after.spectator.match["status"] == "active":
            await resigning.ws.send(json.dumps({"type": "resign", "version": ended_at}))
            await after.until(lambda: after.is_over() and after.settled(), timeout_s=10)
        final = after.version()
        for old, new in zip(before.everyone, after.everyone, strict=True):
            given = versions_given(old) + versions_given(new)
            assert given == list(range(given[0], final + 1)), given  # no gap, none twice

        async with httpx.AsyncClient(base_url=b.url, timeout=10) as on_b:
            record = (await on_b.get(f"/api/matches/{before.match_id}/record")).json()
    versions = record["versions"]
    assert len(versions) == final
    assert record["match"]["reason"] != "timing_failure"
    assert all(v["command"]["type"] != "abort" for v in versions)
    last, stood, resumed = versions[stood_at - 1], versions[stood_at], versions[stood_at + 1]
    assert stood["command"] == {"type": "hand_over"}
    assert resumed["command"]["type"] == "resume"
    paused_ms = resumed["command"]["paused_ms"]
    assert paused_ms == resumed["wall_ms"] - stood["wall_ms"]
    assert stood["events"] == resumed["events"] == []
    # A clock that never stopped would have run from the last move to the resumption.
    never_stopped = time_left_ms(last["clock"], running) - (resumed["wall_ms"] - last["wall_ms"])
    kept = time_left_ms(resumed["clock"], running)
    assert -CLOCK_SLACK_MS <= kept - never_stopped <= paused_ms + CLOCK_SLACK_MS
    assert time_left_ms(stood["clock"], running) == kept  # it stood while no server ran it
    assert verify(parse_document(record)).versions == final
    for old, new in zip(before.everyone, after.everyone, strict=True):  # no event lost
        seen = {**events_by_version(old), **events_by_version(new)}
        first_state = versions_given(old)[0]  # what came before it came as a whole state
        for version in versions[first_state:]:
            if version["events"]:
                assert seen_within(seen[version["version"]], version["events"]), version
    assert "handed 1 live match(es) to server" in a.log()
    assert "Traceback" not in a.log() + b.log()


async def test_sigterm_with_no_peer_alive_drains_as_alone(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    flags = ("--redis-url", redis_url, "--drain-s", "60", "--join-timeout-ms", "2000")
    async with (
        running_server(target, tmp_path, *flags) as server,
        httpx.AsyncClient(base_url=server.url, timeout=5) as http,
    ):
        ann = await guest(http, "Ann")
        made = await http.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
        assert made.status_code == 201, made.text
        server.process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(server.process.wait, 30) == -signal.SIGTERM
    async with SqlStore.open(target.url) as store:
        header = await store.match(made.json()["id"])
    assert "draining: waiting up to 60 s for 1 live matches to end" in server.log()
    assert "drained: every match has ended" in server.log()
    assert "handed" not in server.log()
    assert header is not None
    assert header.reason == "join_timeout"  # it ended where it was, not handed anywhere


async def test_a_hand_over_that_stood_a_clock_past_the_d5_threshold_is_a_timing_failure(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    """The peer is stopped (SIGSTOP) while the owner hands it the match, and continued only
    after longer than its lag threshold: the clock stood too long, so the match ends aborted as
    a timing failure (D5) instead of going on, and its record still verifies."""
    relay = ("--redis-url", redis_url)
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(running_server(target, tmp_path / "a", *relay))
        threshold = ("--lag-threshold-ms", str(THRESHOLD_MS))
        b = await stack.enter_async_context(
            running_server(target, tmp_path / "b", *relay, *threshold)
        )
        before = await handed_table(stack, a, b)
        await before.pause_mid_round(from_version=6)
        stood_at = before.version()
        b.process.send_signal(signal.SIGSTOP)
        try:
            a.process.send_signal(signal.SIGTERM)
            ann = before.seats[0]
            await asyncio.wait_for(ann.ws.wait_closed(), 10)  # a did not wait for b for ever
            assert ann.ws.close_code == 1012
            await asyncio.sleep(THRESHOLD_MS / 1000 + 0.5)  # the time under test: b stalls past it
        finally:
            b.process.send_signal(signal.SIGCONT)
        assert await asyncio.to_thread(a.process.wait, 20) == -signal.SIGTERM
        ended = await told_how_it_ended(b, before.match_id, before.tokens[0], within_s=10)
        assert ended["match"]["result"] == {"winner": None, "reason": "timing_failure"}
        async with httpx.AsyncClient(base_url=b.url, timeout=10) as on_b:
            record = (await on_b.get(f"/api/matches/{before.match_id}/record")).json()
    commands = [v["command"] for v in record["versions"][stood_at:]]
    assert commands == [{"type": "hand_over"}, {"type": "abort", "reason": "timing_failure"}]
    assert record["match"]["rated"] is False
    assert verify(parse_document(record)).versions == stood_at + 2
    assert "a timing failure" in b.log()


async def test_every_live_match_of_the_owner_is_handed_over_at_once(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    """Two matches, one mid-turn and one waiting for its second player: both go on at the peer,
    each resumed once, the waiting one still open to be joined there."""
    async with AsyncExitStack() as stack:
        a, b = await servers(stack, target, tmp_path, redis_url, 2)
        playing = await handed_table(stack, a, b)
        await playing.pause_mid_round(from_version=4)
        async with httpx.AsyncClient(base_url=a.url, timeout=10) as on_a:
            cy = await guest(on_a, "Cy")
            made = await on_a.post("/api/matches", json={"mode": "invite"}, headers=bearer(cy))
            assert made.status_code == 201, made.text
        waiting_id = made.json()["id"]
        a.process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(a.process.wait, 20) == -signal.SIGTERM
        assert "handed 2 live match(es) to server" in a.log()
        async with httpx.AsyncClient(base_url=b.url, timeout=10) as on_b:
            dee = await guest(on_b, "Dee")
            joined = await on_b.post(f"/api/matches/{waiting_id}/join", headers=bearer(dee))
            assert joined.status_code == 200, joined.text
            assert joined.json()["seat"] == "second"
            for match_id, token in ((playing.match_id, playing.tokens[0]), (waiting_id, cy)):
                read = await on_b.get(f"/api/matches/{match_id}", headers=bearer(token))
                assert read.status_code == 200, read.text
                assert read.json()["match"]["status"] == "active"
    async with SqlStore.open(target.url) as store:
        for match_id in (playing.match_id, waiting_id):
            kinds = [e.command["type"] for e in await store.events(match_id)]
            assert kinds.count("hand_over") == kinds.count("resume") == 1, kinds
            assert kinds.index("resume") == kinds.index("hand_over") + 1


async def owner_pid(target: Target, match_id: str) -> int:
    """The pid of the server process the store names as the match's owner."""
    async with SqlStore.open(target.url) as store:
        owner = await store.owner_of(match_id)
        assert owner is not None
        async with store.engine.connect() as conn:
            host = (
                await conn.execute(select(ServerRow.host).where(ServerRow.id == owner))
            ).scalar()
    assert isinstance(host, str)
    return int(host.rpartition(":")[2])


async def moved_on(table: Table, leaving: Server, to: Server) -> Table:
    """SIGTERM to ``leaving``, which runs the match; the table's sockets again, on ``to``."""
    version = table.version()
    leaving.process.send_signal(signal.SIGTERM)
    for watcher in table.everyone:
        await asyncio.wait_for(watcher.ws.wait_closed(), 10)
        assert watcher.ws.close_code == 1012
    assert await asyncio.to_thread(leaving.process.wait, 20) == -signal.SIGTERM
    assert "handed 1 live match(es) to server" in leaving.log()
    await table.close()
    moved = await reconnected(table, to)
    await moved.until(lambda: moved.version() >= version + 2)
    assert moved.spectator.match["status"] == "active"
    return moved


async def test_a_rolling_deploy_hands_a_match_on_twice_and_its_record_verifies(
    target: Target, tmp_path: Path, redis_url: str
) -> None:
    async with AsyncExitStack() as stack:
        a, b, c = await servers(stack, target, tmp_path, redis_url, 3)
        table = await handed_table(stack, a, b)
        await table.pause_mid_round(from_version=4)
        table = await moved_on(table, a, b)
        stack.push_async_callback(table.close)
        pid = await owner_pid(target, table.match_id)  # b or c: the peer a chose
        runs, last = (b, c) if b.process.pid == pid else (c, b)
        assert runs.process.pid == pid
        table = await moved_on(table, runs, last)
        stack.push_async_callback(table.close)
        ann = table.seats[0]
        await ann.ws.send(json.dumps({"type": "resign", "version": table.version()}))
        await table.until(table.is_over, timeout_s=10)
        async with httpx.AsyncClient(base_url=last.url, timeout=10) as http:
            record = (await http.get(f"/api/matches/{table.match_id}/record")).json()
    kinds = [v["command"]["type"] for v in record["versions"]]
    assert kinds.count("hand_over") == kinds.count("resume") == 2, kinds
    assert record["match"]["reason"] == "resignation"
    assert verify(parse_document(record)).versions == len(kinds)
