"""A real ``specbid serve`` process on a free port, with its log kept for inspection.

The server gets a fixed deck seed (a test-only setting) and a data folder of its own: the
``--data-dir`` flag when this version of ``serve`` has it (issue 4), and ``SPECBID_DATA_DIR``
either way. The shell's other ``SPECBID_*`` variables and ``DATABASE_URL`` are not passed on.
"""

from __future__ import annotations

import functools
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import httpx

DECK_SEED = 7
"""The server's ``--fixed-deck-seed``: every match on it deals the same sequence of decks."""
GRACE_MS = 400
JOIN_TIMEOUT_MS = 600
STARTUP_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0

_SERVE = (sys.executable, "-m", "spectacular_bid", "serve")


@dataclass
class LiveServer:
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path
    log_read: int = 0
    """How far :meth:`new_log` has read the log, in bytes."""

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def origin(self) -> str:
        """The server's own origin, as a browser on its pages would send it."""
        return self.http_url

    def ws_url(self, match_id: str, **query: str) -> str:
        suffix = f"?{urlencode(query)}" if query else ""
        return f"ws://127.0.0.1:{self.port}/ws/matches/{match_id}{suffix}"

    def log_text(self) -> str:
        return self.log_path.read_bytes().decode(errors="replace")

    def new_log(self) -> str:
        """What the server logged since the last call."""
        with self.log_path.open("rb") as log:
            log.seek(self.log_read)
            data = log.read()
        self.log_read += len(data)
        return data.decode(errors="replace")


STARTED: list[LiveServer] = []
"""The servers running now, so each test can check their logs."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@functools.cache
def _serve_flags() -> str:
    """``specbid serve --help``: which flags this version of the server has (issue 4 adds
    ``--data-dir``; until then the ``SPECBID_DATA_DIR`` variable is simply ignored)."""
    done = subprocess.run([*_SERVE, "--help"], capture_output=True, text=True, check=True)
    return done.stdout


def _wait_ready(server: LiveServer) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"the server exited at start:\n{server.log_text()[-3000:]}")
        try:
            if httpx.get(f"{server.http_url}/api/lobby", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"the server did not answer in {STARTUP_TIMEOUT_S} s:\n{server.log_text()}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@functools.cache
def _clean_environment() -> dict[str, str]:
    """This process's environment without the shell's ``SPECBID_*`` settings or a
    ``DATABASE_URL``: each server keeps its data in its own folder."""
    return {
        k: v for k, v in os.environ.items() if not k.startswith("SPECBID_") and k != "DATABASE_URL"
    }


def serve(folder: Path, *flags: str) -> Iterator[LiveServer]:
    folder.mkdir(parents=True, exist_ok=True)
    data_dir = folder / "data"
    data_dir.mkdir()
    port = _free_port()
    argv = [*_SERVE, "--port", str(port), "--log-level", "warning"]
    argv += ["--fixed-deck-seed", str(DECK_SEED), *flags]
    if "--data-dir" in _serve_flags():
        argv += ["--data-dir", str(data_dir)]
    env = {**_clean_environment(), "SPECBID_DATA_DIR": str(data_dir)}
    log_path = folder / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
    server = LiveServer(port, process, log_path)
    try:
        _wait_ready(server)
        STARTED.append(server)
        yield server
    finally:
        _stop(process)
        if server in STARTED:
            STARTED.remove(server)


def assert_clean_log(text: str) -> None:
    """The server logged no exception (its actors and sockets log one for any bug they survive)."""
    assert "Traceback" not in text, f"the server logged an exception:\n{text[-3000:]}"
    assert "ERROR" not in text, f"the server logged an error:\n{text[-3000:]}"
