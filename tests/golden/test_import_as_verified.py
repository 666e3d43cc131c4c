"""Every kept record verifies and imports alike (D4): ``specbid replay --verify``,
``POST /api/records/verify`` and ``POST /api/records`` run one check of a record's own
consistency, so a record of any release that verifies also imports; what the import asks beyond
it (this server's ranges of settings) is a separate admission that the verify answers report.

Each ``tests/golden/records/*.json`` (formats 1 to 4, never edited, see its README) is checked
through the public entry points on SQLite and, when ``TEST_DATABASE_URL`` is set, on PostgreSQL:
it verifies on the command line and over HTTP, imports, is served back in the current format,
still verifies, and that export imports again.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import httpx
import pytest

from durable.conftest import BACKENDS, create_target, drop_target, new_target
from spectacular_bid import cli
from spectacular_bid.service.record_document import IMPORTED, parse_document
from spectacular_bid.service.records import read_document, records_for_import
from spectacular_bid.service.replay import verify
from spectacular_bid.store.leases import Lease
from spectacular_bid.store.migrate import upgrade_to_head
from spectacular_bid.store.repository import SqlStore
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings

RECORDS_DIR: Final = Path(__file__).resolve().parent / "records"
RECORD_FILES: Final = sorted(RECORDS_DIR.glob("v*.json"))

Document = dict[str, Any]


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SqlStore]:
    """A fresh database of the backend, its schema at head, opened as a server opens it."""
    target = new_target(request.param, tmp_path)
    await create_target(target)
    try:
        await upgrade_to_head(target.url)
        async with SqlStore.open(target.url, lease=Lease.new()) as opened:
            yield opened
    finally:
        await drop_target(target)


@pytest.fixture
async def http(store: SqlStore, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """A server's app on ``store``, with a guest's token on every call."""
    app = create_app(WebSettings(static_dir=tmp_path / "none"), store)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            session = await client.post("/api/session", json={"name": "Archivist"})
            assert session.status_code == 201, session.text
            client.headers["Authorization"] = f"Bearer {session.json()['token']}"
            yield client


def test_the_kept_records_cover_every_format() -> None:
    formats = {json.loads(p.read_text(encoding="utf-8"))["format_version"] for p in RECORD_FILES}
    assert formats >= {1, 2, 3, 4}, formats


async def post_json(http: httpx.AsyncClient, url: str, body: bytes) -> httpx.Response:
    return await http.post(url, content=body, headers={"content-type": "application/json"})


async def test_every_kept_record_verifies_and_imports(
    http: httpx.AsyncClient, capsys: pytest.CaptureFixture[str]
) -> None:
    for path in RECORD_FILES:
        name = path.name
        body = path.read_bytes()
        doc: Document = json.loads(body)
        assert cli.main(["replay", "--verify", str(path)]) == 0, name
        out = capsys.readouterr().out
        assert out.startswith(f"OK {doc['match']['id']}: "), (name, out)
        assert len(out.splitlines()) == 1, (name, out)  # and no note that it would not import

        imported = await post_json(http, "/api/records", body)
        assert imported.status_code == 201, (name, imported.text)
        created = imported.json()
        assert (created["versions"], created["rounds"]) == (
            len(doc["versions"]),
            len(doc["rounds"]),
        )

        checked = await post_json(http, "/api/records/verify", body)
        assert checked.status_code == 200, (name, checked.text)
        answer = checked.json()
        assert (answer["verified"], answer["importable"]) == (True, True), (name, answer)
        assert answer["import_refusal"] is None, (name, answer)

        served = await http.get(created["record_url"])
        assert served.status_code == 200, (name, served.text)
        again: Document = served.json()
        assert again["format_version"] == 4, name
        assert verify(parse_document(again)).versions == len(doc["versions"]), name
        # A match ends with its last version: the header says so in the current format.
        assert again["match"]["ended_at_ms"] == again["versions"][-1]["wall_ms"], name

        # The export of an imported match imports again, anywhere.
        reimported = await post_json(http, "/api/records", served.content)
        assert reimported.status_code == 201, (name, reimported.text)


async def test_a_match_stored_by_release_0_1_0_is_served_as_it_verifies(store: SqlStore) -> None:
    """Release 0.1.0 stored a header's end from its own read of the wall clock, a millisecond
    or so before its last version's (``record_document``). Such a match, in a database that has
    been upgraded since, is served with the end its last version says, and verifies."""
    document = parse_document(json.loads((RECORDS_DIR / "v1_flag_end_rounding.json").read_bytes()))
    rows = records_for_import(document, None, document.match["created_at_ms"])
    settings = {k: v for k, v in rows.match.settings.items() if k != IMPORTED}
    stored_end = document.match["ended_at_ms"]
    header = replace(rows.match, settings=settings, ended_at_ms=stored_end, imported_id=None)
    await store.import_match(rows.players, header, rows.rounds, rows.events)
    assert (await store.match(header.id)) == header  # the end as 0.1.0 stored it

    served = (await read_document(store, header.id)).to_json()
    assert served["match"]["ended_at_ms"] == stored_end + 1 == served["versions"][-1]["wall_ms"]
    assert verify(parse_document(served)).versions == len(document.versions)


async def test_what_only_this_server_refuses_is_reported_by_every_check(
    http: httpx.AsyncClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record whose join timeout (two days, D3) is longer than this server allows its own
    matches still verifies — it never waited that long — and each check says that this server's
    import refuses it, and why."""
    doc: Document = json.loads((RECORDS_DIR / "v2_rated_resign.json").read_bytes())
    doc["match"]["settings"]["join_timeout_ms"] = 2 * 86_400_000
    why = (
        "match.settings.join_timeout_ms: expected 1 to 86400000 ms, what this server allows, "
        "found 172800000"
    )
    saved = tmp_path / "long_wait.json"
    saved.write_text(json.dumps(doc), encoding="utf-8")
    assert cli.main(["replay", "--verify", str(saved)]) == 0
    ok, note = capsys.readouterr().out.splitlines()
    assert ok.startswith(f"OK {doc['match']['id']}: ")
    assert note == f"note: this server would not import it: {why}"

    checked = await http.post("/api/records/verify", json=doc)
    assert checked.status_code == 200, checked.text
    answer = checked.json()
    assert (answer["verified"], answer["importable"]) == (True, False)
    assert answer["import_refusal"] == why

    refused = await http.post("/api/records", json=doc)
    assert refused.status_code == 422, refused.text
    error = refused.json()["error"]
    assert (error["code"], error["message"]) == (
        "bad_message",
        f"this server does not import it: {why}",
    )
    assert (await http.get("/api/matches")).json()["matches"] == []
