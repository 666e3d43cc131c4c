"""Cross-site writes refused twice over, and wrong passwords that lock out no one else, on a real
server process (docs/PROTOCOL.md, Security).

The findings: a cookie-carrying ``POST /api/matches`` with no ``Origin``, ``Sec-Fetch-Site:
cross-site`` and another site's ``Referer`` was accepted (201); five wrong passwords from one
address locked the name's owner out from every other address (429). Addresses here are
loopback addresses of their own (127.0.0.2, 127.0.0.3 …), which Linux routes like 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest

from .server import LiveServer
from .wire import TIMEOUT_S, Api

PASSWORD = "correct horse"


@asynccontextmanager
async def from_address(server: LiveServer, address: str) -> AsyncIterator[httpx.AsyncClient]:
    """A client whose connections leave from ``address``: the server sees that peer."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(
        transport=transport, base_url=server.http_url, timeout=TIMEOUT_S
    ) as http:
        yield http


async def cookie_of_a_guest(server: LiveServer, name: str) -> str:
    api = Api(server)
    token = await api.guest(name)
    await api.close()
    return token


async def create_with(server: LiveServer, token: str, headers: dict[str, str]) -> httpx.Response:
    """``POST /api/matches`` as a browser sends it: the token in the cookie, and ``headers``."""
    async with httpx.AsyncClient(base_url=server.http_url, timeout=TIMEOUT_S) as http:
        http.cookies.set("specbid_token", token)
        return await http.post("/api/matches", json={"mode": "invite"}, headers=headers)


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "cross-site", "Referer": "https://evil.example/page"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Referer": "https://evil.example/page"},
    ],
    ids=["the-finding", "cross-site", "same-site", "foreign-referer"],
)
async def test_a_write_from_another_sites_page_is_refused(
    server: LiveServer, headers: dict[str, str]
) -> None:
    token = await cookie_of_a_guest(server, "Ann")
    refused = await create_with(server, token, headers)
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"]["code"] == "foreign_origin"


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Sec-Fetch-Site": "same-origin", "Origin": "ORIGIN"},
        {"Sec-Fetch-Site": "same-origin"},
        {"Sec-Fetch-Site": "none"},
        {"Referer": "ORIGIN/lobby"},
    ],
    ids=["a-program", "own-page", "own-page-no-origin", "typed-by-the-user", "own-referer"],
)
async def test_a_write_from_the_servers_own_page_or_a_program_goes_through(
    server: LiveServer, headers: dict[str, str]
) -> None:
    token = await cookie_of_a_guest(server, "Ann")
    sent = {name: value.replace("ORIGIN", server.origin) for name, value in headers.items()}
    made = await create_with(server, token, sent)
    assert made.status_code == 201, made.text


async def test_wrong_passwords_from_one_address_do_not_lock_the_owner_out(
    server: LiveServer,
) -> None:
    api = Api(server)
    ann = await api.guest("Locked Out")
    claimed = await api.http.post(
        "/api/account", json={"password": PASSWORD}, headers={"Authorization": f"Bearer {ann}"}
    )
    assert claimed.status_code == 201, claimed.text
    await api.close()
    async with from_address(server, "127.0.0.2") as attacker:
        guesses = [
            await attacker.post("/api/login", json={"name": "locked out", "password": f"guess {i}"})
            for i in range(6)
        ]
        assert [r.status_code for r in guesses] == [401] * 5 + [429]
        assert int(guesses[-1].headers["retry-after"]) > 0
    async with from_address(server, "127.0.0.3") as owner:
        welcome = await owner.post("/api/login", json={"name": "Locked Out", "password": PASSWORD})
        assert welcome.status_code == 200, welcome.text
