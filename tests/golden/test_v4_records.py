"""Golden match records of record format 4 (D4, D7, D8): every release must still read what the
release that introduced format 4 wrote.

Each ``tests/golden/records/v4_*.json`` is the record document of one ended match, exported by
that release's own match service (``MatchService.record``) and never edited or regenerated since
(see ``records/README.md``). Format 4 adds to the settings ``first_decision_grace_ms``, D7's
grace: a seat that had decided nothing was aborted at its first decision's delay plus it, the
abort naming the seat (``"seat"`` in the command, ``"undecided"`` in ``match_ended``); the join
timeout is the least an invitation waits (D3), and a shared device nobody has open is aborted
(D8). Through public entry points only, each file must parse as format 4 and verify with its
header's result, pass ``specbid replay --verify``, print one line per version with ``specbid
replay``, and import through ``POST /api/records`` so that ``GET /api/matches/{id}/record`` gives
back the same settings, versions and rounds, unrated since imported, and that document verifies
too. A copy with its rated flag flipped must fail, naming ``rated``. Each file is also checked to
hold what its name promises.
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
from spectacular_bid.service.discrepancy import RecordMismatchError
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.record_document import parse_document
from spectacular_bid.service.replay import verify
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings

RECORDS_DIR: Final = Path(__file__).resolve().parent / "records"
RECORD_FILES: Final = sorted(RECORDS_DIR.glob("v4_*.json"))
DEFAULT_SETTINGS: Final = {
    "bank_ms": 120_000,
    "delay_ms": 10_000,
    "grace_ms": 20_000,
    "join_timeout_ms": 600_000,
    "first_decision_grace_ms": 20_000,
}
"""The rules' values (R7.1, R7.2, D3, D7) with which every format-4 golden match was played."""
_VERSION_LINE: Final = re.compile(r"v(\d+) ")

Document = dict[str, Any]


def load(path: Path) -> Document:
    data: Document = json.loads(path.read_text(encoding="utf-8"))
    return data


def commands(doc: Document, kind: str) -> list[dict[str, Any]]:
    """Every version whose command is of type ``kind``."""
    return [v for v in doc["versions"] if v["command"]["type"] == kind]


def ended_event(doc: Document) -> dict[str, Any]:
    [ended] = [e for e in doc["versions"][-1]["events"] if e["type"] == "match_ended"]
    event: dict[str, Any] = ended
    return event


def both_accounts(doc: Document) -> bool:
    return all(slot["account"] for slot in doc["match"]["players"].values())


def decision_began(doc: Document, seat: str) -> int:
    """When ``seat``'s last decision began: the last version that started its clock afresh."""
    began: list[int] = [
        v["mono_ms"]
        for v in doc["versions"]
        if v["clock"]["running"] == seat and v["clock"]["delay_left_ms"] == 10_000
    ]
    return began[-1]


# -- what each file promises ----------------------------------------------------------------


def check_no_first_decision(doc: Document) -> None:
    """An invitation between two accounts on the rules' clock, which would be rated: the first
    seat opens, the second draws twice (D1: no decision of its own) and decides nothing; at its
    first decision's delay plus the grace, not at the bank's end, the match is aborted naming it,
    unrated (D7)."""
    header = doc["match"]
    assert header["mode"] == "invite"
    assert both_accounts(doc)
    assert (header["status"], header["winner"]) == ("aborted", None)
    assert (header["reason"], header["rated"]) == ("no_first_decision", False)
    assert len(commands(doc, "draw")) == 2
    assert [v["seat"] for v in commands(doc, "play")] == ["first"]
    last = doc["versions"][-1]
    assert last["command"] == {"type": "abort", "reason": "no_first_decision", "seat": "second"}
    assert ended_event(doc) == {
        "type": "match_ended",
        "winner": None,
        "reason": "no_first_decision",
        "undecided": "second",
    }
    assert last["received_ms"] == decision_began(doc, "second") + 10_000 + 20_000
    before = doc["versions"][-2]["clock"]
    assert last["received_ms"] < before["deadline_ms"]  # long before R7.7's


def check_flag_after_first_decisions(doc: Document) -> None:
    """Both accounts decide once; then the first seat's clock runs out: R7.7 unchanged, a loss
    on time at the bank's end, rated."""
    header = doc["match"]
    assert both_accounts(doc)
    assert (header["winner"], header["reason"], header["rated"]) == ("second", "time", True)
    assert {v["seat"] for v in commands(doc, "play")} == {"first", "second"}
    last = doc["versions"][-1]
    assert last["command"] == {"type": "flag", "seat": "first"}
    assert "undecided" not in ended_event(doc)
    began = decision_began(doc, "first")
    bank = doc["versions"][-2]["clock"]["bank_left_ms"]["first"]
    assert bank < 120_000  # the first decision cost bank
    assert last["received_ms"] == began + 10_000 + bank


