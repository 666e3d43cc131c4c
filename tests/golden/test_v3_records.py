"""Golden match records of record format 3 (D4): every release must still read what release
6fbafbc, the last to write format 3, wrote.

Each ``tests/golden/records/v3_*.json`` is the record document of one ended match, exported by
that release's own server (``GET /api/matches/{id}/record``) and never edited or regenerated
since (see ``records/README.md``). Format 3 adds each seat's ``account``, and rates a match only
between two accounts on the rules' clock (a guests' match that format 2 rated is unrated here);
its matches ran before D7, so a seat that never decided lost on time at its bank's end (R7.7).
Its releases also played the computer (``"mode": "bot"``) and moved a live match from a
stopping server to a peer (``hand_over`` and ``resume`` versions). Through public entry points only,
each file must parse as format 3 and verify with its header's result, pass ``specbid replay
--verify``, print one line per version with ``specbid replay``, and import through ``POST
/api/records`` so that ``GET /api/matches/{id}/record`` gives back the same versions and rounds
in the current format, D7 off (a null grace), unrated since imported, each seat's account as
it was, and that document verifies too. A copy with its rated flag flipped must fail, naming
``rated``. Each file is also checked to hold what its name promises.
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
RECORD_FILES: Final = sorted(RECORDS_DIR.glob("v3_*.json"))
RELEASE_SETTINGS: Final = {
    "bank_ms": 120_000,
    "delay_ms": 10_000,
    "grace_ms": 20_000,
    "join_timeout_ms": 60_000,
}
"""The rules' clock (R7.1, R7.2) and the release's defaults for D3, as its server ran them."""
FIRST_DECISION: Final = "first_decision_grace_ms"
"""Format 4's D7 setting: null in a match imported from an earlier format, which ran without it."""
DECISIONS: Final = frozenset({"bid", "raise", "accept", "decline", "play"})
"""The commands that are a seat's own decision (D7); a draw is not (D1)."""
_VERSION_LINE: Final = re.compile(r"v(\d+) ")

Document = dict[str, Any]


def load(path: Path) -> Document:
    data: Document = json.loads(path.read_text(encoding="utf-8"))
    return data


def commands(doc: Document, kind: str) -> list[dict[str, Any]]:
    """Every version whose command is of type ``kind``."""
    return [v for v in doc["versions"] if v["command"]["type"] == kind]


def accounts(doc: Document) -> dict[str, bool]:
    """Each seated player's ``account`` flag, by seat."""
    return {seat: slot["account"] for seat, slot in doc["match"]["players"].items() if slot}


def settings_with(**changes: int) -> dict[str, int]:
    return {**RELEASE_SETTINGS, **changes}


def decision_began(doc: Document, seat: str) -> int:
    """When ``seat``'s last decision began: the last version that started its clock afresh."""
    delay = doc["match"]["settings"]["delay_ms"]
    began: list[int] = [
        v["mono_ms"]
        for v in doc["versions"]
        if v["clock"]["running"] == seat and v["clock"]["delay_left_ms"] == delay
    ]
    return began[-1]


def resigned_by_the_seat_not_on_move(doc: Document) -> None:
    before, last = doc["versions"][-2:]
    assert last["command"]["type"] == "resign"
    assert before["clock"]["running"] not in (None, last["command"]["seat"])


# -- what each file promises ----------------------------------------------------------------


def check_rated_resign(doc: Document) -> None:
    """An open challenge between two accounts on the rules' clock, random legal moves into
    round 3, resigned by the seat not on move (R5.2): rated, as format 3 rates it."""
    header = doc["match"]
    assert header["mode"] == "open"
    assert accounts(doc) == {"first": True, "second": True}
    assert (header["reason"], header["rated"]) == ("resignation", True)
    assert len(doc["rounds"]) == 3
    resigned_by_the_seat_not_on_move(doc)


def check_flag_never_decided(doc: Document) -> None:
    """Two accounts; the first seat decides, the second never does and loses on time at its
    delay plus its whole bank (R7.7), rated: format 3 had no D7, so no abort at 30 s."""
    header = doc["match"]
    assert header["mode"] == "invite"
    assert accounts(doc) == {"first": True, "second": True}
    assert (header["winner"], header["reason"], header["rated"]) == ("first", "time", True)
    decided = {v["seat"] for v in doc["versions"] if v["command"]["type"] in DECISIONS}
    assert decided == {"first"}
    last = doc["versions"][-1]
    assert last["command"] == {"type": "flag", "seat": "second"}
    assert last["received_ms"] == decision_began(doc, "second") + 10_000 + 120_000


def check_custom_clock_flag(doc: Document) -> None:
    """An account against a guest on a casual clock (bank 2000 ms, delay 1000 ms); the seat on
    move sends nothing and is flagged at the deadline (R7.7): unrated."""
    header = doc["match"]
    assert header["settings"] == settings_with(bank_ms=2_000, delay_ms=1_000)
    assert accounts(doc) == {"first": True, "second": False}
    assert (header["reason"], header["rated"]) == ("time", False)
    before, last = doc["versions"][-2:]
    assert last["command"] == {"type": "flag", "seat": before["clock"]["running"]}
    assert last["received_ms"] == before["clock"]["deadline_ms"]


def check_guests_zero_balance(doc: Document) -> None:
    """Two guests on the rules' clock, random legal moves to the end by score (R1.5):
    unrated, since format 3 rates a match only between two accounts (format 2 rated it)."""
    header = doc["match"]
    assert header["mode"] == "invite"
    assert accounts(doc) == {"first": False, "second": False}
    assert (header["status"], header["reason"], header["rated"]) == (
        "finished",
        "zero_balance",
        False,
    )
    assert header["winner"] is not None


