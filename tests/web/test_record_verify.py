"""``POST /api/records/verify``: a record document checked exactly as ``specbid replay --verify``
checks it (``service.replay.verify``), from a browser's page, storing nothing. A record that
verifies says so; one that does not names its first discrepancy — where, the field, what the
engine expected and what the record holds — as the command line prints it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from spectacular_bid.service.discrepancy import RecordMismatchError
from spectacular_bid.service.record_document import parse_document
from spectacular_bid.service.replay import verify

from .guests import bearer, error_of, guest

RECORDS = Path(__file__).resolve().parents[1] / "golden" / "records"


def record(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RECORDS / name).read_text(encoding="utf-8"))
    return data


async def test_a_record_that_replays_is_verified(client: httpx.AsyncClient) -> None:
    for name in ("v1_auction_domino.json", "v2_rated_resign.json", "v2_shared.json"):
        document = record(name)
        response = await client.post("/api/records/verify", json=document)
        assert response.status_code == 200, response.text
        checked = verify(parse_document(document))
        assert response.json() == {
            "verified": True,
            "match_id": document["match"]["id"],
            "versions": checked.versions,
            "rounds": checked.rounds,
            "winner": checked.winner,
            "reason": checked.reason,
            "discrepancy": None,
        }
    # Nothing is stored: verifying is not importing.
    assert (await client.get("/api/matches")).json()["matches"] == []


async def test_the_first_discrepancy_is_named_as_the_command_line_names_it(
    client: httpx.AsyncClient,
) -> None:
    document = record("v2_zero_balance.json")
    tampered = copy.deepcopy(document)
    version = tampered["versions"][40]
    version["clock"]["bank_left_ms"]["first"] -= 1000  # a second taken off a bank
    with pytest.raises(RecordMismatchError) as failed:
        verify(parse_document(tampered))
    response = await client.post("/api/records/verify", json=tampered)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["verified"] is False
    found = answer["discrepancy"]
    assert found["version"] == version["version"]
    assert found["where"] == f"version {version['version']}"
    assert found["field"] == "clock.bank_left_ms.first"
    assert found["message"] == str(failed.value)
    assert found["found"] == str(version["clock"]["bank_left_ms"]["first"])
    assert found["expected"] == str(version["clock"]["bank_left_ms"]["first"] + 1000)


async def test_a_document_that_is_no_record_is_refused(client: httpx.AsyncClient) -> None:
    refused = await client.post("/api/records/verify", json={"format": "something else"})
    assert refused.status_code == 422
    assert error_of(refused)["code"] == "bad_message"
    assert "not a match record" in error_of(refused)["message"]
    not_json = await client.post(
        "/api/records/verify", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert not_json.status_code == 422
    huge = await client.post(
        "/api/records/verify",
        content=b" " * (4 * 1024 * 1024 + 1),
        headers={"content-type": "application/json"},
    )
    assert huge.status_code == 413
    assert error_of(huge)["code"] == "too_large"


async def test_a_guest_or_anyone_may_verify(client: httpx.AsyncClient) -> None:
    document = record("v2_rated_resign.json")
    ann = await guest(client, "Ann")
    as_guest = await client.post("/api/records/verify", json=document, headers=bearer(ann))
    assert as_guest.json()["verified"] is True
