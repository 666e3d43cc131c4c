"""Golden match records of record format 1 (D4): every release must still read what 0.1.0 wrote.

Each ``tests/golden/records/v1_*.json`` is the record document of one ended match, exported by
release 0.1.0's own match service (``records.read_document(...).to_json()``) and never edited or
regenerated since (see ``records/README.md``). Through public entry points only, each file must
parse and verify with its header's result, pass ``specbid replay --verify``, print one line per
version with ``specbid replay``, and import through ``POST /api/records`` so that
``GET /api/matches/{id}/record`` gives back the same versions. Each file is also checked to hold
what its name promises, so that the set keeps covering those cases.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Final

import httpx
import pytest

from spectacular_bid import cli
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.record_document import parse_document
from spectacular_bid.service.replay import verify
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings

RECORDS_DIR: Final = Path(__file__).resolve().parent / "records"
RECORD_FILES: Final = sorted(RECORDS_DIR.glob("v1_*.json"))
_VERSION_LINE: Final = re.compile(r"v(\d+) ")
FIRST_DECISION: Final = "first_decision_grace_ms"
"""Format 4's D7 setting: null in a match imported from an earlier format, which ran without it."""

Document = dict[str, Any]


def load(path: Path) -> Document:
    data: Document = json.loads(path.read_text(encoding="utf-8"))
    return data


def events(doc: Document, kind: str) -> list[dict[str, Any]]:
    """Every event of type ``kind``, in record order."""
    return [e for v in doc["versions"] for e in v["events"] if e.get("type") == kind]


def commands(doc: Document, kind: str) -> list[dict[str, Any]]:
    """Every version whose command is of type ``kind``."""
    return [v for v in doc["versions"] if v["command"]["type"] == kind]


def auctions(doc: Document) -> list[list[str]]:
    """Each round's auction commands (``bid``, ``accept``, ``decline``) in order."""
    rounds: list[list[str]] = []
    for version in doc["versions"]:
        kind = version["command"]["type"]
        if kind == "deal":
            rounds.append([])
        elif kind in ("bid", "accept", "decline") and rounds:
            rounds[-1].append(kind)
    return rounds


def last_two(doc: Document) -> tuple[dict[str, Any], dict[str, Any]]:
    """The version before the last one, and the last one."""
    before, last = doc["versions"][-2:]
    return before, last


def ended_mid_round(doc: Document) -> bool:
    """The last version ends the round in progress because the match ended (RoundEnd
    ``match_over``)."""
    last = doc["versions"][-1]
    return any(e["type"] == "round_ended" and e["reason"] == "match_over" for e in last["events"])


# -- what each file promises ----------------------------------------------------------------


def check_auction_domino(doc: Document) -> None:
    """A long online match: auctions with a bid, a raise and an accept (R6.2, R6.3) and with a
    decline (R6.1), rounds ended by domino (R4.5), a round dealt by the grace timer (D3), banks
    charged beyond the delay (R7.2), ended by a zero balance (R1.5)."""
    assert doc["match"]["mode"] == "invite"
    assert len(doc["rounds"]) >= 4
    assert any(r.count("bid") >= 2 and "accept" in r for r in auctions(doc))
    assert any(r[:1] == ["decline"] for r in auctions(doc))
    assert any(e["reason"] == "domino" for e in events(doc, "round_ended"))
    assert any(v["seat"] is None for v in commands(doc, "deal"))
    bank_ms = doc["match"]["settings"]["bank_ms"]
    assert any(min(v["clock"]["bank_left_ms"].values()) < bank_ms for v in doc["versions"])
    assert (doc["match"]["status"], doc["match"]["reason"]) == ("finished", "zero_balance")


def check_block(doc: Document) -> None:
    """A blocked round (R4.6) with forced passes (D2) and a block settlement transfer."""
    assert any(e["reason"] == "block" for e in events(doc, "round_ended"))
    assert any(e["reason"] == "block" and e["amount"] > 0 for e in events(doc, "transferred"))
    assert events(doc, "passed")


def check_flag(doc: Document) -> None:
    """Lost on time with no message: the server flags at the deadline itself (R7.7), on a
    small custom clock that the header's settings show."""
    assert doc["match"]["settings"]["bank_ms"] == 2_000
    assert doc["match"]["settings"]["delay_ms"] == 1_000
    assert doc["match"]["reason"] == "time"
    before, last = last_two(doc)
    assert last["command"]["type"] == "flag"
    assert last["mono_ms"] == before["clock"]["deadline_ms"]
    assert last["clock"]["bank_left_ms"][last["command"]["seat"]] == 0


def check_flag_late_command(doc: Document) -> None:
    """A command that reached the server after the deadline is a loss on time (D6): the flag is
    recorded when it arrived, later than the deadline, and charged up to the deadline only."""
    assert doc["match"]["settings"]["bank_ms"] == 2_000
    assert doc["match"]["reason"] == "time"
    before, last = last_two(doc)
    assert last["command"]["type"] == "flag"
    assert last["mono_ms"] > before["clock"]["deadline_ms"]
    assert last["clock"]["bank_left_ms"][last["command"]["seat"]] == 0


def check_resign(doc: Document) -> None:
    """Resigned mid-round by the seat that was not on move (R5.2: at any time)."""
    assert doc["match"]["reason"] == "resignation"
    before, last = last_two(doc)
    assert last["command"]["type"] == "resign"
    assert before["clock"]["running"] not in (None, last["command"]["seat"])
    assert ended_mid_round(doc)


