"""HTTP rate limits and the open-challenge cap (PROTOCOL.md "Rate limits"), with strict settings.

The findings: one address made 1,000 guests in 2.4 s, and one guest listed 300 open challenges.
Time is the service's monotonic clock, which these tests drive.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import httpx
import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI
from starlette.requests import HTTPConnection

from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.passwords import Passwords
from spectacular_bid.web import app as app_module
from spectacular_bid.web.http_limits import KeyedLimit, address_key
from spectacular_bid.web.settings import WebSettings

from .guests import bearer, error_of, guest, new_match

RECORD = Path(__file__).resolve().parents[1] / "golden" / "records" / "v2_rated_resign.json"
STRICT = {
    "guests_per_minute": 10.0,
    "guests_burst": 20,
    "matches_per_minute": 20.0,
    "matches_burst": 20,
    "joins_per_minute": 60.0,
    "joins_burst": 30,
    "records_per_minute": 10.0,
    "records_burst": 10,
    "open_challenges_per_guest": 3,
}
"""The server's defaults, spelled out: the suite's environment opens them wide."""


class Clock:
    """The service's monotonic clock, moved by hand."""

    def __init__(self, now_ms: int) -> None:
        self.now_ms = now_ms

    def __call__(self) -> int:
        return self.now_ms

    def advance(self, ms: int) -> None:
        self.now_ms += ms


@pytest.fixture
def limits(request: pytest.FixtureRequest) -> dict[str, float | int]:
    """The limits of the test's server: :data:`STRICT`, or a test's own (``indirect``)."""
    chosen: dict[str, float | int] = getattr(request, "param", STRICT)
    return chosen


@pytest.fixture
def settings(tmp_path: Path, limits: dict[str, float | int]) -> WebSettings:
    return WebSettings(
        static_dir=tmp_path / "no-static",
        fixed_deck_seed=7,
        data_dir=tmp_path,
        **limits,  # type: ignore[arg-type]
    )


