"""Durability order: a command whose write fails is refused (``storage_failed``) and the match is
left as it was — same version, same state, nobody told of anything — and the same command
succeeds once the database writes again."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text

from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.store.engine import create_engine, sqlite_path
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings

from .conftest import Target
from .live import Seat, bearer, choose, guest, running_server, table

REFUSE_SQLITE = """
CREATE TRIGGER refuse_events BEFORE INSERT ON match_event
BEGIN SELECT RAISE(ABORT, 'the disk is full (test)'); END
"""
REFUSE_POSTGRESQL = [
    """CREATE FUNCTION refuse_events() RETURNS trigger LANGUAGE plpgsql AS
       $$ BEGIN RAISE EXCEPTION 'the disk is full (test)'; END $$""",
    """CREATE TRIGGER refuse_events BEFORE INSERT ON match_event
       FOR EACH ROW EXECUTE FUNCTION refuse_events()""",
]


async def refuse_event_writes(target: Target, refuse: bool) -> None:
    """Make every insert into the event log fail, as a full disk would (or undo that)."""
    path = sqlite_path(target.url)
    if path is not None:
        with sqlite3.connect(path, timeout=30) as conn:
            conn.execute(REFUSE_SQLITE if refuse else "DROP TRIGGER refuse_events")
        return
    engine = create_engine(target.url)
    try:
        async with engine.begin() as conn:
            if refuse:
                for statement in REFUSE_POSTGRESQL:
                    await conn.execute(text(statement))
            else:
                await conn.execute(text("DROP TRIGGER refuse_events ON match_event"))
    finally:
        await engine.dispose()


def without_clock(view: Any) -> Any:
    """A match object without its clock reading, which moves while a clock runs."""
    return {k: v for k, v in view.items() if k != "clock"}


async def test_a_failing_database_write_refuses_the_command_and_changes_nothing(
    target: Target, tmp_path: Path
) -> None:
    async with running_server(target, tmp_path) as server, table(server, seed=3) as match:
        await match.pause_mid_round(from_version=6)
        version = match.version()
        acting = next(s for s in match.seats if s.match["legal"])
        token = match.tokens[match.seats.index(acting)]
        async with httpx.AsyncClient(base_url=server.url) as http:
            url = f"/api/matches/{match.match_id}"
            before = (await http.get(url, headers=bearer(token))).json()
            assert before["version"] == version

            await refuse_event_writes(target, refuse=True)
            command = {**choose(acting.match["legal"], acting.rng), "version": version, "id": "x"}
            await acting.ws.send(json.dumps(command))
            await match.until(lambda: any(e.get("id") == "x" for e in acting.errors))
            (error,) = [e for e in acting.errors if e.get("id") == "x"]
            assert error["code"] == "storage_failed"
            assert error["version"] == version

            after = (await http.get(url, headers=bearer(token))).json()
            assert after["version"] == version
            assert without_clock(after["match"]) == without_clock(before["match"])
            assert after["match"]["clock"]["running"] == before["match"]["clock"]["running"]
            assert after["match"]["clock"]["deadline_ms"] == before["match"]["clock"]["deadline_ms"]
            await asyncio.sleep(0.1)  # a window for a wrong update: nobody may be told anything
            assert {w.version for w in match.everyone} == {version}

            await refuse_event_writes(target, refuse=False)
            await acting.ws.send(json.dumps({**command, "id": "y"}))
            await match.until(lambda: match.settled() and match.version() > version)
        assert match.version() == version + 1
        assert not any(e.get("id") == "y" for e in acting.errors)
        assert _acked(acting, "y", version + 1)


def _acked(seat: Seat, client_id: str, version: int) -> bool:
    return any(
        f.get("type") == "ack" and f.get("id") == client_id and f.get("version") == version
        for f in seat.frames
    )


async def test_a_refused_join_leaves_the_match_waiting(tmp_path: Path) -> None:
    """The same through the app in this process, with the in-memory store's failure switch."""
    store = InMemoryStore()
    app = create_app(WebSettings(static_dir=tmp_path / "none"), store)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://testserver") as http,
    ):
        ann, bo = await guest(http, "Ann"), await guest(http, "Bo")
        created = await http.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
        match_id = created.json()["id"]
        before = (await http.get(f"/api/matches/{match_id}")).json()
        store.fail_appends = True
        refused = await http.post(f"/api/matches/{match_id}/join", headers=bearer(bo))
        assert refused.status_code == 503
        assert refused.json()["error"]["code"] == "storage_failed"
        after = (await http.get(f"/api/matches/{match_id}")).json()
        assert after["version"] == before["version"] == 0
        assert without_clock(after["match"]) == without_clock(before["match"])
        assert after["match"]["status"] == "waiting"
        assert after["match"]["players"]["second"] is None
        store.fail_appends = False
        joined = await http.post(f"/api/matches/{match_id}/join", headers=bearer(bo))
        assert joined.json() == {"seat": "second"}
        assert (await http.get(f"/api/matches/{match_id}")).json()["version"] == 1
