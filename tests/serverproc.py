"""Running a real ``specbid serve`` process for the tests that need one (live, durable, browser).

Each of those suites keeps its own fixture and server class; what they share is here: the
command, a free port, an environment without the shell's ``SPECBID_*`` settings or
``DATABASE_URL`` (each server keeps its data in its own folder), waiting until it answers, and
stopping it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable

import httpx

from lenient import LENIENT

SERVE = (sys.executable, "-m", "spectacular_bid", "serve")
STARTUP_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def clean_environment() -> dict[str, str]:
    """The environment without the shell's server settings, but with the suite's lenient
    guards (``lenient.py``)."""
    kept = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SPECBID_") and k not in ("DATABASE_URL", "REDIS_URL")
    }
    return {**kept, **LENIENT}


def wait_ready(url: str, process: subprocess.Popen[bytes], log_text: Callable[[], str]) -> None:
    """Wait until ``GET /api/lobby`` answers; raise with the server's log if it never does."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited at start:\n{log_text()[-3000:]}")
        try:
            if httpx.get(f"{url}/api/lobby", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"the server did not answer in {STARTUP_TIMEOUT_S} s:\n{log_text()}")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
