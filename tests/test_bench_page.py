"""``specbid bench page`` at a small size: one repeat, no throttling. It prints one JSON line with
every figure of every page and visit. No timing assertions: the targets are the report's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lenient import LENIENT

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
FIGURES = {"ready_ms", "rendered_ms", "input_delay_ms", "requests", "cached", "bytes"}


def test_bench_page_prints_its_figures(tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is missing (Debian: apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must run the browser tests")
        pytest.skip(reason)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECBID_")}
    env.update(LENIENT)  # its own server, on a busy machine, must not refuse the match as busy
    command = ("bench", "page", "--repeats", "1", "--no-throttle")
    done = subprocess.run(
        [sys.executable, "-m", "spectacular_bid", *command],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("\n") == 1
    report = json.loads(done.stdout)
    assert report["server"] == "own"
    assert report["throttle"] is None
    assert report["repeats"] == 1
    for page in ("lobby", "match"):
        first, repeat = report[page]["first"], report[page]["repeat"]
        for visit in (first, repeat):
            assert set(visit) >= FIGURES, page
            assert len(visit["samples"]) == 1
            assert visit["ready_ms"] >= visit["rendered_ms"] > 0, page
            assert visit["requests"] >= 1, page  # the page itself, at least
        assert first["bytes"] > 10_000, page  # the client came over the network
        assert first["cached"] == 0, page
        assert repeat["cached"] > 0, page  # … and the second visit found it in the cache
        assert repeat["bytes"] < first["bytes"], page
    # Counts, not times: the client comes as a handful of files, and a second visit to a match
    # asks the network for its page and its socket only (docs/PROTOCOL.md, "The client's page").
    assert report["match"]["first"]["requests"] <= 10
    assert report["match"]["repeat"]["requests"] <= 3