def check_join_timeout_after_waiting(doc: Document) -> None:
    """An invitation its creator kept open for 25 minutes, then left: aborted a whole join
    timeout after she left (D3), long after its creation plus the timeout; one version."""
    header = doc["match"]
    assert (header["mode"], header["players"]["second"]) == ("invite", None)
    assert (header["reason"], header["rated"]) == ("join_timeout", False)
    [only] = doc["versions"]
    assert only["command"] == {"type": "abort", "reason": "join_timeout"}
    assert header["ended_at_ms"] - header["created_at_ms"] > 25 * 60_000 + 600_000


def check_abandoned_shared(doc: Document) -> None:
    """A shared device dealt, revealed and opened, then left in the hand-over: aborted after the
    abandon timeout, clocks standing (D8)."""
    header = doc["match"]
    assert header["mode"] == "shared"
    assert (header["status"], header["reason"], header["rated"]) == ("aborted", "abandoned", False)
    before, last = doc["versions"][-2:]
    assert last["command"] == {"type": "abort", "reason": "abandoned"}
    assert before["clock"]["running"] is None  # the hand-over stood the clocks (R7.5)
    assert last["mono_ms"] - before["mono_ms"] >= 300_000


def check_rated_resign(doc: Document) -> None:
    """An open challenge between two accounts, random legal moves into round 2, resigned by the
    seat not on move: rated, as every format rates such a match."""
    header = doc["match"]
    assert header["mode"] == "open"
    assert both_accounts(doc)
    assert (header["reason"], header["rated"]) == ("resignation", True)
    assert len(doc["rounds"]) == 2
    before, last = doc["versions"][-2:]
    assert last["command"]["type"] == "resign"
    assert before["clock"]["running"] not in (None, last["command"]["seat"])


CONTENT: Final[dict[str, Callable[[Document], None]]] = {
    "v4_no_first_decision": check_no_first_decision,
    "v4_flag_after_first_decisions": check_flag_after_first_decisions,
    "v4_join_timeout_after_waiting": check_join_timeout_after_waiting,
    "v4_abandoned_shared": check_abandoned_shared,
    "v4_rated_resign": check_rated_resign,
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
    assert (doc["format"], doc["format_version"]) == ("spectacular-bid/match-record", 4)
    assert doc["match"]["settings"] == DEFAULT_SETTINGS
    assert all(isinstance(v["received_ms"], int) for v in doc["versions"])
    CONTENT[record_path.stem](doc)


def test_it_parses_and_verifies_with_the_headers_result(record_path: Path) -> None:
    doc = load(record_path)
    document = parse_document(doc)
    assert document.format_version == 4
    verified = verify(document)
    header = doc["match"]
    assert verified.match_id == header["id"]
    assert (verified.winner, verified.reason) == (header["winner"], header["reason"])
    assert verified.versions == len(doc["versions"])
    assert verified.rounds == len(doc["rounds"])


def test_a_copy_with_rated_flipped_fails_naming_rated(
    record_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = load(record_path)
    doc["match"]["rated"] = not doc["match"]["rated"]
    with pytest.raises(RecordMismatchError) as info:
        verify(parse_document(doc))
    assert (info.value.discrepancy.where, info.value.discrepancy.field) == ("match", "rated")
    tampered = tmp_path / record_path.name
    tampered.write_text(json.dumps(doc), encoding="utf-8")
    assert cli.main(["replay", "--verify", str(tampered)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"FAILED {doc['match']['id']}: match: rated: ")


def test_the_grace_is_part_of_what_is_verified() -> None:
    """D7's grace is an input of the replay: a copy that says the rule was off (null) does not
    reproduce the abort, and one with another grace does not reproduce its time."""
    doc = load(RECORDS_DIR / "v4_no_first_decision.json")
    for grace in (None, 25_000):
        doc["match"]["settings"]["first_decision_grace_ms"] = grace
        with pytest.raises(RecordMismatchError):
            verify(parse_document(doc))


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
    assert again["format_version"] == 4
    assert again["match"]["settings"] == doc["match"]["settings"]
    assert again["versions"] == doc["versions"]
    assert again["rounds"] == doc["rounds"]
    header, original = again["match"], doc["match"]
    assert (header["imported"], header["imported_id"], header["rated"]) == (
        True,
        original["id"],
        False,
    )
    assert header["players"] == original["players"]
    assert (header["winner"], header["reason"]) == (original["winner"], original["reason"])
    verified = verify(parse_document(again))
    assert (verified.winner, verified.reason) == (original["winner"], original["reason"])
