"""``/api/session``: guests without accounts (PROTOCOL.md "Identity")."""

from __future__ import annotations

import httpx
import pytest

from spectacular_bid.web.identity import COOKIE

from .guests import bearer, error_of


async def test_create_returns_the_player_and_token_and_sets_the_cookie(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post("/api/session", json={"name": "  Ann   Lee "})
    assert response.status_code == 201
    body = response.json()
    assert body["player"]["name"] == "Ann Lee"
    assert len(body["token"]) >= 40
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}={body['token']};")
    assert "HttpOnly" in cookie
    assert "samesite=lax" in cookie.lower()
    assert "Path=/" in cookie


async def test_the_cookie_identifies_the_caller(client: httpx.AsyncClient) -> None:
    created = (await client.post("/api/session", json={"name": "Ann"})).json()
    response = await client.get("/api/session")  # the client kept the cookie
    assert response.status_code == 200
    assert response.json() == {"player": created["player"]}


async def test_the_bearer_token_identifies_the_caller(client: httpx.AsyncClient) -> None:
    created = (await client.post("/api/session", json={"name": "Bob"})).json()
    client.cookies.clear()
    response = await client.get("/api/session", headers=bearer(created["token"]))
    assert response.json() == {"player": created["player"]}


async def test_no_token_is_401(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/session")
    assert response.status_code == 401
    assert error_of(response)["code"] == "unauthorized"
    assert response.headers["www-authenticate"] == "Bearer"


async def test_an_unknown_token_is_401(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/session", headers=bearer("not-a-token"))
    assert response.status_code == 401


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        pytest.param("   ", "at least one visible character", id="blank"),
        pytest.param("x" * 25, "at most 24 characters", id="too-long"),
        pytest.param("a\u200bb", "control characters", id="format-char"),
    ],
)
async def test_a_bad_name_is_422_with_the_reason(
    client: httpx.AsyncClient, name: str, reason: str
) -> None:
    response = await client.post("/api/session", json={"name": name})
    assert response.status_code == 422
    error = error_of(response)
    assert error["code"] == "bad_message"
    assert reason in error["message"]


async def test_a_missing_name_is_422_in_the_envelope(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/session", json={})
    assert response.status_code == 422
    assert error_of(response) == {"code": "bad_message", "message": "name: Field required"}