@pytest.fixture
def clock(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> Clock:
    service = app.state.service
    assert isinstance(service, MatchService)
    clock = Clock(service.now_ms())
    monkeypatch.setattr(service, "now_ms", clock)
    return clock


@pytest.fixture
def client_at(app: FastAPI) -> Callable[[str], AbstractAsyncContextManager[httpx.AsyncClient]]:
    """A client calling from another address."""

    def make(host: str) -> AbstractAsyncContextManager[httpx.AsyncClient]:
        transport = httpx.ASGITransport(app=app, client=(host, 4321))
        return httpx.AsyncClient(transport=transport, base_url="http://testserver")

    return make


ClientAt = Callable[[str], AbstractAsyncContextManager[httpx.AsyncClient]]


def assert_rate_limited(response: httpx.Response, retry_after_s: int) -> str:
    assert response.status_code == 429, response.text
    assert response.headers["retry-after"] == str(retry_after_s)
    error = error_of(response)
    assert error["code"] == "rate_limited"
    message: str = error["message"]
    return message


# -- guests per address ---------------------------------------------------------------------


async def test_one_address_cannot_make_a_thousand_guests(
    client: httpx.AsyncClient, clock: Clock
) -> None:
    """The finding: 1,000 guests from one address in 2.4 s. Now the burst is all it gets."""
    statuses = []
    for i in range(1_000):
        response = await client.post("/api/session", json={"name": f"Bot {i}"})
        statuses.append(response.status_code)
        if response.status_code == 429:
            assert "set-cookie" not in response.headers  # a refused request changes nothing
    assert statuses == [201] * 20 + [429] * 980  # the burst (guests_burst) and no more


async def test_a_refused_guest_is_told_when_to_come_back(
    client: httpx.AsyncClient, clock: Clock
) -> None:
    for i in range(20):
        await guest(client, f"Ann {i}")
    response = await client.post("/api/session", json={"name": "Ann 20"})
    message = assert_rate_limited(response, 6)  # 10 a minute: a token every 6 s
    assert message == (
        "too many new guests from your address 127.0.0.1 (at most 20 at once and 10 a minute): "
        "try again in 6 s"
    )
    clock.advance(5_001)
    assert_rate_limited(await client.post("/api/session", json={"name": "Ann 20"}), 1)
    clock.advance(999)
    assert (await client.post("/api/session", json={"name": "Ann 20"})).status_code == 201
    assert_rate_limited(await client.post("/api/session", json={"name": "Ann 21"}), 6)


async def test_each_address_has_its_own_guests(
    client: httpx.AsyncClient, client_at: ClientAt, clock: Clock
) -> None:
    for i in range(20):
        await guest(client, f"Ann {i}")
    assert (await client.post("/api/session", json={"name": "Ann"})).status_code == 429
    async with client_at("203.0.113.9") as other:
        assert (await other.post("/api/session", json={"name": "Bob"})).status_code == 201


async def test_an_invalid_name_still_counts(client: httpx.AsyncClient, clock: Clock) -> None:
    for _ in range(20):
        assert (await client.post("/api/session", json={"name": " "})).status_code == 422
    assert_rate_limited(await client.post("/api/session", json={"name": "Ann"}), 6)


# -- matches and joins per address and per guest ----------------------------------------------


@pytest.mark.parametrize(
    "limits", [{**STRICT, "matches_burst": 2, "matches_per_minute": 6.0}], indirect=True
)
async def test_matches_are_limited_per_guest_and_per_address(
    client: httpx.AsyncClient, client_at: ClientAt, clock: Clock
) -> None:
    ann = await guest(client, "Ann")
    async with client_at("203.0.113.9") as there:
        bob, cid = await guest(there, "Bob"), await guest(there, "Cid")
        await new_match(client, ann)
        await new_match(client, ann)
        # Ann from elsewhere: her own bucket is empty.
        refused = await there.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
        assert "from guest 'Ann'" in assert_rate_limited(refused, 10)
        # Bob from Ann's address: the address's bucket is empty.
        refused = await client.post("/api/matches", json={"mode": "invite"}, headers=bearer(bob))
        assert "from your address 127.0.0.1" in assert_rate_limited(refused, 10)
        # Ann's refusal there took nothing from that address: Cid still has its two.
        await new_match(there, cid)
        await new_match(there, cid)
    clock.advance(10_000)
    await new_match(client, ann)


@pytest.mark.parametrize("limits", [{**STRICT, "matches_burst": 3}], indirect=True)
async def test_requests_without_a_guest_count_for_their_address(
    client: httpx.AsyncClient, clock: Clock
) -> None:
    for _ in range(3):
        response = await client.post("/api/matches", json={"mode": "invite"})
        assert response.status_code == 401
    ann = await guest(client, "Ann")
    refused = await client.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
    assert_rate_limited(refused, 3)


@pytest.mark.parametrize(
    "limits", [{**STRICT, "joins_burst": 2, "joins_per_minute": 30.0}], indirect=True
)
async def test_joins_are_limited_per_guest_and_per_address(
    client: httpx.AsyncClient, client_at: ClientAt, clock: Clock
) -> None:
    ann = await guest(client, "Ann")
    first, second, third = [await new_match(client, ann, "open") for _ in range(3)]
    async with client_at("198.51.100.4") as there:
        bob = await guest(there, "Bob")
        # Probing match ids counts too.
        missing = await there.post("/api/matches/nope/join", headers=bearer(bob))
        assert missing.status_code == 404
        joined = await there.post(f"/api/matches/{first}/join", headers=bearer(bob))
        assert joined.json() == {"seat": "second"}
        refused = await there.post(f"/api/matches/{second}/join", headers=bearer(bob))
        assert_rate_limited(refused, 2)
        lobby = (await there.get("/api/lobby")).json()
        assert {line["id"] for line in lobby["open_challenges"]} == {second, third}
        clock.advance(2_000)
        joined = await there.post(f"/api/matches/{second}/join", headers=bearer(bob))
        assert joined.json() == {"seat": "second"}


@pytest.mark.parametrize(
    "limits", [{**STRICT, "records_burst": 2, "records_per_minute": 6.0}], indirect=True
)
async def test_record_imports_and_verifications_share_a_limit(
    client: httpx.AsyncClient, client_at: ClientAt, clock: Clock
) -> None:
    # Each is a whole replay through the engine: a loop of them would hold the server's CPU.
    document = json.loads(RECORD.read_text(encoding="utf-8"))
    ann = await guest(client, "Ann")
    checked = await client.post("/api/records/verify", json=document)
    assert checked.json()["verified"] is True
    imported = await client.post("/api/records", json=document, headers=bearer(ann))
    assert imported.status_code == 201, imported.text
    refused = await client.post("/api/records/verify", json=document)
    assert "too many record documents from your address" in assert_rate_limited(refused, 10)
    refused = await client.post("/api/records", json=document, headers=bearer(ann))
    assert_rate_limited(refused, 10)
    async with client_at("203.0.113.9") as there:
        assert (await there.post("/api/records/verify", json=document)).status_code == 200
    clock.advance(10_000)
    assert (await client.post("/api/records/verify", json=document)).status_code == 200


# -- open challenges per guest ---------------------------------------------------------------


@pytest.mark.parametrize("limits", [{**STRICT, "matches_burst": 1_000}], indirect=True)
async def test_one_guest_cannot_list_three_hundred_challenges(
    client: httpx.AsyncClient, clock: Clock
) -> None:
    """The finding: one guest made 300 open challenges. Now three wait at most."""
    ann = await guest(client, "Ann")
    statuses = []
    for _ in range(300):
        response = await client.post("/api/matches", json={"mode": "open"}, headers=bearer(ann))
        statuses.append(response.status_code)
    assert statuses == [201] * 3 + [429] * 297
    lobby = (await client.get("/api/lobby")).json()
    assert len(lobby["open_challenges"]) == 3


async def test_a_challenge_past_the_cap_waits_for_one_to_go(
    client: httpx.AsyncClient, clock: Clock
) -> None:
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    oldest = await new_match(client, ann, "open")
    clock.advance(15_000)
    await new_match(client, ann, "open")
    await new_match(client, ann, "open")
    refused = await client.post("/api/matches", json={"mode": "open"}, headers=bearer(ann))
    # The oldest one's join timeout (D3: 10 minutes, Ann never having opened its page) ends
    # 585 s from now.
    message = assert_rate_limited(refused, 585)
    assert message == (
        "'Ann' already has the most open challenges allowed waiting for an opponent (3): "
        "wait until one is taken or expires (the oldest in 585 s)"
    )
    # Invitations and shared matches are not listed in the lobby, so not capped.
    await new_match(client, ann, "invite")
    await new_match(client, ann, "shared")
    # Bob's challenges are his own.
    await new_match(client, bob, "open")
    # Once one is taken, Ann may list another.
    taken = await client.post(f"/api/matches/{oldest}/join", headers=bearer(bob))
    assert taken.status_code == 200
    await new_match(client, ann, "open")


# -- memory stays bounded --------------------------------------------------------------------


def test_buckets_that_refilled_are_dropped() -> None:
    limit = KeyedLimit(per_minute=60, burst=3)  # full again 3 s after the last request
    for i in range(1_000):
        limit.take(f"203.0.113.{i}", now_ms=i)
    assert len(limit) == 1_000
    limit.take("198.51.100.1", now_ms=3_500)
    assert len(limit) == 500  # only those of the last 3 s are left
    limit.take("198.51.100.2", now_ms=6_500)
    assert len(limit) == 1


def test_many_keys_keep_at_most_max_keys() -> None:
    limit = KeyedLimit(per_minute=1, burst=1, max_keys=100)
    for i in range(10_000):
        assert limit.wait_ms(f"guest-{i}", now_ms=0) == 0
        limit.take(f"guest-{i}", now_ms=0)
    assert len(limit) == 100
    assert limit.wait_ms("guest-9999", now_ms=0) == 60_000  # the recent ones are kept
    assert limit.wait_ms("guest-0", now_ms=0) == 0  # the oldest start afresh


def test_a_refused_take_needs_no_bucket() -> None:
    limit = KeyedLimit(per_minute=60, burst=1)
    assert limit.wait_ms("203.0.113.7", now_ms=0) == 0
    assert len(limit) == 0
    limit.take("203.0.113.7", now_ms=0)
    assert limit.wait_ms("203.0.113.7", now_ms=400) == 600


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("testclient", "testclient"),
    ],
)
def test_the_address_key(host: str, key: str) -> None:
    conn = HTTPConnection({"type": "http", "client": (host, 1), "headers": []})
    assert address_key(conn) == key


