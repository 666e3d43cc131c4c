"""A ``before`` cursor of ``GET /api/matches`` that no page could have given is a ``422
bad_message`` in the error envelope, quoting it, and never reaches the database (PROTOCOL.md
"Limits and close codes"): the app here stores in SQLite, whose timestamps end with the year
9999."""

from __future__ import annotations

import httpx
import pytest

from spectacular_bid.service.record_document import WALL_MS_MAX

from .guests import error_of

OUT_OF_RANGE = [
    "100000000000000000.a",  # past the year 9999: no stored timestamp is that late
    f"{WALL_MS_MAX + 1}.a",
    f"{2**63}.a",  # past a 64-bit integer
    "9" * 190 + ".a",
    "²³.a",  # digits, but not ASCII ones
    "١٢٣.a",
    "-1.a",
    "1.",
    ".abc",
    "12",
    "1.a\x00b",  # PostgreSQL refuses a NUL in text
    "1." + "a" * 65,  # longer than any match id
    "1.a b",
]


@pytest.mark.parametrize("cursor", OUT_OF_RANGE)
async def test_a_cursor_out_of_range_is_refused(client: httpx.AsyncClient, cursor: str) -> None:
    response = await client.get("/api/matches", params={"before": cursor})
    assert response.status_code == 422, response.text
    error = error_of(response)
    assert error["code"] == "bad_message"
    assert error["message"].startswith("before must be a cursor from a previous page")
    assert repr(cursor)[:40] in error["message"]  # quoted


@pytest.mark.parametrize("cursor", ["0.a", f"{WALL_MS_MAX}.zz", "1767227756105.tmMNSacEu1zd"])
async def test_a_cursor_in_range_gives_a_page(client: httpx.AsyncClient, cursor: str) -> None:
    response = await client.get("/api/matches", params={"before": cursor})
    assert response.status_code == 200, response.text
    assert response.json() == {"matches": [], "next": None}
