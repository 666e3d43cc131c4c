"""A server's live-match cap follows the machine, not one moment of its start-up (OPERATIONS.md,
"Under load and abuse").

A server started while a neighbour burns the core it runs on (both pinned to one CPU) is, once
the neighbour has stopped, estimated to time as many live matches as a server started on that
core when it is quiet, within 10 %: the start-up estimate only seeds the cap, each estimate
counts CPU time rather than the wall clock, and the cap is estimated again while the server
runs. Both caps are read as the servers report them, in ``/api/health`` and ``/metrics``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from serverproc import SERVE, clean_environment, free_port, stop, wait_ready

CPU = "0"
REESTIMATE_S = "1"
WITHIN = 0.10
SETTLE_S = 20.0
"""How long the servers have to agree: a few estimates of each, on a loaded machine."""
BURN = "while True: pass"


def pinned(argv: list[str]) -> list[str]:
    """``argv`` on one CPU, where ``taskset`` is at hand (elsewhere the burn still competes)."""
    return ["taskset", "-c", CPU, *argv] if shutil.which("taskset") else argv


@contextmanager
def server(folder: Path) -> Iterator[str]:
    folder.mkdir(parents=True)
    port = free_port()
    argv = [*SERVE, "--port", str(port), "--log-level", "warning", "--data-dir", str(folder)]
    argv += ["--max-live-matches", "auto"]
    environment = {**clean_environment(), "SPECBID_CAPACITY_REESTIMATE_S": REESTIMATE_S}
    environment.pop("SPECBID_MAX_LIVE_MATCHES", None)
    log_path = folder / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            pinned(argv), env=environment, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        wait_ready(f"http://127.0.0.1:{port}", process, lambda: log_path.read_text())
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


def cap_of(url: str) -> int:
    health = httpx.get(f"{url}/api/health", timeout=10).json()
    cap = health["max_live_matches"]
    assert isinstance(cap, int), health
    return cap


def metric_cap(url: str) -> float:
    text = httpx.get(f"{url}/metrics", timeout=10).text
    [line] = [x for x in text.splitlines() if x.startswith("specbid_live_match_cap ")]
    return float(line.split()[1])


@pytest.mark.slow  # two servers' start-ups and a few estimates: 15-35 s on a loaded machine
def test_a_server_started_beside_a_busy_neighbour_takes_what_a_quiet_one_takes(
    tmp_path: Path,
) -> None:
    neighbour = subprocess.Popen(pinned([sys.executable, "-c", BURN]))
    try:
        with server(tmp_path / "crowded") as crowded:
            seeded = cap_of(crowded)  # estimated at its start-up, beside the burning neighbour
            neighbour.kill()
            neighbour.wait()
            with server(tmp_path / "quiet") as quiet:
                started = time.monotonic()
                while True:
                    ours, theirs = cap_of(crowded), cap_of(quiet)
                    if abs(ours - theirs) <= WITHIN * theirs:
                        break
                    assert time.monotonic() - started < SETTLE_S, (seeded, ours, theirs)
                    time.sleep(0.5)  # the servers' next estimates, a second apart
                assert abs(metric_cap(crowded) - ours) <= WITHIN * theirs  # /metrics says so too
                health = httpx.get(f"{crowded}/api/health", timeout=10).json()
                assert health["max_live_matches_source"] == "estimate"
    finally:
        if neighbour.poll() is None:
            neighbour.kill()
            neighbour.wait()
