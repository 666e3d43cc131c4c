"""``verify`` names the first thing a record says that its replay does not; ``specbid replay``
exits 0, 1 (a discrepancy) or 2 (not a record, nothing stored) and says why."""

from __future__ import annotations

import asyncio
import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from spectacular_bid import cli
from spectacular_bid.service.describe import describe
from spectacular_bid.service.discrepancy import RecordMismatchError
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.record_document import RecordFormatError, parse_document, version_of
from spectacular_bid.service.records import records_for_import
from spectacular_bid.service.replay import verify
from spectacular_bid.service.settings import ServiceSettings

from .inproc import play, seated_match

JSON = Any
_RECORD: list[JSON] = []


async def finished_record() -> JSON:
    """The record of one complete random match (made once, copied for each test)."""
    if not _RECORD:
        service = MatchService(
            InMemoryStore(), ServiceSettings(grace_ms=600_000, lag_threshold_ms=60_000)
        )
        await service.start()
        try:
            actor, players = await seated_match(service, accounts=True)
            await play(service, actor, players, random.Random(12))
            # As it travels: JSON text (no object shared between its parts).
            _RECORD.append(json.loads(json.dumps(await service.record(actor.id))))
        finally:
            await service.stop()
    return copy.deepcopy(_RECORD[0])


def first_of(record: JSON, kind: str) -> tuple[int, int, JSON]:
    """(version, index in its events, event) of the first event of ``kind``."""
    for version in record["versions"]:
        for j, event in enumerate(version["events"]):
            if event["type"] == kind:
                return version["version"], j, event
    raise AssertionError(f"no {kind} event")


def _version(record: JSON, number: int) -> JSON:
    return record["versions"][number - 1]


def _played_award(r: JSON) -> str:
    v, j, event = first_of(r, "played")
    event["award"] += 5
    return f"version {v}: events[{j}].award: expected {event['award'] - 5}, found {event['award']}"


def _balance(r: JSON) -> str:
    v, j, event = first_of(r, "transferred")
    event["balances"]["second"] -= 5
    b = event["balances"]["second"]
    return f"version {v}: events[{j}].balances.second: expected {b + 5}, found {b}"


def _hand(r: JSON) -> str:
    v, j, event = first_of(r, "round_dealt")
    hand = event["hands"]["first"]
    hand[0], hand[1] = hand[1], hand[0]
    return f"version {v}: events[{j}].hands.first[0]: expected '{hand[1]}', found '{hand[0]}'"


def _extra_event(r: JSON) -> str:
    v, _, _ = first_of(r, "played")
    events = _version(r, v)["events"]
    events.append({"type": "passed", "seat": "first"})
    return f"version {v}: events[{len(events) - 1}]: expected (nothing), found "


def _revealed_salt(r: JSON) -> str:
    v, j, event = first_of(r, "deck_revealed")
    event["salt"] = "0" * 32
    return f"version {v}: events[{j}].salt: expected '"


def _deal_deck(r: JSON) -> str:
    deal = next(v for v in r["versions"] if v["command"]["type"] == "deal")
    deck = deal["command"]["deck"]
    deck[0], deck[20] = deck[20], deck[0]  # a different deal than the one committed to
    # The changed deck is named, not the hands it deals: the round's reveal shows the deck.
    return f"version {deal['version']}: command.deck[0]: expected '{deck[20]}', found '{deck[0]}'"


def _round_commitment(r: JSON) -> str:
    r["rounds"][0]["commitment"] = "f" * 64
    return "round 1: commitment: expected '"


def _round_deck(r: JSON) -> str:
    deck = r["rounds"][-1]["deck"]
    deck[5], deck[6] = deck[6], deck[5]
    return f"round {len(r['rounds'])}: deck[5]: expected '{deck[6]}', found '{deck[5]}'"


def _seat(r: JSON) -> str:
    v, _, event = first_of(r, "played")
    _version(r, v)["seat"] = "second" if event["seat"] == "first" else "first"
    return f"version {v}: seat: expected '{event['seat']}'"


def _missing_version(r: JSON) -> str:
    del r["versions"][4]
    return "version 6: version: expected 5, found 6"


