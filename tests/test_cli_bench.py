"""``specbid bench rules``: one JSON line from the rules benchmark, and clear usage errors.

No timing assertions: performance targets live in the benchmark's own report, not in tests.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from spectacular_bid.bench.bots import Game, _play_first, code_fingerprint, wilson
from spectacular_bid.bench.bots import run as bench_bots_run
from spectacular_bid.cli import main
from spectacular_bid.rules.seats import Seat

RATES = ("rounds_per_s", "actions_per_s", "matches_per_s")


def test_bench_rules_prints_one_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["bench", "rules", "--seconds", "0.2", "--repeats", "1", "--seed", "1"])
    out, err = capsys.readouterr()
    assert status == 0
    assert err == ""
    assert out.endswith("\n")
    assert out.count("\n") == 1
    report = json.loads(out)
    assert isinstance(report, dict)
    assert report["benchmark"] == "rules"
    assert report["repeats"] == 1
    assert report["seconds_per_repeat"] == 0.2
    for key in RATES:
        value = report[key]
        assert isinstance(value, float)
        assert value > 0, key


def test_bench_rules_passes_defaults(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[float, int, int | None]] = []

    def fake_run(
        seconds: float = 0.0, repeats: int = 0, seed: int | None = None
    ) -> dict[str, object]:
        calls.append((seconds, repeats, seed))
        return {"benchmark": "rules", "text": "–"}

    monkeypatch.setattr("spectacular_bid.bench.rules.run", fake_run)
    assert main(["bench", "rules"]) == 0
    assert calls == [(2.0, 5, None)]
    assert capsys.readouterr().out == '{"benchmark": "rules", "text": "\\u2013"}\n'


@pytest.mark.parametrize(
    "args",
    [
        ["--repeats", "0"],
        ["--repeats", "-3"],
        ["--repeats", "two"],
        ["--repeats", "1.5"],
        ["--seconds", "0"],
        ["--seconds", "-1"],
        ["--seconds", "nan"],
        ["--seconds", "inf"],
        ["--seconds", "soon"],
        ["--seed", "x"],
    ],
)
def test_bench_rules_bad_values_exit_2(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["bench", "rules", *args])
    assert exited.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert f"argument {args[0]}: expected" in err or f"argument {args[0]}: invalid" in err


@pytest.mark.parametrize("argv", [[], ["bench"], ["bench", "nothing"]])
def test_missing_or_unknown_command_exits_2(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert "usage: specbid" in capsys.readouterr().err


def test_installed_bench_bad_repeats_exits_2() -> None:
    script = shutil.which("specbid", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.fail(f"no specbid console script next to {sys.executable}: install the project")
    done = subprocess.run(
        [script, "bench", "rules", "--repeats", "0"],
        capture_output=True,
        env=dict(os.environ),
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == b""
    assert b"argument --repeats: expected an integer >= 1, got '0'" in done.stderr
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("warmup", ["-1", "nan", "inf", "later"])
def test_bench_server_bad_warmup_exits_2(capsys: pytest.CaptureFixture[str], warmup: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["bench", "server", "--warmup-s", warmup])
    assert exited.value.code == 2
    assert "argument --warmup-s: expected" in capsys.readouterr().err


def test_bench_server_passes_the_warmup(monkeypatch: pytest.MonkeyPatch) -> None:
    # A soak waits for the matches' steady state before its window: the flag reaches the run,
    # 0 included (no warm-up at all).
    from spectacular_bid.bench import server as bench_server

    seen: list[float] = []

    def fake_run(**kwargs: object) -> dict[str, object]:
        warmup = kwargs["warmup_s"]
        assert isinstance(warmup, float)
        seen.append(warmup)
        return {"benchmark": "server"}

    monkeypatch.setattr(bench_server, "run", fake_run)
    assert main(["bench", "server", "--warmup-s", "900"]) == 0
    assert main(["bench", "server", "--warmup-s", "0"]) == 0
    assert main(["bench", "server"]) == 0
    assert seen == [900.0, 0.0, 5.0]


def test_bench_bots_prints_one_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["bench", "bots", "--matches", "2", "--levels", "1,2", "--seed", "3"])
    out, err = capsys.readouterr()
    assert status == 0
    assert err == ""
    assert out.count("\n") == 1
    report = json.loads(out)
    assert report["benchmark"] == "bots"
    assert [(p["a"], p["b"]) for p in report["pairs"]] == [(2, 2), (2, 1), (1, 1)]
    for pair in report["pairs"]:
        assert pair["matches"] == 2
        assert 0 <= pair["a_wins"] <= 2
        lo, hi = pair["ci95"]
        assert 0 <= lo <= pair["win_rate"] <= hi <= 1
    assert set(report["levels"]) == {"1", "2"}
    assert all(stats["decisions"] > 0 for stats in report["levels"].values())


@pytest.mark.parametrize("levels", ["0", "6", "2,x", ""])
def test_bench_bots_bad_levels_exit_2(capsys: pytest.CaptureFixture[str], levels: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["bench", "bots", "--levels", levels])
    assert exited.value.code == 2
    assert "argument --levels: expected" in capsys.readouterr().err


def test_wilson_interval_of_the_bots_bench() -> None:
    # Wilson 95 %: 5 of 10 gives 0.237–0.763; 10 of 10 still leaves room below 1.
    lo, hi = wilson(5, 10)
    assert (round(lo, 3), round(hi, 3)) == (0.237, 0.763)
    lo, hi = wilson(10, 10)
    assert round(lo, 3) == 0.722
    assert hi == 1.0
    with pytest.raises(ValueError, match="not 0"):
        wilson(0, 0)


def test_bench_bots_plays_the_same_matches_in_worker_processes() -> None:
    """Each match has its own seed: levels 1 and 2 (no clock in their choices) give the same
    table whether one process plays every match or two share them."""
    alone = bench_bots_run(matches=3, seed=9, levels=(1, 2), jobs=1)
    shared = bench_bots_run(matches=3, seed=9, levels=(1, 2), jobs=2)
    assert shared["pairs"] == alone["pairs"]
    assert (alone["jobs"], shared["jobs"]) == (1, 2)
    with pytest.raises(ValueError, match="jobs"):
        bench_bots_run(matches=1, levels=(1,), jobs=0)


def decisions(report: dict[str, object]) -> dict[str, int]:
    levels = report["levels"]
    assert isinstance(levels, dict)
    return {level: stats["decisions"] for level, stats in levels.items()}


def test_bench_bots_journal_finishes_an_interrupted_table(tmp_path: Path) -> None:
    """A journal keeps each finished match: run again, it plays only the matches it lacks, and
    the table is the one an uninterrupted run gives. A line cut short by a crash is played again."""
    journal = tmp_path / "bots.jsonl"
    whole = bench_bots_run(matches=3, seed=4, levels=(1, 2))
    first = bench_bots_run(matches=3, seed=4, levels=(1, 2), journal=journal)
    assert first["resumed"] == 0
    assert first["pairs"] == whole["pairs"]
    lines = journal.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 9  # three pairs of three matches
    # An interruption: two matches lost, one of them half-written.
    journal.write_text("\n".join(lines[:7]) + "\n" + lines[7][:20], encoding="utf-8")
    again = bench_bots_run(matches=3, seed=4, levels=(1, 2), journal=journal)
    assert again["resumed"] == 7
    assert again["pairs"] == whole["pairs"]
    assert decisions(again) == decisions(first)
    done = bench_bots_run(matches=3, seed=4, levels=(1, 2), journal=journal)
    assert done["resumed"] == 9
    assert done["pairs"] == whole["pairs"]
    # Another seed shares no match with this journal.
    other = bench_bots_run(matches=1, seed=5, levels=(1,), journal=journal)
    assert other["resumed"] == 0


def test_bench_bots_journal_flag(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    journal = tmp_path / "table.jsonl"
    argv = ["bench", "bots", "--matches", "1", "--levels", "1", "--seed", "2"]
    assert main([*argv, "--journal", str(journal)]) == 0
    assert json.loads(capsys.readouterr().out)["resumed"] == 0
    assert main([*argv, "--journal", str(journal)]) == 0
    assert json.loads(capsys.readouterr().out)["resumed"] == 1


def test_bench_bots_journal_counts_only_matches_this_code_played(tmp_path: Path) -> None:
    """A journal line names the code (engine and bots) that played it; a line from other code
    is not this table's, and its match is played again."""
    journal = tmp_path / "bots.jsonl"
    first = bench_bots_run(matches=2, seed=6, levels=(1,), journal=journal)
    assert first["code"] == code_fingerprint()
    entries = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    assert {entry["code"] for entry in entries} == {first["code"]}
    entries[0]["code"] = "0" * 16  # as if an earlier level 1 had played it
    journal.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    again = bench_bots_run(matches=2, seed=6, levels=(1,), journal=journal)
    assert again["resumed"] == 1
    assert again["pairs"] == first["pairs"]


def test_bench_bots_plays_the_target_pairs_first() -> None:
    """Play order only: each level against the one below and 5 against 2 first, each level
    against itself last."""
    games = [Game(a, b, Seat.FIRST, 0, 1.0) for a, b in [(5, 5), (3, 1), (5, 2), (4, 3), (2, 2)]]
    ordered = sorted(games, key=_play_first)
    assert [(g.a, g.b) for g in ordered] == [(5, 2), (4, 3), (3, 1), (5, 5), (2, 2)]
