"""A kept record changed in one field is refused naming that field (D4): its place in the
document (``versions[11].mono_ms``, ``rounds[0].deck[5]``, ``match.ended_at_ms``), as a format
error names one, and the version or round a person reads it by.

A version's recorded inputs — its ``mono_ms``, ``received_ms`` and a deal's deck — decide its
clock reading and events, so a changed input first shows as a reading or an event that differs;
the discrepancy names the input all the same. Each case changes one field of a golden record
(``tests/golden/records``, never edited) in a copy; the import and ``POST /api/records/verify``
name it as ``specbid replay --verify`` does.
"""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Final

import httpx
import pytest

from spectacular_bid import cli
from spectacular_bid.service.discrepancy import Discrepancy, RecordMismatchError
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.record_document import parse_document
from spectacular_bid.service.replay import verify
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings

RECORDS_DIR: Final = Path(__file__).resolve().parent / "records"

Document = dict[str, Any]
Tamper = Callable[[Document], str]
"""Changes one field of a record; returns that field's path in the document."""


def load(name: str) -> Document:
    data: Document = json.loads((RECORDS_DIR / name).read_text(encoding="utf-8"))
    return data


def standing(doc: Document) -> int:
    """A player's move (not one of the first versions) after which the clocks stand."""
    versions = doc["versions"]
    return next(
        i
        for i in range(3, len(versions))
        if versions[i]["clock"]["running"] is None and versions[i]["seat"] is not None
    )


def running(doc: Document) -> int:
    """A placement after which the other seat's clock runs."""
    versions = doc["versions"]
    return next(
        i
        for i in range(3, len(versions))
        if versions[i]["command"]["type"] == "play" and versions[i]["clock"]["running"]
    )


def charged(doc: Document) -> tuple[int, str]:
    """A decision that cost its seat bank beyond the delay (R7.2), and that seat."""
    versions = doc["versions"]
    for i in range(1, len(versions)):
        before, after = versions[i - 1]["clock"], versions[i]["clock"]
        seat = before["running"]
        cost = before["bank_left_ms"][seat] - after["bank_left_ms"][seat] if seat else 0
        if cost > 0 and versions[i]["seat"] == seat:
            return i, seat
    raise AssertionError("no decision cost bank")


def first_event(doc: Document, kind: str) -> tuple[int, int, dict[str, Any]]:
    for i, version in enumerate(doc["versions"]):
        for j, event in enumerate(version["events"]):
            if event["type"] == kind:
                return i, j, event
    raise AssertionError(f"no {kind} event")


def _mono_later_standing(doc: Document) -> str:
    i = standing(doc)
    doc["versions"][i]["mono_ms"] += 1
    return f"versions[{i}].mono_ms"


def _mono_later_running(doc: Document) -> str:
    i = running(doc)
    doc["versions"][i]["mono_ms"] += 1
    return f"versions[{i}].mono_ms"


def _mono_earlier(doc: Document) -> str:
    i = running(doc)
    doc["versions"][i]["mono_ms"] -= 1
    return f"versions[{i}].mono_ms"


def _received_later(doc: Document) -> str:
    i = running(doc)
    doc["versions"][i]["received_ms"] += 1
    return f"versions[{i}].received_ms"


def _received_earlier_on_bank(doc: Document) -> str:
    i, _seat = charged(doc)
    doc["versions"][i]["received_ms"] -= 1
    return f"versions[{i}].received_ms"


def _last_wall(doc: Document) -> str:
    last = len(doc["versions"]) - 1
    doc["versions"][last]["wall_ms"] += 1
    return f"versions[{last}].wall_ms"


def _last_wall_before_the_end(doc: Document) -> str:
    last = len(doc["versions"]) - 1
    doc["versions"][last]["wall_ms"] = doc["match"]["ended_at_ms"] - 1
    return f"versions[{last}].wall_ms"


def _ended(doc: Document) -> str:
    doc["match"]["ended_at_ms"] -= 1
    return "match.ended_at_ms"


def _ended_after_last_version(doc: Document) -> str:
    doc["match"]["ended_at_ms"] = doc["versions"][-1]["wall_ms"] + 1
    return "match.ended_at_ms"


def _created(doc: Document) -> str:
    doc["match"]["created_at_ms"] = doc["match"]["ended_at_ms"] + 1
    return "match.created_at_ms"


def _bank(doc: Document) -> str:
    i, seat = charged(doc)
    doc["versions"][i]["clock"]["bank_left_ms"][seat] -= 1000
    return f"versions[{i}].clock.bank_left_ms.{seat}"


def _award(doc: Document) -> str:
    i, j, event = first_event(doc, "played")
    event["award"] += 5
    return f"versions[{i}].events[{j}].award"


def _round_deck(doc: Document) -> str:
    deck = doc["rounds"][0]["deck"]
    deck[5], deck[6] = deck[6], deck[5]
    return "rounds[0].deck[5]"