def _illegal_command(r: JSON) -> str:
    v, _, event = first_of(r, "played")
    _version(r, v)["command"]["tile"] = "9-9" if event["tile"] != "9-9" else "0-0"
    return f"version {v}: command: expected 'a command the match machine accepts', found "


def _bank_grows(r: JSON) -> str:
    last = r["versions"][-1]
    banks = last["clock"]["bank_left_ms"]
    kept, banks["first"] = banks["first"], 10**9
    # Every clock reading is recomputed by the machine and must be exactly the recorded one.
    return f"version {last['version']}: clock.bank_left_ms.first: expected {kept}, found {10**9}"


def _winner(r: JSON) -> str:
    winner = r["match"]["winner"]
    r["match"]["winner"] = "second" if winner == "first" else "first"
    return f"match: winner: expected '{winner}'"


def _rated(r: JSON) -> str:
    r["match"]["rated"] = False
    return "match: rated: expected true, found false"


def _guest_seat(r: JSON) -> str:
    r["match"]["players"]["second"]["account"] = False  # a guest's match is never rated
    return "match: rated: expected false, found true"


def _bool_for_int(r: JSON) -> str:
    r["match"]["rated"] = 1
    return "match.rated: expected true or false, found 1"


TAMPERS: list[Callable[[JSON], str]] = [
    _played_award,
    _balance,
    _hand,
    _extra_event,
    _revealed_salt,
    _deal_deck,
    _round_commitment,
    _round_deck,
    _seat,
    _missing_version,
    _illegal_command,
    _bank_grows,
    _winner,
    _rated,
    _guest_seat,
]


async def test_the_untouched_record_verifies() -> None:
    record = await finished_record()
    verified = verify(parse_document(record))
    assert verified.versions == len(record["versions"])
    assert verified.rounds == len(record["rounds"]) >= 1
    assert verified.winner == record["match"]["winner"]


@pytest.mark.parametrize("tamper", TAMPERS, ids=lambda t: t.__name__.strip("_"))
async def test_a_tampered_record_fails_naming_the_first_discrepancy(
    tamper: Callable[[JSON], str],
) -> None:
    record = await finished_record()
    expected = tamper(record)
    with pytest.raises(RecordMismatchError) as failed:
        verify(parse_document(record))
    assert str(failed.value).startswith(expected)


async def test_a_document_of_another_shape_is_refused_naming_the_field() -> None:
    record = await finished_record()
    flipped = copy.deepcopy(record)
    _bool_for_int(flipped)
    with pytest.raises(RecordFormatError, match=r"match\.rated: expected true or false, found 1"):
        parse_document(flipped)
    assert record["format_version"] == 4
    assert record["match"]["players"]["first"] == {"name": "Ann", "account": True}
    assert record["match"]["settings"]["first_decision_grace_ms"] == 20_000
    # Format 3 has no D7 setting, and format 4 cannot do without it (null: the rule was off).
    third = copy.deepcopy(record)
    del third["match"]["settings"]["first_decision_grace_ms"]
    assert parse_document({**third, "format_version": 3}).format_version == 3
    with pytest.raises(RecordFormatError, match=r"match\.settings: unknown field 'first_decisi"):
        parse_document({**record, "format_version": 3})
    with pytest.raises(RecordFormatError, match=r"match\.settings: missing field 'first_decisi"):
        parse_document(third)
    off = copy.deepcopy(record)
    off["match"]["settings"]["first_decision_grace_ms"] = None
    assert parse_document(off).format_version == 4
    negative = copy.deepcopy(record)
    negative["match"]["settings"]["first_decision_grace_ms"] = -1
    with pytest.raises(RecordFormatError, match=r"match\.settings\.first_decision_grace_ms: exp"):
        parse_document(negative)
    older = copy.deepcopy(third)
    for slot in older["match"]["players"].values():
        del slot["account"]
    for version in (1, 2):  # still read, without the seats' account
        assert parse_document({**older, "format_version": version}).format_version == version
        with pytest.raises(RecordFormatError, match=r"match\.players\.first: unknown field 'acc"):
            parse_document({**third, "format_version": version})
    with pytest.raises(RecordFormatError, match=r"match\.players\.first: missing field 'acc"):
        parse_document({**older, "format_version": 3})
    with pytest.raises(
        RecordFormatError, match=r"format_version: expected one of \[1, 2, 3, 4\], found 5"
    ):
        parse_document({**record, "format_version": 5})
    broken = copy.deepcopy(record)
    del broken["versions"][3]["clock"]
    with pytest.raises(RecordFormatError, match=r"versions\[3\]: missing field 'clock'"):
        parse_document(broken)
    ongoing = {**record, "match": {**record["match"], "status": "active"}}
    with pytest.raises(RecordFormatError, match=r"match\.status: expected 'finished' or 'abort"):
        parse_document(ongoing)


