"""A complete match over a real server is stored; its record is exported over HTTP, verified by
``specbid replay --verify``, imported into a fresh server and replayed (D4); a
tampered record fails verification, naming the first discrepancy; and no socket ever receives
a round's salt or deck before that round has ended."""

from __future__ import annotations

import asyncio
import copy
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from spectacular_bid import cli
from spectacular_bid.rules.board import Board
from spectacular_bid.rules.notation import parse_placement, parse_tile
from spectacular_bid.service.fairness import verify_commitment
from spectacular_bid.store.engine import database_url
from spectacular_bid.store.repository import SqlStore

from .conftest import Target, create_target, drop_target, new_target
from .live import Watcher, bearer, guest, running_server, table

JSON = Any
DESCRIPTION = re.compile(
    r"Tiles: .+\. Spinners: .+\. Joints: .+\. Open places: .+\. Scoring ends: .+\. "
    r"Sum: .+ = \d+\. Award: \d+\."
)


async def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """``specbid …`` in this process (in a thread: it runs its own event loop)."""
    capsys.readouterr()
    status = await asyncio.to_thread(cli.main, list(argv))
    out, err = capsys.readouterr()
    return status, out + err


def versions_with(record: JSON, kind: str) -> list[tuple[int, int, JSON]]:
    """(index in versions, index in events, event) of every event of ``kind``."""
    return [
        (i, j, event)
        for i, version in enumerate(record["versions"])
        for j, event in enumerate(version["events"])
        if event["type"] == kind
    ]


def assert_no_early_reveal(watcher: Watcher, record: JSON) -> None:
    """D4: a round's salt and deck reach a socket only with, or after, that round's end."""
    salts = {r["number"]: r["salt"] for r in record["rounds"]}
    ended: set[int] = set()
    for text, frame in zip(watcher.texts, watcher.frames, strict=True):
        for event in frame.get("events", []):
            if event["type"] == "round_ended":
                ended.add(event["number"])
        for number, salt in salts.items():
            if salt in text:
                assert number in ended, f"round {number}'s salt before its end: {text[:300]}"
        for found in _objects_with(frame, ("salt", "deck")):
            assert found["round"] in ended, f"a reveal before its round's end: {found}"


def _objects_with(value: JSON, keys: tuple[str, ...]) -> list[JSON]:
    found = []
    if isinstance(value, dict):
        if any(k in value for k in keys):
            found.append(value)
        for item in value.values():
            found += _objects_with(item, keys)
    elif isinstance(value, list):
        for item in value:
            found += _objects_with(item, keys)
    return found


def expected_descriptions(record: JSON) -> list[str]:
    """Appendix A lines computed independently: each round's placements laid on a fresh
    :class:`Board` in move notation."""
    lines = []
    board = Board()
    for version in record["versions"]:
        for event in version["events"]:
            if event["type"] == "round_dealt":
                board = Board()
            elif event["type"] == "played":
                at = event["at"]
                move = event["tile"] if at is None else f"{event['tile']}@{at}"
                board.place(*parse_placement(move))
                lines.append(board.describe())
    return lines


