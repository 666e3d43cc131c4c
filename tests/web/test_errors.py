"""One error envelope for every HTTP refusal, with the service's codes (R8.3)."""

from __future__ import annotations

import httpx

from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.web.errors import HTTP_STATUS

from .guests import error_of


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


async def test_openapi_is_served(client: httpx.AsyncClient) -> None:
    assert (await client.get("/docs")).status_code == 200
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert {"/api/session", "/api/matches", "/api/matches/{match_id}/join", "/api/lobby"} <= set(
        paths
    )