async def test_a_relayed_commands_audit_verifies_and_imports_in_format_4_only() -> None:
    """``relayed_ms``, a version's time in the relay between server processes, is the clock
    audit of a command nobody was charged for: optional from format 4, never negative, carried
    through an import, and no input of the replay (its ``received_ms`` is the charge)."""
    record = await finished_record()
    audited = copy.deepcopy(record)
    audited["versions"][3]["relayed_ms"] = 1_840
    document = parse_document(audited)
    assert verify(document).versions == len(record["versions"])
    imported = records_for_import(document, "m-imported", 1_796_046_300_000)
    assert [e.relayed_ms for e in imported.events][2:5] == [None, 1_840, None]
    assert version_of(imported.events[3])["relayed_ms"] == 1_840
    assert "relayed_ms" not in version_of(imported.events[2])
    negative = copy.deepcopy(audited)
    negative["versions"][3]["relayed_ms"] = -1
    with pytest.raises(RecordFormatError, match=r"versions\[3\]\.relayed_ms: expected"):
        parse_document(negative)
    third = copy.deepcopy(audited)
    del third["match"]["settings"]["first_decision_grace_ms"]
    with pytest.raises(RecordFormatError, match=r"versions\[3\]: unknown field 'relayed_ms'"):
        parse_document({**third, "format_version": 3})


async def test_describe_prints_the_header_then_each_version() -> None:
    record = await finished_record()
    lines = list(describe(parse_document(record)))
    winner = record["match"]["winner"]
    assert lines[0] == (
        f"Match {record['match']['id']} (invite): Ann (first) v Bo (second). "
        f"{winner} ({'Ann' if winner == 'first' else 'Bo'}) wins: zero_balance, rated."
    )
    assert lines[1:4] == [
        "v1 second: join",
        "  Bo takes the second seat",
        "  clock: first 120.000 s, second 120.000 s; stopped",
    ]
    numbered = [line for line in lines if line.startswith("v")]
    assert len(numbered) == len(record["versions"])


async def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = await asyncio.to_thread(cli.main, list(argv))
    out, err = capsys.readouterr()
    return status, out, err


async def test_replay_exit_statuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = await finished_record()
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record), encoding="utf-8")
    assert (await run_cli(capsys, "replay", "--verify", str(good)))[0] == 0

    changed = copy.deepcopy(record)
    expected = _balance(changed)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(changed), encoding="utf-8")
    status, out, _ = await run_cli(capsys, "replay", "--verify", str(bad))
    assert status == 1
    assert out == f"FAILED {record['match']['id']}: {expected}\n"

    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json", encoding="utf-8")
    status, out, err = await run_cli(capsys, "replay", "--verify", str(garbage))
    assert (status, out) == (2, "")
    assert err.startswith(f"error: {garbage} is not JSON")

    other = tmp_path / "other.json"
    other.write_text('{"format": "something-else"}', encoding="utf-8")
    status, _, err = await run_cli(capsys, "replay", str(other))
    assert status == 2
    assert "not a match record: format: expected 'spectacular-bid/match-record'" in err

    empty = tmp_path / "empty-data"
    status, _, err = await run_cli(capsys, "replay", "nosuchmatch", "--data-dir", str(empty))
    assert status == 2
    assert (
        err == f"error: no match 'nosuchmatch': there is no database at {empty}/specbid.sqlite3\n"
    )
    assert not empty.exists()

    status, out, _ = await run_cli(capsys, "replay", "--export", str(good))
    assert status == 0
    assert json.loads(out) == record
