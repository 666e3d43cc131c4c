"""A real ``specbid serve`` process on a free port, with its log kept for inspection.

The server gets a fixed deck seed (a test-only setting) and a data folder of its own: the
``--data-dir`` flag when this version of ``serve`` has it (OPERATIONS.md "Storage"), and
``SPECBID_DATA_DIR`` either way. The shell's other ``SPECBID_*`` variables and ``DATABASE_URL`` are
not passed on.
"""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from serverproc import SERVE, clean_environment, free_port, stop, wait_ready
from stored_records import check_folder

DECK_SEED = 7
"""The server's ``--fixed-deck-seed``: every match on it deals the same sequence of decks."""
GRACE_MS = 400
JOIN_TIMEOUT_MS = 600


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


@functools.cache
def _serve_flags() -> str:
    """``specbid serve --help``: which flags this version of the server has (a later one
    adds ``--data-dir``; until then the ``SPECBID_DATA_DIR`` variable is simply ignored)."""
    done = subprocess.run([*SERVE, "--help"], capture_output=True, text=True, check=True)
    return done.stdout


def serve(folder: Path, *flags: str, env: Mapping[str, str] | None = None) -> Iterator[LiveServer]:
    """Run a server until the generator is closed; ``env`` adds ``SPECBID_*`` settings that
    have no flag (e.g. ``SPECBID_RESEND_LIMIT``)."""
    folder.mkdir(parents=True, exist_ok=True)
    data_dir = folder / "data"
    data_dir.mkdir()
    port = free_port()
    argv = [*SERVE, "--port", str(port), "--log-level", "warning"]
    argv += ["--fixed-deck-seed", str(DECK_SEED), *flags]
    if "--data-dir" in _serve_flags():
        argv += ["--data-dir", str(data_dir)]
    environment = {**clean_environment(), **(env or {}), "SPECBID_DATA_DIR": str(data_dir)}
    log_path = folder / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(argv, env=environment, stdout=log, stderr=subprocess.STDOUT)
    server = LiveServer(port, process, log_path)
    try:
        wait_ready(server.http_url, process, server.log_text)
        STARTED.append(server)
        yield server
    finally:
        stop(process)
        check_folder(data_dir)  # every record it wrote replays through the machine
        if server in STARTED:
            STARTED.remove(server)


def assert_clean_log(text: str) -> None:
    """The server logged no exception (its actors and sockets log one for any bug they survive)."""
    assert "Traceback" not in text, f"the server logged an exception:\n{text[-3000:]}"
    assert "ERROR" not in text, f"the server logged an error:\n{text[-3000:]}"
