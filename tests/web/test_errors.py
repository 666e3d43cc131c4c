"""One error envelope for every HTTP refusal, with the service's codes (R8.3)."""

from __future__ import annotations

import httpx
import pytest

from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.web.errors import HTTP_STATUS

from .guests import bearer, error_of, guest


def test_every_code_has_an_http_status() -> None:
    assert set(HTTP_STATUS) == set(ErrorCode)
    assert all(400 <= status < 600 for status in HTTP_STATUS.values())


async def test_an_unknown_path_is_a_404_envelope(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/nothing-here")
    assert response.status_code == 404
    assert error_of(response)["code"] == "not_found"


async def test_a_wrong_method_keeps_its_status(client: httpx.AsyncClient) -> None:
    response = await client.delete("/api/lobby")
    assert response.status_code == 405
    assert error_of(response)["code"] == "bad_message"


async def test_a_non_json_body_is_refused(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/session", content="name=Ann", headers={"content-type": "text/plain"}
    )
    assert response.status_code == 422
    assert error_of(response)["code"] == "bad_message"


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b'{"name": "Ann", "name": "Bo"}', "a key appears twice in an object: 'name'"),
        (b'{"name": "\\ud800"}', "a lone surrogate"),
        (b'{"name": "\xffAnn"}', "not UTF-8: invalid start byte at byte 10"),
    ],
    ids=["duplicate-key", "lone-surrogate", "invalid-utf8"],
)
@pytest.mark.parametrize("path", ["/api/session", "/api/records"])
async def test_a_body_json_would_misread_is_refused_and_changes_nothing(
    client: httpx.AsyncClient, path: str, body: bytes, why: str
) -> None:
    """As on a WebSocket (PROTOCOL.md "Limits and close codes"): ``json`` would keep the last of two
    keys, carry half a character into a reply or the database, or guess at bytes that are not
    UTF-8."""
    headers = {"content-type": "application/json"}
    if path == "/api/records":
        headers |= bearer(await guest(client, "Importer"))
    before = (await client.get("/api/lobby")).json()
    response = await client.post(path, content=body, headers=headers)
    assert response.status_code == 422, response.text
    error = error_of(response)
    assert (error["code"], why in error["message"]) == ("bad_message", True), error
    assert "set-cookie" not in response.headers  # no guest was made
    assert (await client.get("/api/lobby")).json() == before


async def test_openapi_is_served(client: httpx.AsyncClient) -> None:
    assert (await client.get("/docs")).status_code == 200
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert {"/api/session", "/api/matches", "/api/matches/{match_id}/join", "/api/lobby"} <= set(
        paths
    )
