"""``specbid bench server`` end to end at a tiny size: its own server process, real sockets, and a
report whose measurements are real (no timing thresholds: those live in the benchmark's figures).

The time-out matches must flag at or after their deadline (R7.7, D6: ``early_flags`` is 0), and
the played matches must not be ended by the service (no loop stall, D5).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from durable.conftest import TEST_DATABASE_URL, Target, create_target, drop_target, new_target
from spectacular_bid.bench import server as bench_server
from spectacular_bid.bench.capacity import MIN_CAPACITY
from spectacular_bid.bench.server_driver import Placement


def test_bench_server_measures_commands_latency_and_flags() -> None:
    report = bench_server.run(matches=6, seconds=4.0, think_ms=(50, 200), timeout_matches=3)
    assert report["benchmark"] == "server"
    assert report["processes"] == 1
    assert report["placement"] is None
    assert isinstance(report["commands"], int)
    assert report["commands"] > 0
    assert isinstance(report["latency_samples"], int)
    assert report["latency_samples"] > 0
    p50, p99 = report["p50_latency_ms"], report["p99_latency_ms"]
    assert isinstance(p50, float)
    assert isinstance(p99, float)
    assert 0 < p50 <= p99
    assert report["flags_measured"] == 3
    assert report["early_flags"] == 0
    assert report["server_loop_stalls"] == 0
    assert report["disconnects"] == 0
    assert report["server_closes"] == {}
    ended = report["ended"]
    assert isinstance(ended, dict)
    assert "timing_failure" not in ended
    # Nothing was refused at this size; the server's memory and pauses were read from it.
    assert (report["refused"], report["never_admitted_slots"]) == (0, 0)
    admitted = report["admitted"]
    assert isinstance(admitted, int)
    assert admitted >= 6 + 3
    sockets = report["server_open_sockets"]
    assert isinstance(sockets, int)
    assert sockets > 0
    assert isinstance(report["max_pause_ms"], int)
    assert isinstance(report["server_rss_per_socket_kb"], float)


def test_bench_server_offered_more_than_capacity_refuses_new_matches_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A server whose capacity is four live matches, offered six played and two time-out ones:
    # the refused ones try again after Retry-After; no admitted match is ended for timing.
    monkeypatch.setenv("SPECBID_MAX_LIVE_MATCHES", "4")
    report = bench_server.run(matches=6, seconds=4.0, think_ms=(50, 200), timeout_matches=2)
    refused, admitted = report["refused"], report["admitted"]
    assert isinstance(refused, int)
    assert isinstance(admitted, int)
    assert refused > 0
    refused_slots = report["refused_slots"]
    assert isinstance(refused_slots, int)
    assert refused_slots >= 2  # six slots for four places: two at least wait their turn
    assert admitted >= 4
    ended = report["ended"]
    assert isinstance(ended, dict)
    assert "timing_failure" not in ended
    assert report["server_loop_stalls"] == 0
    assert report["early_flags"] == 0


def test_bench_server_against_a_server_that_measured_its_own_capacity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The default, max_live_matches=auto: the server timed its rules engine before listening,
    # reports the cap it took in /api/health, and refuses nothing far below it.
    monkeypatch.delenv("SPECBID_MAX_LIVE_MATCHES", raising=False)
    report = bench_server.run(matches=4, seconds=2.0, think_ms=(50, 200), timeout_matches=1)
    cap = report["server_max_live_matches"]
    assert isinstance(cap, int)
    assert cap >= MIN_CAPACITY
    assert (report["refused"], report["never_admitted_slots"]) == (0, 0)


async def _fresh_database() -> Target:
    target = new_target("postgresql", Path("unused"))
    await create_target(target)
    return target


@pytest.mark.parametrize("placement", list(Placement))
def test_bench_server_spreads_its_clients_over_several_relaying_processes(
    monkeypatch: pytest.MonkeyPatch, placement: Placement
) -> None:
    redis_url = os.environ.get("TEST_REDIS_URL")
    if not (TEST_DATABASE_URL and redis_url):
        if os.environ.get("CI"):
            pytest.fail("CI must measure several processes on PostgreSQL and Redis")
        pytest.skip("needs TEST_DATABASE_URL and TEST_REDIS_URL")
    target = asyncio.run(_fresh_database())
    try:
        monkeypatch.setenv("DATABASE_URL", target.url)
        monkeypatch.setenv("REDIS_URL", redis_url)
        report = bench_server.run(
            matches=6,
            seconds=4.0,
            think_ms=(50, 200),
            timeout_matches=2,
            processes=2,
            placement=placement,
        )
    finally:
        asyncio.run(drop_target(target))
    assert report["processes"] == 2
    assert report["placement"] == placement.value
    assert "timing_failure" not in report["ended"]  # type: ignore[operator]
    assert report["errors"] == {}
    assert report["early_flags"] == 0
    assert report["flags_measured"] == 2
    commands = report["commands"]
    assert isinstance(commands, int)
    assert commands > 0
    relay = report["relay_p99_ms"]
    if placement is Placement.OWNER:
        # Every socket on its match's owner: nothing went through the relay.
        assert relay is None
        return
    # The second seat and the spectator of every match used the other process: relayed.
    assert isinstance(relay, float)
    assert relay > 0
    within = report["relay_within_percent"]
    assert isinstance(within, dict)
    shares = list(within.values())
    assert shares == sorted(shares)
    assert 0 < shares[-1] <= 100


def test_several_processes_need_a_shared_database_and_redis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    with pytest.raises(ValueError, match="DATABASE_URL and REDIS_URL"):
        bench_server.run(matches=1, seconds=1.0, processes=2)
