"""A short ``bench server`` run end to end: a real server process, the load generator's own
sockets (``bench.lean_socket``), matches played to their end, a time-out match flagged, and the
report's figures taken from what happened."""

from __future__ import annotations

import pytest

from spectacular_bid.bench.server import run


def test_a_short_run_plays_flags_and_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)  # a scratch SQLite file of its own
    monkeypatch.delenv("REDIS_URL", raising=False)
    report = run(matches=3, seconds=6, think_ms=(100, 200), timeout_matches=1, warmup_s=0.5)
    admitted = report["admitted"]
    assert isinstance(admitted, int)
    assert admitted >= 4  # the three played and the time-out match, and any played after them
    commands = report["commands"]
    assert isinstance(commands, int)
    assert commands > 30
    assert report["latency_samples"] == pytest.approx(commands, rel=0.2)
    assert report["disconnects"] == 0
    assert report["server_closes"] == {}
    errors = report["errors"]
    assert isinstance(errors, dict)
    assert set(errors) <= {"stale_version"}
    assert report["flags_measured"] == 1
    assert report["early_flags"] == 0
    assert report["server_loop_stalls"] == 0
    for share in ("server_cpu_percent", "client_cpu_percent"):
        value = report[share]
        assert isinstance(value, float)
        assert value > 0
    per_command = report["server_cpu_us_per_command"]
    assert isinstance(per_command, float)
    window_s, cpu_percent = report["seconds"], report["server_cpu_percent"]
    assert isinstance(window_s, int | float)
    assert isinstance(cpu_percent, float)
    assert per_command == pytest.approx(1e4 * cpu_percent * window_s / commands, rel=0.05)
