"""``specbid bench server`` end to end at a tiny size: its own server process, real sockets, and a
report whose measurements are real (no timing thresholds: those live in the benchmark's figures).

The time-out matches must flag at or after their deadline (R7.7, D6: ``early_flags`` is 0), and
the played matches must not be ended by the service (no loop stall, D5).
"""

from __future__ import annotations

from spectacular_bid.bench import server as bench_server


def test_bench_server_measures_commands_latency_and_flags() -> None:
    report = bench_server.run(matches=6, seconds=4.0, think_ms=(50, 200), timeout_matches=3)
    assert report["benchmark"] == "server"
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
