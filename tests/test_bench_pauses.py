"""The longest loop stall of a long window is not lost (the one-hour run's
``max_pause_ms``): a server lists only its latest stalls, so the load generator reads them all
through the window, not once at its end."""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import time
from math import inf
from pathlib import Path
from typing import Any

import pytest

from spectacular_bid.bench import server_driver
from spectacular_bid.bench.server import _max_pause_ms, longest_pauses, window_collections
from spectacular_bid.bench.server_players import Stats
from spectacular_bid.bench.server_process import logged_bytes
from spectacular_bid.web.collector import LONG_COLLECTION_LOG


class Server:
    """``/api/health`` answers listing only the latest ``kept`` stalls, one more per read: the
    first one of the window the longest."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self.now_ms = 1_000_000
        self.stalls: list[dict[str, int]] = [{"at_ms": 999_000, "lag_ms": 500}]  # before

    async def health(self) -> dict[str, Any]:
        self.now_ms += 10
        lag_ms = 150 if len(self.stalls) == 1 else 30
        self.stalls.append({"at_ms": self.now_ms, "lag_ms": lag_ms})
        return {"now_ms": self.now_ms, "pauses": self.stalls[-self.kept :]}


def test_a_stall_early_in_a_long_window_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_driver, "_PAUSES_EVERY_S", 0.005)
    server, stats = Server(kept=2), Stats()

    async def window() -> None:
        stats.window_start = {"now_ms": server.now_ms}
        await server_driver._watch_pauses(server, stats, seconds=0.2)
        stats.window_end = await server.health()
        stats.note_pauses(stats.window_end)

    asyncio.run(window())
    assert len(server.stalls) > 5  # the first ones were no longer listed at the end
    assert _max_pause_ms(stats) == 150  # not the 500 of before the window, nor the last 30s


def test_the_longest_pauses_say_what_the_loop_did() -> None:
    """Each of the window's longest stalls keeps the loop thread's CPU and preemptions as the
    server gave them, longest first; a server that gives neither (an earlier release) gives
    None, and stalls before the window are left out."""
    stats = Stats(window_start={"now_ms": 1_000})
    stats.note_pauses(
        {
            "pauses": [
                {"at_ms": 900, "lag_ms": 900, "cpu_ms": 1_000, "preempted": 0},
                {"at_ms": 1_100, "lag_ms": 40, "cpu_ms": 139, "preempted": 1},
                {"at_ms": 1_300, "lag_ms": 139, "cpu_ms": 20, "preempted": 9},
            ]
        }
    )
    stats.note_pauses({"pauses": [{"at_ms": 1_200, "lag_ms": 60}]})
    assert longest_pauses(stats) == [
        {"lag_ms": 139, "cpu_ms": 20, "preempted": 9},
        {"lag_ms": 60, "cpu_ms": None, "preempted": None},
        {"lag_ms": 40, "cpu_ms": 139, "preempted": 1},
    ]
    assert _max_pause_ms(stats) == 139


def test_a_stall_after_the_window_is_not_the_windows() -> None:
    """The window ends at its last reading of the server's health; a stall the server lists
    after it (one the instrument's own end of window caused) is left out."""
    stats = Stats(window_start={"now_ms": 1_000}, window_end={"now_ms": 2_000})
    stats.note_pauses(
        {
            "pauses": [
                {"at_ms": 1_500, "lag_ms": 40, "cpu_ms": 90, "preempted": 3},
                {"at_ms": 2_000, "lag_ms": 30, "cpu_ms": 80, "preempted": 2},
                {"at_ms": 2_100, "lag_ms": 197, "cpu_ms": 262, "preempted": 83},
            ]
        }
    )
    assert _max_pause_ms(stats) == 40
    assert [p["lag_ms"] for p in longest_pauses(stats)] == [40, 30]


class Instrumented:
    """A server whose every end reading notes whether the load generator's collector was on."""

    def __init__(self) -> None:
        self.collector_on: list[bool] = []

    async def health(self) -> dict[str, Any]:
        self.collector_on.append(gc.isenabled())
        return {"now_ms": 5_000, "pauses": [{"at_ms": 4_990, "lag_ms": 25}]}

    async def relay_counts(self) -> list[tuple[float, float]]:
        self.collector_on.append(gc.isenabled())
        return [(0.001, 3.0), (float("inf"), 4.0)]


def test_the_window_ends_before_the_generators_collector_runs_again() -> None:
    """The load generator's first collection after a long window takes seconds; read at the
    window's end after it, the server showed the burst of commands that the pause then sent
    as the window's longest stall."""
    server, stats = Instrumented(), Stats(window_start={"now_ms": 1_000})
    gc.disable()
    try:
        asyncio.run(server_driver.close_window(server, stats, [os.getpid()], [(0.001, 1.0)]))
        assert gc.isenabled()
    finally:
        gc.enable()
    assert server.collector_on == [False, False]
    assert stats.window_end["now_ms"] == 5_000
    assert _max_pause_ms(stats) == 25
    assert stats.window_end_rss_kb > 0
    # The window: 4 relayed (none before it past 1 ms), 2 within 1 ms, 2 past every bound.
    assert stats.relay_p99_ms == float("inf")
    assert stats.relay_within_percent == {"1": 50.0}


def test_only_the_windows_long_collections_are_reported(tmp_path: Path) -> None:
    """A server logs long collections in the warm-up and while it stops too (at the end of an
    hour at the live-match cap, two while its 5,940 sockets closed): the report keeps those its
    log received while the window was open, cut by the log's size at either end."""
    log = tmp_path / "server.log"
    echo = (
        "import sys; sys.stdout.write(sys.stdin.readline()); sys.stdout.flush(); sys.stdin.read()"
    )
    with log.open("wb") as out:
        warm_up = f"INFO warming up\nWARNING {LONG_COLLECTION_LOG} 70 ms: round\n".encode()
        out.write(warm_up)
        out.flush()
        server = subprocess.Popen([sys.executable, "-c", echo], stdin=subprocess.PIPE, stdout=out)
        assert server.stdin is not None
        opened = logged_bytes(server.pid)
        server.stdin.write(f"WARNING {LONG_COLLECTION_LOG} 61 ms: sweep\n".encode())
        server.stdin.flush()
        deadline = time.monotonic() + 10
        while logged_bytes(server.pid) == opened and time.monotonic() < deadline:
            time.sleep(0.01)
        closed = logged_bytes(server.pid)
        server.stdin.close()
        server.wait()
        out.write(f"WARNING {LONG_COLLECTION_LOG} 64 ms: round\n".encode())
    whole = log.read_bytes()
    assert (opened, closed) == (len(warm_up), whole.index(b"WARNING", len(warm_up) + 1))
    assert window_collections(whole, (opened, closed)) == [f"{LONG_COLLECTION_LOG} 61 ms: sweep"]
    assert len(window_collections(whole, None)) == 3


def test_the_relay_figures_are_the_windows_own() -> None:
    """The p99 bucket and the share within each bound count only what was relayed between the
    two scrapes; with nothing relayed (one server) there are no figures."""
    before = [(0.001, 500.0), (0.0025, 600.0), (0.005, 600.0), (0.01, 700.0), (inf, 700.0)]
    after = [(0.001, 1440.0), (0.0025, 1580.0), (0.005, 1596.0), (0.01, 1700.0), (inf, 1700.0)]
    window = server_driver.relay_window(before, after)
    assert window == [
        (0.001, 940.0),
        (0.0025, 980.0),
        (0.005, 996.0),
        (0.01, 1000.0),
        (inf, 1000.0),
    ]
    assert server_driver.relay_p99_ms(window) == 5.0
    assert server_driver.relay_within_percent(window) == {
        "1": 94.0,
        "2.5": 98.0,
        "5": 99.6,
        "10": 100.0,
    }
    nothing = server_driver.relay_window(before, before)
    assert nothing == []
    assert server_driver.relay_p99_ms(nothing) is None
    assert server_driver.relay_within_percent(nothing) is None