def check_shared(doc: Document) -> None:
    """An account's shared device, both seats one player, a Reveal at each hand-over (R7.5),
    to the end by score: unrated."""
    header = doc["match"]
    assert header["mode"] == "shared"
    assert header["players"]["first"] == header["players"]["second"]
    assert accounts(doc) == {"first": True, "second": True}
    assert commands(doc, "reveal")
    assert (header["reason"], header["rated"]) == ("zero_balance", False)


def check_join_timeout(doc: Document) -> None:
    """An account's invitation nobody joined: aborted at the release's join timeout (D3)."""
    header = doc["match"]
    assert (header["mode"], header["players"]["second"]) == ("invite", None)
    assert (header["reason"], header["rated"]) == ("join_timeout", False)
    [only] = doc["versions"]
    assert only["command"] == {"type": "abort", "reason": "join_timeout"}
    assert header["ended_at_ms"] - header["created_at_ms"] == RELEASE_SETTINGS["join_timeout_ms"]


def check_bot(doc: Document) -> None:
    """A guest against the computer at level 3, which played its own moves, into round 2; the
    person resigned: unrated, as every match against the computer."""
    header = doc["match"]
    assert header["mode"] == "bot"
    assert header["players"]["second"] == {"name": "Computer (level 3)", "account": False}
    assert {v["command"]["type"] for v in doc["versions"] if v["seat"] == "second"} >= {"play"}
    assert len(doc["rounds"]) == 2
    assert doc["versions"][-1]["command"] == {"type": "resign", "seat": "first"}
    assert (header["winner"], header["rated"]) == ("second", False)


def check_handed_over(doc: Document) -> None:
    """Two accounts' match moved between servers mid-decision: a hand-over version stands the
    clocks (the running decision's delay kept), the peer's resume version records the pause,
    charged to nobody, and play goes on there until the seat not on move resigns: rated."""
    header = doc["match"]
    assert accounts(doc) == {"first": True, "second": True}
    assert (header["reason"], header["rated"]) == ("resignation", True)
    kinds = [v["command"]["type"] for v in doc["versions"]]
    at = kinds.index("hand_over")
    assert kinds.count("hand_over") == kinds.count("resume") == 1
    before, stood, resumed = doc["versions"][at - 1 : at + 2]
    assert resumed["command"]["type"] == "resume"
    assert resumed["command"]["paused_ms"] == resumed["wall_ms"] - stood["wall_ms"]
    running = before["clock"]["running"]
    assert running is not None
    assert stood["clock"]["running"] == resumed["clock"]["running"] == running
    assert stood["clock"]["bank_left_ms"] == resumed["clock"]["bank_left_ms"]
    assert stood["clock"]["delay_left_ms"] == resumed["clock"]["delay_left_ms"]
    assert any(v["seat"] is not None for v in doc["versions"][at + 2 :])
    resigned_by_the_seat_not_on_move(doc)


CONTENT: Final[dict[str, Callable[[Document], None]]] = {
    "v3_rated_resign": check_rated_resign,
    "v3_flag_never_decided": check_flag_never_decided,
    "v3_custom_clock_flag": check_custom_clock_flag,
    "v3_guests_zero_balance": check_guests_zero_balance,
    "v3_shared": check_shared,
    "v3_join_timeout": check_join_timeout,
    "v3_bot": check_bot,
    "v3_handed_over": check_handed_over,
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
    assert (doc["format"], doc["format_version"]) == ("spectacular-bid/match-record", 3)
    assert FIRST_DECISION not in doc["match"]["settings"]
    assert all(isinstance(v["received_ms"], int) for v in doc["versions"])
    if record_path.stem != "v3_custom_clock_flag":
        assert doc["match"]["settings"] == RELEASE_SETTINGS
    CONTENT[record_path.stem](doc)


def test_it_parses_and_verifies_with_the_headers_result(record_path: Path) -> None:
    doc = load(record_path)
    document = parse_document(doc)
    assert document.format_version == 3
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


def test_a_guests_match_is_rated_by_its_own_formats_policy() -> None:
    """The same guests' match said in format 2 (no accounts) was rated then: the unrated
    header that format 3 wrote does not verify under format 2's policy. Each format keeps its
    own policy; none is judged by another's."""
    doc = load(RECORDS_DIR / "v3_guests_zero_balance.json")
    doc["format_version"] = 2
    for slot in doc["match"]["players"].values():
        del slot["account"]
    with pytest.raises(RecordMismatchError) as info:
        verify(parse_document(doc))
    assert (info.value.discrepancy.where, info.value.discrepancy.field) == ("match", "rated")
    doc["match"]["rated"] = True
    assert verify(parse_document(doc)).versions == len(doc["versions"])


def test_a_seat_that_never_decided_lost_on_time_not_by_d7() -> None:
    """Format 3's matches ran without D7: its flag replays only with the rule off. Said in the
    current format with D7's grace on, the same versions do not reproduce."""
    doc = load(RECORDS_DIR / "v3_flag_never_decided.json")
    doc["format_version"] = 4
    doc["match"]["settings"][FIRST_DECISION] = None
    assert verify(parse_document(doc)).reason == "time"
    doc["match"]["settings"][FIRST_DECISION] = 20_000
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
    # Served in the current format (4): the same versions and rounds, each seat's account as
    # format 3 said it, the match imported and unrated, D7 off as it was then (a null grace).
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
    assert (header["mode"], header["players"]) == (original["mode"], original["players"])
    assert (header["winner"], header["reason"]) == (original["winner"], original["reason"])
    verified = verify(parse_document(again))
    assert verified.versions == len(doc["versions"])
    assert (verified.winner, verified.reason) == (original["winner"], original["reason"])
