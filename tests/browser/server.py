"""A real ``specbid serve`` process on a free port for the browser tests, its log kept.

The server deals from a fixed deck seed (the test-only setting): every match on it deals the same
sequence of decks, so a seeded choice policy plays the same match on every run. It gets a data
folder of its own (``--data-dir`` when this version of ``serve`` has the flag, and
``SPECBID_DATA_DIR`` either way); the shell's other ``SPECBID_*`` variables are not passed on.
"""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from lenient import LENIENT
from serverproc import SERVE, free_port, stop, wait_ready
from stored_records import check_folder

DECK_SEED = 30
"""The server's ``--fixed-deck-seed``; :mod:`.policy` checks what it deals with the engine."""


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


@functools.cache
def _serve_help() -> str:
    done = subprocess.run([*SERVE, "--help"], capture_output=True, text=True, check=True)
    return done.stdout


def serve(folder: Path, *flags: str) -> Iterator[BrowserServer]:
    """Run the server until the generator is closed (a pytest fixture yields from it)."""
    data_dir = folder / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    argv = [*SERVE, "--port", str(port), "--log-level", "warning"]
    argv += ["--fixed-deck-seed", str(DECK_SEED), *flags]
    if "--data-dir" in _serve_help():
        argv += ["--data-dir", str(data_dir)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECBID_")}
    env.update(LENIENT)
    env["SPECBID_DATA_DIR"] = str(data_dir)
    log_path = folder / "server.log"
    log: IO[bytes]
    with log_path.open("wb") as log:
        process = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
    server = BrowserServer(port, process, log_path)
    try:
        wait_ready(server.url, process, server.log_text)
        yield server
    finally:
        stop(process)
        check_folder(data_dir)  # every record it wrote replays through the machine
