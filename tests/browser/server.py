"""A real ``specbid serve`` process on a free port for the browser tests, its log kept.

The server deals from a fixed deck seed (the test-only setting): every match on it deals the same
sequence of decks, so a seeded choice policy plays the same match on every run. It gets a data
folder of its own (``--data-dir`` when this version of ``serve`` has the flag, and
``SPECBID_DATA_DIR`` either way); the shell's other ``SPECBID_*`` variables are not passed on.
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
from typing import IO

import httpx

DECK_SEED = 30
"""The server's ``--fixed-deck-seed``; :mod:`.policy` checks what it deals with the engine."""
STARTUP_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0

_SERVE = (sys.executable, "-m", "spectacular_bid", "serve")


@dataclass(frozen=True)
class BrowserServer:
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_text(self, start: int = 0) -> str:
        with self.log_path.open("rb") as log:
            log.seek(start)
            return log.read().decode(errors="replace")

    def log_size(self) -> int:
        return self.log_path.stat().st_size


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@functools.cache
def _serve_help() -> str:
    done = subprocess.run([*_SERVE, "--help"], capture_output=True, text=True, check=True)
    return done.stdout


def _wait_ready(server: BrowserServer) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"the server exited at start:\n{server.log_text()[-3000:]}")
        try:
            if httpx.get(f"{server.url}/api/lobby", timeout=1).status_code == 200:
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


def serve(folder: Path, *flags: str) -> Iterator[BrowserServer]:
    """Run the server until the generator is closed (a pytest fixture yields from it)."""
    data_dir = folder / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    argv = [*_SERVE, "--port", str(port), "--log-level", "warning"]
    argv += ["--fixed-deck-seed", str(DECK_SEED), *flags]
    if "--data-dir" in _serve_help():
        argv += ["--data-dir", str(data_dir)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECBID_")}
    env["SPECBID_DATA_DIR"] = str(data_dir)
    log_path = folder / "server.log"
    log: IO[bytes]
    with log_path.open("wb") as log:
        process = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
    server = BrowserServer(port, process, log_path)
    try:
        _wait_ready(server)
        yield server
    finally:
        _stop(process)
