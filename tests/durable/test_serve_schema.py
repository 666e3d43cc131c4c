"""``specbid serve`` and the schema: by default it migrates the database to head at start (the
embedded folder is created on first start); with ``--no-upgrade`` it refuses to start, with a
clear message and a non-zero exit, unless the schema is at head already."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx

from serverproc import SERVE, clean_environment, free_port
from spectacular_bid.store.migrate import head_revision, is_at_head

from .conftest import Target
from .live import running_server


def serve_refused(target: Target, *flags: str) -> subprocess.CompletedProcess[str]:
    argv = [*SERVE, "--port", str(free_port()), "--no-upgrade", *target.flags(), *flags]
    return subprocess.run(
        argv, env=clean_environment(), capture_output=True, text=True, timeout=60, check=False
    )


async def test_no_upgrade_on_an_empty_database_refuses_to_start(target: Target) -> None:
    done = serve_refused(target)
    assert done.returncode == 1, done
    assert done.stderr.startswith("error: refusing to start: ")
    assert "Traceback" not in done.stderr
    if target.data_dir is not None:
        assert f"there is no database at {target.data_dir / 'specbid.sqlite3'}" in done.stderr
        assert not target.data_dir.exists()  # refusing creates nothing
    else:
        assert "has no schema" in done.stderr
        assert head_revision() in done.stderr
        assert "alembic" in done.stderr


async def test_no_upgrade_on_an_empty_sqlite_file_names_the_revision(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "specbid.sqlite3").touch()
    target = Target("sqlite", "", data_dir)
    done = serve_refused(target)
    assert done.returncode == 1, done
    assert "has no schema" in done.stderr
    assert f"needs revision {head_revision()}" in done.stderr


async def test_serve_creates_the_data_folder_and_migrates_to_head(
    target: Target, tmp_path: Path
) -> None:
    async with running_server(target, tmp_path) as server, httpx.AsyncClient() as http:
        assert (await http.get(f"{server.url}/api/lobby")).status_code == 200
    assert await is_at_head(target.url)
    if target.data_dir is not None:
        assert (target.data_dir / "specbid.sqlite3").is_file()
