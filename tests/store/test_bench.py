"""``specbid bench store`` runs end to end and reports its figures (tiny loads)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from spectacular_bid.bench import store as bench_store

from .conftest import TEST_DATABASE_URL


def test_report_on_sqlite_and_postgresql(tmp_path: Path) -> None:
    report = bench_store.run(
        seconds=0.2,
        repeats=1,
        sqlite_path=tmp_path / "bench.sqlite3",
        database_url=TEST_DATABASE_URL or None,
        matches=20,
        target_matches=40,
    )
    backends = ["sqlite", *(["postgresql"] if TEST_DATABASE_URL else [])]
    assert [key for key in report if key in ("sqlite", "postgresql")] == backends
    for backend in backends:
        figures = report[backend]
        assert isinstance(figures, dict)
        assert figures["events_per_s"] > 0
        assert 0 < figures["p50_commit_ms"] <= figures["p99_commit_ms"]
        assert isinstance(figures["meets_target"], bool)
        assert figures["saturated"]["matches"] == 20
        assert figures["at_target_rate"]["offered_events_per_s"] == 10_000
    assert (tmp_path / "bench.sqlite3").is_file()


def test_payloads_are_real_commands_and_events() -> None:
    payloads = bench_store.sample_payloads(random.Random(1), count=50)
    assert len(payloads) == 50
    assert payloads[0][1]["type"] == "deal"
    assert payloads[0][0] is None
    assert any(command["type"] == "bid" for _, command, _ in payloads)
    assert all(isinstance(events, list) and events for _, _, events in payloads)


@pytest.mark.parametrize(("seconds", "repeats"), [(0, 1), (1, 0)])
def test_bad_arguments_are_refused(seconds: float, repeats: int) -> None:
    with pytest.raises(ValueError, match="need seconds > 0, repeats >= 1"):
        bench_store.run(seconds=seconds, repeats=repeats)