def _deal_deck(doc: Document) -> str:
    i = next(i for i, v in enumerate(doc["versions"]) if v["command"]["type"] == "deal")
    deck = doc["versions"][i]["command"]["deck"]
    deck[0], deck[20] = deck[20], deck[0]
    return f"versions[{i}].command.deck[0]"


def _salt(doc: Document) -> str:
    doc["rounds"][0]["salt"] = "0" * 32
    return "rounds[0].salt"


def _winner(doc: Document) -> str:
    doc["match"]["winner"] = "first" if doc["match"]["winner"] == "second" else "second"
    return "match.winner"


CASES: Final[list[tuple[str, Tamper]]] = [
    ("v2_zero_balance.json", _mono_later_standing),
    ("v2_zero_balance.json", _mono_later_running),
    ("v2_zero_balance.json", _mono_earlier),
    ("v1_auction_domino.json", _mono_later_standing),
    ("v1_auction_domino.json", _mono_earlier),
    ("v4_rated_resign.json", _mono_later_running),
    ("v2_zero_balance.json", _received_later),
    ("v2_zero_balance.json", _received_earlier_on_bank),
    ("v4_flag_after_first_decisions.json", _received_earlier_on_bank),
    ("v4_rated_resign.json", _last_wall),
    ("v1_flag.json", _last_wall_before_the_end),
    ("v2_rated_resign.json", _ended),
    ("v1_flag_end_rounding.json", _ended_after_last_version),
    ("v4_rated_resign.json", _created),
    ("v2_zero_balance.json", _bank),
    ("v2_zero_balance.json", _award),
    ("v1_auction_domino.json", _round_deck),
    ("v4_rated_resign.json", _deal_deck),
    ("v1_block.json", _deal_deck),
    ("v2_shared.json", _salt),
    ("v4_rated_resign.json", _winner),
]


def refusal(doc: Document) -> Discrepancy:
    with pytest.raises(RecordMismatchError) as failed:
        verify(parse_document(doc))
    return failed.value.discrepancy


def names(found: Discrepancy, path: str) -> bool:
    """Whether a discrepancy names the field at ``path``: as its own, or, where two fields
    disagree and either could have been changed alone, as the other one its message quotes."""
    return found.path == path or f"({path})" in str(found)


@pytest.mark.parametrize(
    ("name", "tamper"), CASES, ids=[f"{n[:-5]}-{t.__name__.strip('_')}" for n, t in CASES]
)
def test_a_changed_field_is_named(name: str, tamper: Tamper) -> None:
    original = load(name)
    verify(parse_document(original))
    changed = copy.deepcopy(original)
    path = tamper(changed)
    found = refusal(changed)
    assert names(found, path), (path, found.path, str(found))


def test_a_changed_mono_ms_is_named_and_not_the_clock_it_moved() -> None:
    """The defect as it was met: a 1 ms change to ``mono_ms`` was refused naming
    ``clock.now_ms``, a field nobody changed. Any version's, in a record of each kind."""
    for name in ("v1_flag_end_rounding.json", "v4_rated_resign.json"):
        for index in range(3, len(load(name)["versions"])):
            changed = load(name)
            version = changed["versions"][index]
            version["mono_ms"] += 1
            found = refusal(changed)
            assert found.path == f"versions[{index}].mono_ms", (name, index, str(found))
            assert (found.where, found.field) == (f"version {version['version']}", "mono_ms")
            assert found.found == version["mono_ms"]


@pytest.fixture
async def http(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(WebSettings(static_dir=tmp_path / "none"), store=InMemoryStore())
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            session = await client.post("/api/session", json={"name": "Archivist"})
            client.headers["Authorization"] = f"Bearer {session.json()['token']}"
            yield client


async def test_the_import_and_the_verify_answer_name_it_as_the_command_line_does(
    http: httpx.AsyncClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    changed = load("v1_flag_end_rounding.json")
    path = _mono_later_running(changed)
    index = int(path.split("[")[1].split("]")[0])
    version = changed["versions"][index]["version"]
    line = str(refusal(changed))
    assert line.startswith(f"version {version}: mono_ms: expected ")

    saved = tmp_path / "changed.json"
    saved.write_text(json.dumps(changed), encoding="utf-8")
    assert cli.main(["replay", "--verify", str(saved)]) == 1
    assert capsys.readouterr().out == f"FAILED {changed['match']['id']}: {line}\n"

    imported = await http.post("/api/records", json=changed)
    assert imported.status_code == 422, imported.text
    assert imported.json()["error"]["message"] == f"the record does not verify: {line}"

    checked = await http.post("/api/records/verify", json=changed)
    assert checked.status_code == 200, checked.text
    answer = checked.json()
    assert (answer["verified"], answer["importable"]) == (False, False)
    assert answer["discrepancy"]["path"] == path
    assert (answer["discrepancy"]["field"], answer["discrepancy"]["version"]) == (
        "mono_ms",
        version,
    )
    assert answer["discrepancy"]["message"] == line
