"""Kill -9 (D5): a server killed with SIGKILL while a match's clock runs is started again on the
same database. Every event any client received is in the store, the match has ended aborted —
service timing failure, unrated — and a player who comes back, over HTTP or the WebSocket, is
shown that and why."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosedOK

from spectacular_bid.service.record_document import parse_document
from spectacular_bid.service.replay import verify

from .conftest import Target
from .live import bearer, events_by_version, running_server, seen_within, table


async def test_a_killed_server_keeps_every_event_and_aborts_the_match_unrated(
    target: Target, tmp_path: Path
) -> None:
    async with running_server(target, tmp_path / "killed") as server, table(server, 9) as match:
        await match.pause_mid_round(from_version=12)
        assert match.spectator.match["status"] == "active"
        server.kill()
        await match.until(lambda: all(t.done() for t in match.tasks), timeout_s=10)
    received = max(w.version for w in match.everyone)
    first, second = match.tokens

    # Started again on the same database, this time refusing to migrate: it is at head.
    async with (
        running_server(target, tmp_path / "restarted", "--no-upgrade") as again,
        httpx.AsyncClient(base_url=again.url) as http,
    ):
        view = (await http.get(f"/api/matches/{match.match_id}", headers=bearer(first))).json()
        assert view["match"]["status"] == "aborted"
        assert view["match"]["audience"] == "first"
        assert view["match"]["result"] == {"winner": None, "reason": "timing_failure"}
        assert view["match"]["clock"]["running"] is None
        assert view["version"] > received

        async with connect(again.ws_url(match.match_id, second)) as ws:
            state = json.loads(await ws.recv())
            with pytest.raises(ConnectionClosedOK):  # closed normally (1000): nothing follows
                await ws.recv()
            assert ws.close_code == 1000
        assert state["type"] == "state"
        assert state["version"] == view["version"]
        assert state["match"]["audience"] == "second"
        assert state["match"]["status"] == "aborted"
        assert state["match"]["result"] == {"winner": None, "reason": "timing_failure"}

        record = (await http.get(f"/api/matches/{match.match_id}/record")).json()
        listed = (await http.get("/api/matches", params={"status": "aborted"})).json()

    # Everything the clients were told is in the record, exactly (with only hidden parts
    # taken out for each viewer), and the aborting version comes after it.
    versions = record["versions"]
    assert [v["version"] for v in versions] == list(range(1, len(versions) + 1))
    for watcher in match.everyone:
        for version, seen in events_by_version(watcher).items():
            stored = versions[version - 1]["events"]
            assert len(seen) == len(stored), (version, seen, stored)
            for shown, kept in zip(seen, stored, strict=True):
                assert seen_within(shown, kept), (version, shown, kept)
    final = versions[-1]
    assert final["version"] == received + 1
    assert final["command"] == {"type": "abort", "reason": "timing_failure"}
    assert final["seat"] is None
    kinds = [e["type"] for e in final["events"]]
    assert kinds == ["round_ended", "match_ended", "deck_revealed"]
    assert final["events"][1] == {"type": "match_ended", "winner": None, "reason": "timing_failure"}
    assert final["clock"]["running"] is None

    header = record["match"]
    assert (header["status"], header["winner"], header["reason"], header["rated"]) == (
        "aborted",
        None,
        "timing_failure",
        False,
    )
    assert header["ended_at_ms"] is not None
    assert header["ended_at_ms"] >= header["created_at_ms"]
    (line,) = [m for m in listed["matches"] if m["id"] == match.match_id]
    assert (line["status"], line["rated"], line["reason"]) == ("aborted", False, "timing_failure")
    verify(parse_document(record))  # the recovery wrote what the engine itself would
