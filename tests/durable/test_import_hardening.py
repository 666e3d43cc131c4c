"""``POST /api/records`` refuses whatever the engine's own replay does not vouch for (PROTOCOL.md
"Replays and ended matches"), with ``422 bad_message`` naming the field and quoting the bad value,
never a 500:

- numbers a record cannot hold: floats for integers, integers past 64 bits or past the year
  9999, negative times — anywhere in the document;
- every clock reading (``now_ms``, ``delay_left_ms``, ``deadline_ms``, banks) and every
  monotonic time (``mono_ms``, ``received_ms``) that the match machine, re-run, does not give;
- wall-clock readings that contradict each other (ended before created, an end that is not the
  last version's time) and settings outside what this server allows (R7.1, R7.2, D3);
- a field that is not in the format, at every level.

And an imported match always gets a fresh id of the server's own form; the record's id is kept
as data (``imported_id``), and the export of an imported match imports again.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Final

import httpx
import pytest
from fastapi import FastAPI

from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.ports import MatchStore
from spectacular_bid.service.record_document import (
    BANK_MS_MAX,
    DELAY_MS_MAX,
    FIRST_DECISION_GRACE_MS_MAX,
)
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings

from .inproc import play, seated_match
from .live import bearer, guest

JSON = Any
SERVER_ID: Final = re.compile(r"[A-Za-z0-9]{12}")
"""The form of the ids this server makes (``records.new_match_id``)."""
HUGE: Final = 2**70
GOLDEN_V1: Final = Path(__file__).resolve().parents[1] / "golden" / "records" / "v1_resign.json"
_RECORD: list[JSON] = []


async def format2_record() -> JSON:
    """The record of one complete random match as this release writes it (made once)."""
    if not _RECORD:
        service = MatchService(
            InMemoryStore(), ServiceSettings(grace_ms=600_000, lag_threshold_ms=60_000)
        )
        await service.start()
        try:
            actor, players = await seated_match(service)
            await play(service, actor, players, random.Random(12))
            _RECORD.append(json.loads(json.dumps(await service.record(actor.id))))
        finally:
            await service.stop()
    return copy.deepcopy(_RECORD[0])


@pytest.fixture
async def app(store: MatchStore, tmp_path: Path) -> AsyncIterator[FastAPI]:
    made = create_app(WebSettings(static_dir=tmp_path / "none"), store)
    async with made.router.lifespan_context(made):
        yield made


@pytest.fixture
async def http(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        client.headers.update(bearer(await guest(client, "Archivist")))
        yield client


async def post(http: httpx.AsyncClient, record: JSON) -> httpx.Response:
    return await http.post("/api/records", json=record)


# -- where to tamper ------------------------------------------------------------------------


def _index(record: JSON, wanted: Callable[[JSON], bool]) -> int:
    return next(i for i, v in enumerate(record["versions"]) if wanted(v))


def running(record: JSON) -> int:
    """A version after which a decision is being timed, its delay not used up."""
    return _index(record, lambda v: v["clock"]["running"] and v["clock"]["delay_left_ms"] > 0)


def standing(record: JSON) -> int:
    """A version (not one of the first three) after which the clocks stand."""
    versions = record["versions"]
    return next(i for i in range(3, len(versions)) if versions[i]["clock"]["running"] is None)


def press(record: JSON) -> int:
    """A Start press that did not deal: the clocks stand, so only its times say when it was."""
    return _index(record, lambda v: v["command"]["type"] == "start")


def move(record: JSON) -> int:
    """A placement: charged at its receive time, never before its decision started (R7.7)."""
    return _index(record, lambda v: v["command"]["type"] == "play")


def _set(path: str, value: object) -> Callable[[JSON], None]:
    """Set ``a.b[3].c`` (``-1`` for the last item) to ``value``."""

    def tamper(record: JSON) -> None:
        keys: list[str | int] = [
            int(k) if k.lstrip("-").isdigit() else k for k in re.findall(r"[^.\[\]]+", path)
        ]
        target = record
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return tamper


def _tamper(edit: Callable[[JSON], object]) -> Callable[[JSON], None]:
    def tamper(record: JSON) -> None:
        edit(record)

    return tamper


# -- numbers a record cannot hold (finding 2) -------------------------------------------------

ABSURD: Final[list[tuple[str, Callable[[JSON], None], str]]] = [
    ("created_1e30", _set("match.created_at_ms", 1e30), r"match\.created_at_ms: .*found 1e\+30"),
    ("created_huge", _set("match.created_at_ms", HUGE), rf"match\.created_at_ms: .*found {HUGE}"),
    ("created_negative", _set("match.created_at_ms", -1), r"match\.created_at_ms: .*found -1"),
    ("ended_huge", _set("match.ended_at_ms", 2**64), rf"match\.ended_at_ms: .*found {2**64}"),
    ("ended_negative", _set("match.ended_at_ms", -1), r"match\.ended_at_ms: .*found -1"),
    ("wall_huge", _set("versions[3].wall_ms", HUGE), rf"versions\[3\]\.wall_ms: .*found {HUGE}"),
    ("wall_negative", _set("versions[3].wall_ms", -5), r"versions\[3\]\.wall_ms: .*found -5"),
    ("mono_huge", _set("versions[0].mono_ms", HUGE), rf"versions\[0\]\.mono_ms: .*found {HUGE}"),
    ("mono_negative", _set("versions[0].mono_ms", -1), r"versions\[0\]\.mono_ms: .*found -1"),
    (
        "mono_float",
        _tamper(lambda r: r["versions"][3].update(mono_ms=float(r["versions"][3]["mono_ms"]))),
        r"versions\[3\]\.mono_ms: expected an integer.*found \d+\.0",
    ),
    (
        "received_huge",
        _set("versions[3].received_ms", 2**63),
        rf"versions\[3\]\.received_ms: .*found {2**63}",
    ),
    (
        "received_negative",
        _set("versions[3].received_ms", -1),
        r"versions\[3\]\.received_ms: .*found -1",
    ),
    (
        "bank_1e30",
        _set("match.settings.bank_ms", 1e30),
        r"match\.settings\.bank_ms: .*found 1e\+30",
    ),
    (
        "grace_huge",
        _set("match.settings.grace_ms", HUGE),
        rf"match\.settings\.grace_ms: .*found {HUGE}",
    ),
    (
        "join_timeout_float",
        _set("match.settings.join_timeout_ms", 60_000.5),
        r"match\.settings\.join_timeout_ms: .*found 60000\.5",
    ),
    ("version_huge", _set("versions[1].version", HUGE), rf"version: expected 2, found {HUGE}"),
    ("round_huge", _set("rounds[0].number", HUGE), rf"round 1: number: expected 1, found {HUGE}"),
    (
        "bank_left_huge",
        _set("versions[3].clock.bank_left_ms.first", HUGE),
        rf"version 4: clock\.bank_left_ms\.first: expected \d+, found {HUGE}",
    ),
]


@pytest.mark.parametrize(
    ("tamper", "expected"), [a[1:] for a in ABSURD], ids=[a[0] for a in ABSURD]
)
async def test_an_absurd_number_is_refused_naming_the_field(
    http: httpx.AsyncClient, tamper: Callable[[JSON], None], expected: str
) -> None:
    record = await format2_record()
    tamper(record)
    response = await post(http, record)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "bad_message"
    assert re.search(expected, error["message"]), error["message"]
    assert (await http.get("/api/matches")).json()["matches"] == []  # nothing stored


# -- readings the replay does not give, settings this server does not allow (finding 3) -------


def _delay_left(record: JSON) -> str:
    i = running(record)
    record["versions"][i]["clock"]["delay_left_ms"] -= 1
    return rf"version {i + 1}: clock\.delay_left_ms: expected \d+, found \d+"


def _deadline(record: JSON) -> str:
    i = running(record)
    record["versions"][i]["clock"]["deadline_ms"] += 1
    return rf"version {i + 1}: clock\.deadline_ms: expected \d+, found \d+"


def _now(record: JSON) -> str:
    """A standing clock's reading said to be later than its version. Its version's ``mono_ms``
    said to be earlier would be the same record where nothing else shows which was changed
    (``replay._changed_input``), so the time may be named with the reading it disagrees with."""
    i = standing(record)
    record["versions"][i]["clock"]["now_ms"] += 1
    named = r"(clock\.now_ms: expected \d+|mono_ms: expected '\d+, .*clock\.now_ms.*')"
    return rf"version {i + 1}: {named}, found \d+"


def _mono_alone(record: JSON) -> str:
    """A version said to be later than its clock reading says: the changed time is named, with
    the reading it disagrees with. (Moved with its reading and its receive time, within the gap
    to the next version while the clocks stand, it would be another history the server could
    have written: nothing can tell them apart.)"""
    i = standing(record)
    record["versions"][i]["mono_ms"] += 1
    return rf"version {i + 1}: mono_ms: expected '\d+, .*clock\.now_ms.*', found \d+"


def _mono_backwards(record: JSON) -> str:
    i = standing(record)
    versions = record["versions"]
    earlier = versions[i - 1]["mono_ms"] - 1
    versions[i]["mono_ms"] = earlier
    versions[i]["clock"]["now_ms"] = earlier
    versions[i]["received_ms"] = earlier
    return rf"version {i + 1}: mono_ms: expected .*found {earlier}"


def _first_mono_later(record: JSON) -> str:
    record["versions"][0]["mono_ms"] += 10**9
    record["versions"][0]["clock"]["now_ms"] += 10**9
    record["versions"][0]["received_ms"] += 10**9
    return r"version 2: mono_ms: expected .*found \d+"


def _received_after_the_version(record: JSON) -> str:
    i = press(record)
    version = record["versions"][i]
    mono_ms = version["mono_ms"]
    version["received_ms"] = mono_ms + 1
    return rf"version {i + 1}: received_ms: expected .*{mono_ms}.*found {mono_ms + 1}"


def _received_before_its_decision(record: JSON) -> str:
    i = move(record)
    record["versions"][i]["received_ms"] = 0
    return rf"version {i + 1}: received_ms: expected \d+, found 0"


def _last_wall(record: JSON) -> str:
    record["versions"][-1]["wall_ms"] += 1
    last = len(record["versions"]) - 1
    return rf"match: ended_at_ms: expected .*versions\[{last}\]\.wall_ms.*found \d+"


def _ended_before_created(record: JSON) -> str:
    record["match"]["created_at_ms"] = record["match"]["ended_at_ms"] + 1
    return r"match: created_at_ms: expected .*ended_at_ms.*found \d+"


def _bank_too_long(record: JSON) -> str:
    record["match"]["settings"]["bank_ms"] = BANK_MS_MAX + 1
    return rf"match\.settings\.bank_ms: expected .*{BANK_MS_MAX}.*found {BANK_MS_MAX + 1}"


def _delay_too_long(record: JSON) -> str:
    record["match"]["settings"]["delay_ms"] = DELAY_MS_MAX + 1
    return rf"match\.settings\.delay_ms: expected .*{DELAY_MS_MAX}.*found {DELAY_MS_MAX + 1}"


def _no_grace(record: JSON) -> str:
    record["match"]["settings"]["grace_ms"] = 0
    return r"match\.settings\.grace_ms: expected .*found 0"


def _join_timeout_too_long(record: JSON) -> str:
    record["match"]["settings"]["join_timeout_ms"] = 10**12
    return r"match\.settings\.join_timeout_ms: expected .*found 1000000000000"


def _first_decision_grace_too_long(record: JSON) -> str:
    record["match"]["settings"]["first_decision_grace_ms"] = FIRST_DECISION_GRACE_MS_MAX + 1
    return (
        rf"match\.settings\.first_decision_grace_ms: expected 0 to {FIRST_DECISION_GRACE_MS_MAX}"
        rf".*found {FIRST_DECISION_GRACE_MS_MAX + 1}"
    )


def _settings_missing(record: JSON) -> str:
    del record["match"]["settings"]["grace_ms"]
    return r"match\.settings: missing field 'grace_ms'"


TAMPERED: Final[list[Callable[[JSON], str]]] = [
    _delay_left,
    _deadline,
    _now,
    _mono_alone,
    _mono_backwards,
    _first_mono_later,
    _received_after_the_version,
    _received_before_its_decision,
    _last_wall,
    _ended_before_created,
    _bank_too_long,
    _delay_too_long,
    _no_grace,
    _join_timeout_too_long,
    _first_decision_grace_too_long,
    _settings_missing,
]


@pytest.mark.parametrize("tamper", TAMPERED, ids=lambda t: t.__name__.strip("_"))
async def test_a_tampered_reading_or_setting_is_refused(
    http: httpx.AsyncClient, tamper: Callable[[JSON], str]
) -> None:
    record = await format2_record()
    expected = tamper(record)
    response = await post(http, record)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "bad_message"
    assert re.search(expected, error["message"]), error["message"]


UNKNOWN: Final[list[tuple[str, str]]] = [
    ("extra", r"document: unknown field 'extra'"),
    ("match.extra", r"match: unknown field 'extra'"),
    ("match.settings.imported", r"match\.settings: unknown field 'imported'"),
    ("match.settings.extra", r"match\.settings: unknown field 'extra'"),
    ("match.players.third", r"match\.players: unknown field 'third'"),
    ("match.players.first.token", r"match\.players\.first: unknown field 'token'"),
    ("rounds[0].extra", r"rounds\[0\]: unknown field 'extra'"),
    ("versions[0].extra", r"versions\[0\]: unknown field 'extra'"),
    ("versions[3].clock.extra", r"version 4: clock\.extra: expected \(nothing\), found 1"),
    (
        "versions[3].clock.bank_left_ms.third",
        r"version 4: clock\.bank_left_ms\.third: expected \(nothing\), found 1",
    ),
    ("versions[3].command.extra", r"version 4: command\.extra: expected \(nothing\), found 1"),
    ("versions[3].events[0].extra", r"version 4: events\[0\]\.extra: expected \(nothing\)"),
]


@pytest.mark.parametrize(("path", "expected"), UNKNOWN, ids=[u[0] for u in UNKNOWN])
async def test_an_unknown_field_is_refused_at_every_level(
    http: httpx.AsyncClient, path: str, expected: str
) -> None:
    record = await format2_record()
    _set(path, 1)(record)
    response = await post(http, record)
    assert response.status_code == 422, response.text
    assert re.search(expected, response.json()["error"]["message"]), response.text


async def test_a_format_1_record_is_held_to_the_same_checks(http: httpx.AsyncClient) -> None:
    record = json.loads(GOLDEN_V1.read_text(encoding="utf-8"))
    assert record["format_version"] == 1
    for tamper, expected in [
        (_set("match.ended_at_ms", -1), r"match\.ended_at_ms: .*found -1"),
        (_set("versions[2].clock.now_ms", 5), r"version 3: clock\.now_ms: expected \d+, found 5"),
        (_set("match.extra", 1), r"match: unknown field 'extra'"),
    ]:
        changed = copy.deepcopy(record)
        tamper(changed)
        response = await post(http, changed)
        assert response.status_code == 422, response.text
        assert re.search(expected, response.json()["error"]["message"]), response.text
    assert (await post(http, record)).status_code == 201


# -- fresh ids (finding 4) ---------------------------------------------------------------------


@pytest.mark.parametrize("original", ["-rf", "null", "tmMNSacEu1zd", "a_b-c"])
async def test_an_import_gets_a_fresh_id_and_keeps_the_records_as_data(
    http: httpx.AsyncClient, store: MatchStore, original: str
) -> None:
    record = await format2_record()
    record["match"]["id"] = original
    created = await post(http, record)
    assert created.status_code == 201, created.text
    body = created.json()
    match_id = body["id"]
    assert SERVER_ID.fullmatch(match_id)
    assert match_id != original
    assert body["imported_id"] == original
    assert body["record_url"] == f"/api/matches/{match_id}/record"
    stored = await store.match(match_id)
    assert stored is not None
    assert stored.imported_id == original
    assert await store.match(original) is None

    served = (await http.get(body["record_url"])).json()
    assert served["match"]["id"] == match_id
    assert (served["match"]["imported"], served["match"]["imported_id"]) == (True, original)
    assert served["match"]["rated"] is False
    assert served["versions"] == record["versions"]

    again = await post(http, served)  # the export of an imported match imports again
    assert again.status_code == 201, again.text
    assert again.json()["imported_id"] == match_id
    assert again.json()["id"] not in (match_id, original)
    twice = (await http.get(again.json()["record_url"])).json()
    assert twice["match"]["imported_id"] == match_id
    assert twice["versions"] == record["versions"]


async def test_the_same_record_imported_twice_gets_two_ids(http: httpx.AsyncClient) -> None:
    record = await format2_record()
    first = (await post(http, record)).json()
    second = (await post(http, record)).json()
    assert len({first["id"], second["id"], record["match"]["id"]}) == 3
    assert first["imported_id"] == second["imported_id"] == record["match"]["id"]


@pytest.mark.parametrize("bad", ["", "a/b", "x" * 65, "über", "a b", "../etc"])
async def test_an_id_that_is_no_id_is_refused(http: httpx.AsyncClient, bad: str) -> None:
    record = await format2_record()
    record["match"]["id"] = bad
    response = await post(http, record)
    assert response.status_code == 422, response.text
    assert re.search(r"match\.id: expected .*found '", response.json()["error"]["message"])