async def fresh_clients(app: FastAPI, count: int) -> AsyncIterator[httpx.AsyncClient]:
    for i in range(count):
        transport = httpx.ASGITransport(app=app, client=(f"10.0.{i // 256}.{i % 256}", 1))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            yield c


async def test_guests_from_many_addresses_keep_memory_bounded(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    limits = app.state.http_limits
    monkeypatch.setattr(limits.guests_by_address, "max_keys", 50)
    async for c in fresh_clients(app, 200):
        assert (await c.post("/api/session", json={"name": "Bot"})).status_code == 201
    assert len(limits.guests_by_address) == 50


# -- logins per address, per name at an address, and per name ---------------------------------

QUICK = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@pytest.fixture
def quick_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked for before the app: its passwords hash in microseconds, not 64 MiB and a core's
    130 ms each, so that forty logins take no minute on a shared machine."""
    monkeypatch.setattr(app_module, "Passwords", lambda: Passwords(QUICK))


async def an_account(client: httpx.AsyncClient, name: str) -> None:
    token = await guest(client, name)
    made = await client.post(
        "/api/account", json={"password": "correct horse"}, headers=bearer(token)
    )
    assert made.status_code == 201, made.text
    client.cookies.clear()


async def log_in(client: httpx.AsyncClient, name: str, password: str) -> httpx.Response:
    response = await client.post("/api/login", json={"name": name, "password": password})
    client.cookies.clear()
    return response


async def test_wrong_passwords_from_one_address_leave_the_owner_in(
    quick_hashes: None, client: httpx.AsyncClient, client_at: ClientAt, clock: Clock
) -> None:
    """The finding: five wrong passwords from one address locked the owner out everywhere."""
    await an_account(client, "Ann")
    async with client_at("203.0.113.66") as attacker:
        for i in range(5):
            assert (await log_in(attacker, "Ann", f"guess {i}")).status_code == 401
        refused = await log_in(attacker, "ann", "guess 5")
        message = assert_rate_limited(refused, 12)
        assert "from your address 203.0.113.66 at that name (at most 5 at once" in message
        assert (await log_in(attacker, "Bo", "guess")).status_code == 401  # another name
    assert (await log_in(client, "Ann", "correct horse")).status_code == 200


async def test_a_guess_spread_over_many_addresses_meets_the_names_ceiling(
    quick_hashes: None, client: httpx.AsyncClient, client_at: ClientAt, clock: Clock
) -> None:
    await an_account(client, "Ann")
    for i in range(6):
        async with client_at(f"198.51.100.{i}") as attacker:
            for j in range(5):
                assert (await log_in(attacker, "Ann", f"guess {i}.{j}")).status_code == 401
    refused = await log_in(client, "Ann", "correct horse")
    assert "from all addresses at that name (at most 30 at once" in assert_rate_limited(refused, 2)
    clock.advance(2_000)
    assert (await log_in(client, "Ann", "correct horse")).status_code == 200
