"""Golden match records of record format 2 (D4): every release must still read what release
c59edb4 wrote, rated under the policy of its time.

Each ``tests/golden/records/v2_*.json`` is the record document of one ended match, exported by
release c59edb4's own match service (``records.read_document(...).to_json()``) and never edited
or regenerated since (see ``records/README.md``). Format 2 records ``received_ms`` but not
whether a seat was an account, and rated an online match between two different players on the
default clock that ended by score, time or resignation — accounts or not. Through public entry
points only, each file must parse as format 2 and verify with its header's result (its rated
flag included: two guests' match is rated true here), pass ``specbid replay --verify``, print
one line per version with ``specbid replay``, and import through ``POST /api/records`` so that
``GET /api/matches/{id}/record`` gives back the same versions in the current format (3),
unrated since imported, and that document verifies too. A copy with its rated flag flipped
must fail, naming ``rated``. Each file is also checked to hold what its name promises.
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
RECORD_FILES: Final = sorted(RECORDS_DIR.glob("v2_*.json"))
DEFAULT_CLOCK: Final = {"bank_ms": 120_000, "delay_ms": 10_000}
"""The rules' time control (R7.1, R7.2): the only one format 2 rated."""
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


def last_two(doc: Document) -> tuple[dict[str, Any], dict[str, Any]]:
    """The version before the last one, and the last one."""
    before, last = doc["versions"][-2:]
    return before, last


def clock_of(doc: Document) -> dict[str, int]:
    settings = doc["match"]["settings"]
    return {"bank_ms": settings["bank_ms"], "delay_ms": settings["delay_ms"]}


def ended_mid_round(doc: Document) -> bool:
    """The last version ends the round in progress because the match ended (RoundEnd
    ``match_over``)."""
    last = doc["versions"][-1]
    return any(e["type"] == "round_ended" and e["reason"] == "match_over" for e in last["events"])


def rated_between_guests(doc: Document) -> None:
    """Rated under format 2's policy: online, two different players, the default clock, a
    winner by score, time or resignation — and no seat says it was an account (format 2 has no
    such field; format 3 would not rate this match)."""
    header = doc["match"]
    assert header["mode"] in ("invite", "open")
    assert clock_of(doc) == DEFAULT_CLOCK
    assert header["winner"] is not None
    assert header["reason"] in ("zero_balance", "time", "resignation")
    first, second = header["players"]["first"], header["players"]["second"]
    assert first["name"] != second["name"]
    assert set(first) == set(second) == {"name"}
    assert header["rated"] is True


# -- what each file promises ----------------------------------------------------------------


def check_rated_resign(doc: Document) -> None:
    """An invitation match between two guests on the default clock, a few rounds, resigned
    mid-round by the seat not on move (R5.2): rated."""
    assert doc["match"]["mode"] == "invite"
    assert len(doc["rounds"]) >= 3
    assert doc["match"]["reason"] == "resignation"
    before, last = last_two(doc)
    assert last["command"]["type"] == "resign"
    assert before["clock"]["running"] not in (None, last["command"]["seat"])
    assert ended_mid_round(doc)
    rated_between_guests(doc)


def check_zero_balance(doc: Document) -> None:
    """An open challenge played by random legal moves to its end by score (R1.5, R6.5), with a
    bank charged beyond the delay (R7.2): rated."""
    assert doc["match"]["mode"] == "open"
    assert (doc["match"]["status"], doc["match"]["reason"]) == ("finished", "zero_balance")
    assert commands(doc, "bid")
    assert any(e["reason"] == "domino" for e in events(doc, "round_ended"))
    bank_ms = doc["match"]["settings"]["bank_ms"]
    assert any(min(v["clock"]["bank_left_ms"].values()) < bank_ms for v in doc["versions"])
    rated_between_guests(doc)


def check_custom_clock_flag(doc: Document) -> None:
    """Lost on time on a custom clock (bank 2000 ms, delay 1000 ms): the server flags at the
    deadline (R7.7). Unrated: not the default clock."""
    assert doc["match"]["mode"] == "invite"
    assert clock_of(doc) == {"bank_ms": 2_000, "delay_ms": 1_000}
    assert (doc["match"]["reason"], doc["match"]["rated"]) == ("time", False)
    before, last = last_two(doc)
    assert last["command"]["type"] == "flag"
    assert last["mono_ms"] == before["clock"]["deadline_ms"]
    assert last["clock"]["bank_left_ms"][last["command"]["seat"]] == 0


def check_shared(doc: Document) -> None:
    """A shared-device match played to its end, with hand-overs ended by Reveal (R7.5).
    Unrated: one person holds both seats."""
    assert doc["match"]["mode"] == "shared"
    assert doc["match"]["status"] == "finished"
    assert doc["match"]["winner"] is not None
    assert doc["match"]["reason"] in ("zero_balance", "resignation")
    assert clock_of(doc) == DEFAULT_CLOCK
    assert doc["match"]["rated"] is False
    assert len(commands(doc, "reveal")) >= 4
    assert events(doc, "revealed")


CONTENT: Final[dict[str, Callable[[Document], None]]] = {
    "v2_rated_resign": check_rated_resign,
    "v2_zero_balance": check_zero_balance,
    "v2_custom_clock_flag": check_custom_clock_flag,
    "v2_shared": check_shared,
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
    assert (doc["format"], doc["format_version"]) == ("spectacular-bid/match-record", 2)
    # Format 2 records when each command was received (format 1 did not).
    assert all(isinstance(v["received_ms"], int) for v in doc["versions"])
    CONTENT[record_path.stem](doc)


def test_it_parses_and_verifies_with_the_headers_result(record_path: Path) -> None:
    doc = load(record_path)
    document = parse_document(doc)
    assert document.format_version == 2
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


async def test_it_imports_over_http_and_reads_back_in_the_current_format(
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
    # Served in the current format (4): the same versions and rounds (format 2 already had
    # received_ms), each seat now saying it was no account, the match imported and unrated, D7
    # off as it was then (a null grace: the first seat of v2_custom_clock_flag still lost on
    # time by sending nothing).
    assert again["format_version"] == 4
    assert again["match"]["settings"] == {**doc["match"]["settings"], FIRST_DECISION: None}
    assert again["versions"] == doc["versions"]
    assert again["rounds"] == doc["rounds"]
    header, original = again["match"], doc["match"]
    assert (header["imported"], header["imported_id"], header["rated"]) == (
        True,
        original["id"],
        False,
    )
    assert header["players"] == {
        seat: {"name": slot["name"], "account": False} for seat, slot in original["players"].items()
    }
    assert (header["winner"], header["reason"]) == (original["winner"], original["reason"])
    verified = verify(parse_document(again))
    assert verified.versions == len(doc["versions"])
    assert (verified.winner, verified.reason) == (original["winner"], original["reason"])
