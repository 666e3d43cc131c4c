"""Accounts over HTTP (PROTOCOL.md "Identity"): a guest claims its name, logs in elsewhere, logs
out, changes its password (ending the other sessions); wrong passwords are throttled and tell
nothing of which names exist; another site's page can change nothing."""

from __future__ import annotations

import httpx
import pytest

from .guests import bearer, error_of, guest, new_match


async def account(client: httpx.AsyncClient, name: str, password: str = "correct horse") -> str:
    token = await guest(client, name)
    response = await client.post("/api/account", json={"password": password}, headers=bearer(token))
    assert response.status_code == 201, response.text
    client.cookies.clear()
    session: str = response.json()["token"]
    return session


async def who(client: httpx.AsyncClient, token: str) -> int | str:
    response = await client.get("/api/session", headers=bearer(token))
    return (
        response.json()["player"]["name"] if response.status_code == 200 else response.status_code
    )


async def login(client: httpx.AsyncClient, name: str, password: str) -> httpx.Response:
    response = await client.post("/api/login", json={"name": name, "password": password})
    client.cookies.clear()
    return response


async def new_password(
    client: httpx.AsyncClient, token: str, current: str, password: str
) -> httpx.Response:
    body = {"current": current, "password": password}
    return await client.post("/api/account/password", json=body, headers=bearer(token))


async def test_a_guest_claims_its_name_and_keeps_its_identity(client: httpx.AsyncClient) -> None:
    guest_token = await guest(client, "Ann")
    before = (await client.get("/api/session", headers=bearer(guest_token))).json()["player"]
    response = await client.post(
        "/api/account", json={"password": "correct horse"}, headers=bearer(guest_token)
    )
    assert response.status_code == 201
    body = response.json()
    assert before["account"] is False
    assert body["player"] == {**before, "account": True}  # the same player: its matches too
    assert "specbid_token" in response.cookies
    assert await who(client, body["token"]) == "Ann"
    after = await client.get("/api/session", headers=bearer(body["token"]))
    assert after.json()["player"] == body["player"]
    assert await who(client, guest_token) == 401  # a login replaces the token
    assert await new_match(client, body["token"])  # an account plays as the guest did


async def test_a_name_an_account_has_is_taken_whatever_its_case(client: httpx.AsyncClient) -> None:
    await account(client, "Ann")
    for name in ("ANN", "\uff21nn"):  # a fullwidth Ａ folds to A (NFKC)
        token = await guest(client, name)
        response = await client.post(
            "/api/account", json={"password": "correct horse"}, headers=bearer(token)
        )
        assert response.status_code == 409
        assert error_of(response)["code"] == "name_taken"
        assert await who(client, token) == name  # still the guest it was


async def test_logging_in_elsewhere_and_out(client: httpx.AsyncClient) -> None:
    first = await account(client, "Ann")
    response = await login(client, "ann", "correct horse")
    assert response.status_code == 200
    second = response.json()["token"]
    assert second != first
    assert await who(client, second) == "Ann"
    out = await client.post("/api/logout", headers=bearer(second))
    assert out.status_code == 204
    assert await who(client, second) == 401
    assert await who(client, first) == "Ann"


async def test_a_new_password_ends_every_other_session(client: httpx.AsyncClient) -> None:
    first = await account(client, "Ann")
    second = (await login(client, "Ann", "correct horse")).json()["token"]
    wrong = await new_password(client, first, "wrong horse", "battery staple")
    assert wrong.status_code == 401
    assert await who(client, second) == "Ann"
    changed = await new_password(client, first, "correct horse", "battery staple")
    assert changed.status_code == 204
    assert await who(client, first) == "Ann"
    assert await who(client, second) == 401
    assert (await login(client, "Ann", "correct horse")).status_code == 401
    assert (await login(client, "Ann", "battery staple")).status_code == 200


async def test_a_wrong_password_and_an_unknown_name_are_refused_alike(
    client: httpx.AsyncClient,
) -> None:
    await account(client, "Ann")
    wrong = await login(client, "Ann", "wrong horse")
    nobody = await login(client, "Nobody", "wrong horse")
    blank = await login(client, " ", "wrong horse")
    assert wrong.status_code == nobody.status_code == blank.status_code == 401
    assert error_of(wrong) == error_of(nobody) == error_of(blank)


async def test_repeated_wrong_passwords_are_throttled(client: httpx.AsyncClient) -> None:
    await account(client, "Ann")
    codes = [(await login(client, "Ann", f"guess {i}")).status_code for i in range(5)]
    assert codes == [401] * 5
    throttled = await login(client, "ann", "correct horse")  # even the right one, for now
    assert throttled.status_code == 429
    assert int(throttled.headers["retry-after"]) > 0
    assert error_of(throttled)["code"] == "rate_limited"


@pytest.mark.parametrize(
    ("password", "reason"), [("short", "at least"), ("tab\there!x", "")], ids=["short", "control"]
)
async def test_a_password_breaking_a_rule_is_refused_and_the_guest_stays(
    client: httpx.AsyncClient, password: str, reason: str
) -> None:
    token = await guest(client, "Ann")
    response = await client.post("/api/account", json={"password": password}, headers=bearer(token))
    assert response.status_code == 422
    assert error_of(response)["code"] == "bad_message"
    assert reason in error_of(response)["message"]
    assert await who(client, token) == "Ann"


async def test_another_sites_page_changes_nothing(client: httpx.AsyncClient) -> None:
    await account(client, "Ann")
    foreign = await client.post(
        "/api/login",
        json={"name": "Ann", "password": "correct horse"},
        headers={"Origin": "https://evil.example"},
    )
    assert foreign.status_code == 403
    assert error_of(foreign)["code"] == "foreign_origin"
    assert "specbid_token" not in foreign.cookies
    token = await guest(client, "Bo")
    made = await client.post(
        "/api/matches",
        json={"mode": "invite"},
        headers={**bearer(token), "Origin": "http://testserver:443"},
    )
    assert made.status_code == 403
    own = await client.post(
        "/api/login",
        json={"name": "Ann", "password": "correct horse"},
        headers={"Origin": "http://testserver"},
    )
    assert own.status_code == 200