def check_abort_timing(doc: Document) -> None:
    """Aborted mid-round as a service timing failure, unrated (R7.9, D5): the event loop
    stalled beyond the 2 s threshold while a clock ran."""
    assert (doc["match"]["status"], doc["match"]["reason"]) == ("aborted", "timing_failure")
    assert (doc["match"]["winner"], doc["match"]["rated"]) == (None, False)
    before, last = last_two(doc)
    assert last["command"] == {"type": "abort", "reason": "timing_failure"}
    assert before["clock"]["running"] is not None
    assert last["mono_ms"] - before["mono_ms"] > 2_000
    assert ended_mid_round(doc)


def check_abort_recovery(doc: Document) -> None:
    """Found unfinished at start-up and ended by recovery as a timing failure (D5): the time
    the server was down is charged to nobody."""
    check_abort_timing(doc)
    before, last = last_two(doc)
    assert last["clock"]["bank_left_ms"] == before["clock"]["bank_left_ms"]
    assert last["clock"]["running"] is None


def check_join_timeout(doc: Document) -> None:
    """Aborted with no result because the second player never joined (D3)."""
    assert (doc["match"]["status"], doc["match"]["reason"]) == ("aborted", "join_timeout")
    assert doc["match"]["players"]["second"] is None
    assert doc["rounds"] == []
    assert [v["command"] for v in doc["versions"]] == [{"type": "abort", "reason": "join_timeout"}]


def check_shared(doc: Document) -> None:
    """A shared-device match played to its end, with a hand-over and Reveal before each
    player's decisions (R7.5)."""
    assert doc["match"]["mode"] == "shared"
    assert doc["match"]["status"] == "finished"
    assert doc["match"]["winner"] is not None
    assert len(commands(doc, "reveal")) >= 4
    assert events(doc, "revealed")


CONTENT: Final[dict[str, Callable[[Document], None]]] = {
    "v1_auction_domino": check_auction_domino,
    "v1_block": check_block,
    "v1_flag": check_flag,
    "v1_flag_late_command": check_flag_late_command,
    "v1_resign": check_resign,
    "v1_abort_timing": check_abort_timing,
    "v1_abort_recovery": check_abort_recovery,
    "v1_join_timeout": check_join_timeout,
    "v1_shared": check_shared,
}


# -- the tests ------------------------------------------------------------------------------


@pytest.fixture(params=RECORD_FILES, ids=lambda path: path.stem)
def record_path(request: pytest.FixtureRequest) -> Path:
    path: Path = request.param
    return path


def test_the_set_is_complete() -> None:
    """Every case has its file and every file its case: none was lost or added unchecked."""
    assert {path.stem for path in RECORD_FILES} == set(CONTENT)


def test_the_file_holds_what_its_name_promises(record_path: Path) -> None:
    doc = load(record_path)
    assert (doc["format"], doc["format_version"]) == ("spectacular-bid/match-record", 1)
    CONTENT[record_path.stem](doc)


def test_it_parses_and_verifies_with_the_headers_result(record_path: Path) -> None:
    doc = load(record_path)
    verified = verify(parse_document(doc))
    header = doc["match"]
    assert verified.match_id == header["id"]
    assert (verified.winner, verified.reason) == (header["winner"], header["reason"])
    assert verified.versions == len(doc["versions"])
    assert verified.rounds == len(doc["rounds"])


def test_specbid_replay_verify_says_ok(
    record_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["replay", "--verify", str(record_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"OK {load(record_path)['match']['id']}: ")


def test_specbid_replay_prints_every_version(
    record_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["replay", str(record_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    numbers = [int(m.group(1)) for line in lines if (m := _VERSION_LINE.match(line))]
    assert numbers == [v["version"] for v in load(record_path)["versions"]]


@pytest.fixture
async def http(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(WebSettings(static_dir=tmp_path / "none"), store=InMemoryStore())
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield client


async def test_it_imports_over_http_and_reads_back_the_same(
    record_path: Path, http: httpx.AsyncClient
) -> None:
    doc = load(record_path)
    session = await http.post("/api/session", json={"name": "Archivist"})
    assert session.status_code == 201, session.text
    headers = {"Authorization": f"Bearer {session.json()['token']}"}
    imported = await http.post(
        "/api/records",
        content=record_path.read_bytes(),
        headers={**headers, "content-type": "application/json"},
    )
    assert imported.status_code == 201, imported.text
    body = imported.json()
    assert (body["versions"], body["rounds"]) == (len(doc["versions"]), len(doc["rounds"]))
    served = await http.get(f"/api/matches/{body['id']}/record")
    assert served.status_code == 200, served.text
    again = served.json()
    # Served in the current format (4): the same versions, each with a received_ms that format
    # 1 did not record (null: replay infers it from the clocks), each seat a guest (an import's
    # players are new guests), D7 off as it was then (null grace), and it still verifies.
    assert again["format_version"] == 4
    assert again["match"]["settings"] == {**doc["match"]["settings"], FIRST_DECISION: None}
    assert all(
        slot is None or slot["account"] is False for slot in again["match"]["players"].values()
    )
    assert [v.pop("received_ms") for v in again["versions"]] == [None] * len(doc["versions"])
    assert again["versions"] == doc["versions"]
    assert again["rounds"] == doc["rounds"]
    assert verify(parse_document(served.json())).versions == len(doc["versions"])
    assert (again["match"]["winner"], again["match"]["reason"]) == (
        doc["match"]["winner"],
        doc["match"]["reason"],
    )
