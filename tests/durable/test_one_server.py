"""One server per database, for now (issue 9, item 12): a second ``specbid serve`` on a database
another server is using refuses to start — one line on stderr, exit status 1 — before it touches
the database, so the first server's live matches go on untouched (its start-up recovery, D5, would
have aborted them). The lock dies with the process that held it: after ``kill -9`` a new server
starts at once."""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import URL, make_url

from serverproc import SERVE, clean_environment, free_port
from spectacular_bid.service.ports import MatchStatus
from spectacular_bid.store.database_lock import DatabaseInUseError, lock_database
from spectacular_bid.store.repository import SqlStore
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings

from .conftest import Target
from .live import bearer, running_server, table

REFUSAL_TIMEOUT_S = 15.0
"""A refused server imports the web stack, finds the lock taken and exits: a few seconds."""


def shown_database(target: Target) -> str:
    """How the refusal names the database: its file, or its URL without a password."""
    if target.data_dir is not None:
        return str((target.data_dir / "specbid.sqlite3").resolve())
    url = make_url(target.url)
    bare = URL.create(url.drivername, url.username, None, url.host, url.port, url.database)
    return bare.render_as_string(hide_password=False)


def refusal(target: Target) -> str:
    return (
        f"error: another specbid server is already using the database at "
        f"{shown_database(target)} (only one server per database for now)"
    )


async def serve_second(target: Target) -> tuple[subprocess.CompletedProcess[str], float]:
    """``specbid serve`` on ``target`` (a port of its own), run to its end; and how long it ran."""
    argv = [*SERVE, "--port", str(free_port()), *target.flags()]
    started = time.monotonic()
    done = await asyncio.to_thread(
        subprocess.run,
        argv,
        env=clean_environment(),
        capture_output=True,
        text=True,
        timeout=REFUSAL_TIMEOUT_S * 2,  # a server that starts runs on: killed then
        check=False,
    )
    return done, time.monotonic() - started


async def test_a_second_server_refuses_to_start_and_the_live_match_goes_on(
    target: Target, tmp_path: Path
) -> None:
    async with running_server(target, tmp_path / "first") as server, table(server, 4) as match:
        await match.pause_mid_round(from_version=8)  # a clock runs, both seats seated
        before = match.version()

        done, elapsed_s = await serve_second(target)

        assert done.returncode == 1, done
        assert refusal(target) in done.stderr.splitlines(), done.stderr
        assert "Traceback" not in done.stderr
        assert elapsed_s < REFUSAL_TIMEOUT_S

        # The first server's match goes on: further commands are taken...
        for seat in match.seats:
            seat.acting = True
            seat.decide()
        await match.until(lambda: match.version() >= before + 3)
        await match.pause_mid_round(from_version=match.version())
        after = match.version()
        assert match.spectator.match["status"] == "active"
        # (a stale version is a seat's own race with the other's Start: it decides again)
        refused = [e for s in match.seats for e in s.errors if e["code"] != "stale_version"]
        assert refused == []
        async with httpx.AsyncClient(base_url=server.url) as http:
            headers = bearer(match.tokens[0])
            view = (await http.get(f"/api/matches/{match.match_id}", headers=headers)).json()
        assert view["match"]["status"] == "active"
        assert view["version"] == after

        # ...and the database holds exactly what the clients saw: no recovery version, no abort.
        async with SqlStore.open(target.url) as store:
            header = await store.match(match.match_id)
            events = await store.events(match.match_id)
        assert header is not None
        assert header.status is MatchStatus.ACTIVE
        assert [e.version for e in events] == list(range(1, after + 1))
        assert all(e.command.get("type") != "abort" for e in events)


async def test_a_killed_server_leaves_no_lock_behind(target: Target, tmp_path: Path) -> None:
    async with running_server(target, tmp_path / "killed") as first:
        first.kill()
    # A held lock would make this server exit at start, and running_server raise.
    async with running_server(target, tmp_path / "next") as second, httpx.AsyncClient() as http:
        assert (await http.get(f"{second.url}/api/lobby")).status_code == 200
        done, _ = await serve_second(target)  # and this one holds the lock in its turn
        assert done.returncode == 1, done
        assert refusal(target) in done.stderr.splitlines(), done.stderr


async def test_a_stopped_server_releases_its_lock(target: Target, tmp_path: Path) -> None:
    async with running_server(target, tmp_path / "stopped"):
        pass  # stopped with SIGTERM: a clean shutdown
    async with running_server(target, tmp_path / "next") as second, httpx.AsyncClient() as http:
        assert (await http.get(f"{second.url}/api/lobby")).status_code == 200


async def test_an_app_built_in_process_takes_the_lock_in_its_lifespan(
    target: Target, tmp_path: Path
) -> None:
    def settings() -> WebSettings:
        folder = tmp_path / "none"
        if target.data_dir is not None:
            return WebSettings(static_dir=folder, data_dir=target.data_dir)
        return WebSettings(static_dir=folder, database_url=target.url)

    first, second = create_app(settings()), create_app(settings())
    async with first.router.lifespan_context(first):
        with pytest.raises(DatabaseInUseError) as refused:
            async with second.router.lifespan_context(second):
                pytest.fail("a second app started on the same database")
        assert refusal(target).removeprefix("error: ") == str(refused.value)
        transport = httpx.ASGITransport(app=first)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            assert (await http.get("/api/lobby")).status_code == 200
    # Released at shutdown: the next app starts.
    again = create_app(settings())
    async with again.router.lifespan_context(again):
        pass


async def test_the_lock_is_taken_once_until_released(target: Target) -> None:
    if target.data_dir is not None:
        target.data_dir.mkdir(parents=True)
    held = await lock_database(target.url)
    try:
        with pytest.raises(DatabaseInUseError):
            await lock_database(target.url)
    finally:
        await held.release()
    await held.release()  # a second release does nothing
    again = await lock_database(target.url)
    await again.release()
    if target.data_dir is not None:
        assert (target.data_dir / "specbid.sqlite3.lock").is_file()
        assert not (target.data_dir / "specbid.sqlite3").exists()  # the database is not touched


async def test_the_refusal_never_shows_a_password(target: Target) -> None:
    if target.backend != "postgresql":
        pytest.skip("a SQLite database has no password")
    # The test server trusts local connections, so any password is accepted.
    url = make_url(target.url).set(password="s3cret")
    held = await lock_database(url)
    try:
        with pytest.raises(DatabaseInUseError) as refused:
            await lock_database(url)
    finally:
        await held.release()
    assert f" at {shown_database(target)} " in str(refused.value)
    assert "s3cret" not in str(refused.value)