async def test_a_match_is_stored_exported_verified_imported_and_replayed(
    target: Target, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with running_server(target, tmp_path / "first-server") as server:
        async with table(server, seed=5) as match, httpx.AsyncClient(base_url=server.url) as http:
            await match.pause_mid_round(from_version=3)
            live = await http.get(f"/api/matches/{match.match_id}/record")
            assert live.status_code == 409  # D4: never a live match's record
            assert live.json()["error"]["code"] == "wrong_phase"
            anonymous = await http.get(f"/api/matches/{match.match_id}")
            assert '"salt"' not in anonymous.text
            for seat in match.seats:
                seat.acting = True
                seat.decide()
            await match.until(match.is_over, timeout_s=60)
            response = await http.get(f"/api/matches/{match.match_id}/record")
            assert response.status_code == 200
            record = response.json()
            listed = (await http.get("/api/matches", params={"status": "finished"})).json()
            assert [m["id"] for m in listed["matches"]] == [match.match_id]
            assert listed["next"] is None
            assert listed["matches"][0]["first"] == "Ann"
            assert listed["matches"][0]["record_url"] == f"/api/matches/{match.match_id}/record"
            missing = await http.get("/api/matches/nosuchmatch/record")
            assert missing.status_code == 404
        for watcher in match.everyone:
            assert_no_early_reveal(watcher, record)
        assert all(not seat.errors or _only_stale(seat.errors) for seat in match.seats)

    # The document: its header, every version the sockets saw, every round revealed.
    assert record["format"] == "spectacular-bid/match-record"
    assert record["format_version"] == 4  # format 3's seats say whether they are accounts
    assert record["match"]["settings"]["first_decision_grace_ms"] == 20_000  # format 4: D7
    assert all(isinstance(v["received_ms"], int) for v in record["versions"])
    joined = record["versions"][0]
    assert (joined["command"], joined["seat"]) == ({"type": "join", "seat": "second"}, None)
    header = record["match"]
    assert header["id"] == match.match_id
    assert header["status"] == "finished"
    assert header["rated"] is False  # two guests: rated only between accounts
    as_guest = {"account": False}
    assert header["players"] == {
        "first": {"name": "Ann", **as_guest},
        "second": {"name": "Bo", **as_guest},
    }
    assert [v["version"] for v in record["versions"]] == list(range(1, match.spectator.version + 1))
    assert record["rounds"], "at least one round was dealt"
    for row in record["rounds"]:
        deck = [parse_tile(t) for t in row["deck"]]
        assert verify_commitment(row["commitment"], deck, row["salt"])
    async with SqlStore.open(database_url(target.url)) as store:
        stored = await store.rounds(match.match_id)  # saved as the rounds were dealt and ended
    assert [(r.number, r.commitment, r.salt, r.deck) for r in stored] == [
        (r["number"], r["commitment"], r["salt"], r["deck"]) for r in record["rounds"]
    ]

    path = tmp_path / "match.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    status, out = await run_cli(capsys, "replay", "--verify", str(path))
    assert status == 0, out
    assert out.startswith(f"OK {match.match_id}: {len(record['versions'])} versions")

    status, out = await run_cli(capsys, "replay", str(path))
    assert status == 0, out
    printed = [line.strip() for line in out.splitlines() if line.strip().startswith("Tiles: ")]
    assert printed == expected_descriptions(record)
    assert all(DESCRIPTION.fullmatch(line) for line in printed)
    assert len(printed) == len(versions_with(record, "played"))
    assert "balances first" in out
    assert "clock: first" in out

    # Import into a fresh server with a database of its own, then read and replay it there.
    fresh = new_target(target.backend, tmp_path / "second")
    await create_target(fresh)
    try:
        async with (
            running_server(fresh, tmp_path / "second-server") as other,
            httpx.AsyncClient(base_url=other.url) as http,
        ):
            refused = await http.post("/api/records", json=record)
            assert refused.status_code == 401  # importing needs a guest
            token = await guest(http, "Cy")
            created = await http.post("/api/records", json=record, headers=bearer(token))
            assert created.status_code == 201, created.text
            # A fresh id of the server's own, the record's kept as data (PROTOCOL.md "Limits and
            # close codes").
            imported_id = created.json()["id"]
            assert imported_id != match.match_id
            assert created.json()["imported_id"] == match.match_id
            again = (await http.get(f"/api/matches/{imported_id}/record")).json()
            tampered = copy.deepcopy(record)
            _, _, played = versions_with(tampered, "played")[3]
            played["ends_sum"] += 1
            bad = await http.post("/api/records", json=tampered, headers=bearer(token))
            assert bad.status_code == 422
            assert "the record does not verify: version" in bad.json()["error"]["message"]
            view = (await http.get(f"/api/matches/{imported_id}")).json()
            assert view["match"]["status"] == "finished"
        imported = copy.deepcopy(record)
        imported["match"]["id"] = imported_id
        imported["match"]["rated"] = False  # an imported match is never rated here
        imported["match"]["imported"] = True
        imported["match"]["imported_id"] = match.match_id
        assert again == imported
        status, from_store = await run_cli(capsys, "replay", imported_id, *fresh.flags())
        assert status == 0, from_store
        assert from_store.splitlines()[1:] == out.splitlines()[1:]
        status, checked = await run_cli(capsys, "replay", "--verify", imported_id, *fresh.flags())
        assert status == 0, checked
        exported = tmp_path / "exported.json"
        status, _ = await run_cli(
            capsys, "replay", "--export", imported_id, "-o", str(exported), *fresh.flags()
        )
        assert status == 0
        assert json.loads(exported.read_text(encoding="utf-8")) == imported
    finally:
        await drop_target(fresh)

    # Tampering with one event, one balance or one revealed deck is caught and named.
    for name, tamper, expected in _TAMPERS:
        changed = copy.deepcopy(record)
        where = tamper(changed)
        bad_path = tmp_path / f"{name}.json"
        bad_path.write_text(json.dumps(changed), encoding="utf-8")
        status, out = await run_cli(capsys, "replay", "--verify", str(bad_path))
        assert status == 1, (name, out)
        assert out.startswith(f"FAILED {match.match_id}: {where}"), (name, out)
        assert re.search(expected, out), (name, out)


def _only_stale(errors: list[JSON]) -> bool:
    return all(e["code"] == "stale_version" for e in errors)


def _tamper_event(record: JSON) -> str:
    i, j, event = versions_with(record, "played")[5]
    event["award"] += 5
    return f"version {record['versions'][i]['version']}: events[{j}].award"


def _tamper_balance(record: JSON) -> str:
    i, j, event = versions_with(record, "transferred")[0]
    event["balances"]["first"] += 5
    return f"version {record['versions'][i]['version']}: events[{j}].balances.first"


def _tamper_revealed_deck(record: JSON) -> str:
    deck = record["rounds"][0]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    return "round 1: deck[0]"


_TAMPERS = [
    ("event", _tamper_event, r"expected \d+, found \d+"),
    ("balance", _tamper_balance, r"expected \d+, found \d+"),
    ("deck", _tamper_revealed_deck, r"expected '\d-\d', found '\d-\d'"),
]
