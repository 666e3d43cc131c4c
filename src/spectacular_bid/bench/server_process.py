"""The server under test for ``specbid bench server``: its own ``specbid serve`` process.

A separate process, so that the figures are the server's alone: its CPU time and peak RSS come
from ``/proc``, and its log is kept to count the event-loop stalls it reports (D5), which
would abort running matches and so invalidate a run.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

import httpx

from spectacular_bid.web.collector import LONG_COLLECTION_LOG

_SERVE = (sys.executable, "-m", "spectacular_bid", "serve")
_STALL_LOG = "event loop stalled"
"""What the server logs when its loop stalls past the D5 threshold (running matches abort)."""
_READY_S = 30
"""How long the server may take to answer its first request."""
_ONE_ADDRESS = {
    "SPECBID_SOCKETS_PER_ADDRESS": "1000000",
    "SPECBID_GUESTS_PER_MINUTE": "1000000",
    "SPECBID_GUESTS_BURST": "1000000",
    "SPECBID_MATCHES_PER_MINUTE": "1000000",
    "SPECBID_MATCHES_BURST": "1000000",
    "SPECBID_JOINS_PER_MINUTE": "1000000",
    "SPECBID_JOINS_BURST": "1000000",
}
"""Every player of the benchmark comes from one loopback address, so the per-address caps and
rate limits, made for people, are lifted; admission control is measured as it is."""


@dataclass
class ServerProcess:
    """A running server: where to reach it, and (once it has stopped) what it logged."""

    base: str
    """The HTTP base URL, on a free loopback port."""
    pid: int
    stalls: list[str] = field(default_factory=list)
    """Every loop-stall line of its log (D5); filled in when the process has stopped."""
    log: bytes = b""
    """All it logged (stdout and stderr, one file); filled in when the process has stopped."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def rss_kb(pid: int) -> int:
    """Process ``pid``'s resident memory now, in KiB (0 if unknown)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def logged_bytes(pid: int) -> int:
    """How many bytes server ``pid`` has logged so far: taken as a window opens and closes,
    they cut out of its log what it said inside the window (:func:`long_collection_lines`)."""
    return os.stat(f"/proc/{pid}/fd/1").st_size


def peak_rss_mb(pid: int) -> float:
    """The high-water mark of process ``pid``'s resident memory, in MiB (0 if unknown)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


@contextlib.contextmanager
def serving_several(count: int, grace_s: float | None = None) -> Iterator[list[ServerProcess]]:
    """Start ``count`` ``specbid serve`` processes on free ports, wait until they answer, and
    stop them on exit.

    With ``DATABASE_URL`` set they store in that database (PostgreSQL); otherwise in a scratch
    SQLite file that goes away with the run (one process only). Several relay through
    ``$REDIS_URL`` (PROTOCOL.md "Several servers on one database"). ``grace_s`` sets their D3 grace:
    how long a dealt-out match may wait for its Start presses before the server deals anyway.
    """
    env = {**os.environ, **_ONE_ADDRESS}
    if grace_s is not None:
        env["SPECBID_GRACE_MS"] = str(round(grace_s * 1000))
    if count > 1 and not (env.get("DATABASE_URL") and env.get("REDIS_URL")):
        raise ValueError("several server processes need DATABASE_URL and REDIS_URL set")
    if count == 1:
        env.pop("REDIS_URL", None)
    with contextlib.ExitStack() as stack:
        data_dir = stack.enter_context(tempfile.TemporaryDirectory())
        storage = [] if env.get("DATABASE_URL") else ["--data-dir", data_dir]
        started = []
        for _ in range(count):
            log = stack.enter_context(tempfile.TemporaryFile())
            port = _free_port()
            process = subprocess.Popen(
                [*_SERVE, "--port", str(port), "--log-level", "warning", *storage],
                env={**env, "SPECBID_PORT": str(port)},
                stdout=log,
                stderr=log,
            )
            started.append((ServerProcess(f"http://127.0.0.1:{port}", process.pid), process, log))
            stack.callback(_stop, started[-1][0], process, log)
        for server, process, log in started:
            _wait_ready(server.base, process, log)
        yield [server for server, _, _ in started]


def _stop(server: ServerProcess, process: subprocess.Popen[bytes], log: IO[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    log.seek(0)
    server.log = log.read()
    text = server.log.decode(errors="replace")
    server.stalls = [line.strip() for line in text.splitlines() if _STALL_LOG in line]


def long_collection_lines(log_text: str) -> list[str]:
    """Each long-collection warning of a server's log (or of the part a window cut out of it),
    from its own words on (the log's prefix of time and level left out)."""
    return [
        line[line.index(LONG_COLLECTION_LOG) :].strip()
        for line in log_text.splitlines()
        if LONG_COLLECTION_LOG in line
    ]


def _wait_ready(base: str, process: subprocess.Popen[bytes], log: IO[bytes]) -> None:
    deadline = time.monotonic() + _READY_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            err = log.read().decode(errors="replace")
            raise RuntimeError(f"the server exited at start: {err[-2000:]}")
        try:
            if httpx.get(f"{base}/api/lobby", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server did not answer within {_READY_S} s")
