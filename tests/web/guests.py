"""Test helpers: guests and matches made over HTTP, with tokens kept out of the cookie jar."""

from __future__ import annotations

from typing import Any

import httpx


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def guest(client: httpx.AsyncClient, name: str) -> str:
    response = await client.post("/api/session", json={"name": name})
    assert response.status_code == 201, response.text
    client.cookies.clear()
    token: str = response.json()["token"]
    return token


async def new_match(client: httpx.AsyncClient, token: str, mode: str = "invite") -> str:
    response = await client.post("/api/matches", json={"mode": mode}, headers=bearer(token))
    assert response.status_code == 201, response.text
    match_id: str = response.json()["id"]
    return match_id


async def joined_match(client: httpx.AsyncClient, first: str, second: str) -> str:
    match_id = await new_match(client, first)
    joined = await client.post(f"/api/matches/{match_id}/join", headers=bearer(second))
    assert joined.json() == {"seat": "second"}
    return match_id


def error_of(response: httpx.Response) -> Any:
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message"}
    return body["error"]
