"""Admission control over HTTP (PROTOCOL.md "When the server is busy"): 503 ``server_busy`` with
``Retry-After`` for new matches (never for filling one admitted before); live matches play on;
``/api/health`` tells the load."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from fastapi import FastAPI

from spectacular_bid.service.admission import RETRY_AFTER_AT_CAP_S, RETRY_AFTER_S, WARMUP_MS
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings
from waiting import until

from .guests import bearer, error_of, guest, joined_match, new_match


@asynccontextmanager
async def serving(settings: WebSettings, **strict: object) -> AsyncIterator[httpx.AsyncClient]:
    app: FastAPI = create_app(settings.model_copy(update=strict))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield client


def assert_busy(response: httpx.Response, retry_after_s: int = RETRY_AFTER_AT_CAP_S) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"] == str(retry_after_s)
    error = error_of(response)
    assert error["code"] == "server_busy"
    assert "try again" in error["message"]


async def test_past_the_match_cap_new_matches_are_refused_and_waiting_ones_fill(
    settings: WebSettings,
) -> None:
    async with serving(settings, max_live_matches=1) as client:
        ann, bob, cat = [await guest(client, n) for n in ("Ann", "Bob", "Cat")]
        waiting = await new_match(client, ann)
        assert_busy(await client.post("/api/matches", json={"mode": "open"}, headers=bearer(bob)))
        assert (await client.get("/api/lobby")).json()["open_challenges"] == []
        health = (await client.get("/api/health")).json()
        assert (health["busy"], health["live_matches"]) == (True, 1)
        # Filling the waiting match adds none: it is let in, and the seated player gets the
        # seat back, whatever the load.
        joined = await client.post(f"/api/matches/{waiting}/join", headers=bearer(bob))
        assert joined.json() == {"seat": "second"}
        again = await client.post(f"/api/matches/{waiting}/join", headers=bearer(ann))
        assert again.json() == {"seat": "first"}
        state = (await client.get(f"/api/matches/{waiting}", headers=bearer(cat))).json()
        assert state["match"]["status"] == "active"
        health = (await client.get("/api/health")).json()
        assert (health["admitted"], health["refused"]) == (1, 1)  # counts new matches


async def test_a_saturated_loop_refuses_new_matches_and_aborts_no_live_one(
    settings: WebSettings,
) -> None:
    async with serving(settings, busy_lag_ms=50, busy_cpu=1000.0) as client:
        ann, bob, cat, dan = [await guest(client, n) for n in ("Ann", "Bob", "Cat", "Dan")]
        live = await joined_match(client, ann, bob)
        waiting = await new_match(client, cat)
        # The warm-up window passes (the time under test): start-up's own lag is not load.
        await asyncio.sleep(WARMUP_MS / 1000 + 0.3)
        assert (await client.get("/api/health")).json()["busy"] is False
        for _ in range(12):  # more work than the loop can do: every tick comes ~150 ms late
            time.sleep(0.25)  # the load itself: the loop is blocked, on purpose
            await asyncio.sleep(0.001)  # the loop's tick, which the block above made late
        refused = await client.post("/api/matches", json={"mode": "invite"}, headers=bearer(dan))
        assert_busy(refused, RETRY_AFTER_S)
        # Filling a match admitted before is never refused: it was admitted with its seat.
        joined = await client.post(f"/api/matches/{waiting}/join", headers=bearer(dan))
        assert joined.json() == {"seat": "second"}
        health = (await client.get("/api/health")).json()
        assert health["busy"] is True
        assert health["max_pause_ms"] >= 100
        assert any(pause["lag_ms"] >= 100 for pause in health["pauses"])
        state = (await client.get(f"/api/matches/{live}", headers=bearer(ann))).json()
        assert state["match"]["status"] == "active"  # the live match plays on
        assert live in [line["id"] for line in (await client.get("/api/lobby")).json()["live"]]

        async def calm() -> bool:  # the lag window and the hold pass
            return (await client.get("/api/health")).json()["busy"] is False

        await until(calm, what="the server no longer busy")
        created = await client.post("/api/matches", json={"mode": "invite"}, headers=bearer(dan))
        assert created.status_code == 201, created.text


async def test_the_health_of_an_idle_server(client: httpx.AsyncClient) -> None:
    health = (await client.get("/api/health")).json()
    assert health["busy"] is False
    assert (health["live_matches"], health["open_sockets"], health["refused"]) == (0, 0, 0)
    assert isinstance(health["now_ms"], int)


async def test_a_busy_server_refuses_new_matches_at_the_door(settings: WebSettings) -> None:
    # Refused clients retry after Retry-After; their refusals must cost little, so a busy server
    # answers them before the guest lookup and the body: even one with neither is told "busy".
    async with serving(settings, max_live_matches=1) as client:
        ann = await guest(client, "Ann")
        await new_match(client, ann)
        door = await client.post("/api/matches", content=b"not json")
        assert_busy(door)
        assert door.headers["x-content-type-options"] == "nosniff"
        assert (await client.get("/api/health")).json()["refused"] == 1
    async with serving(settings, max_live_matches=1) as client:
        # Not busy: the request goes on to the service, which checks it as always.
        assert (await client.post("/api/matches", content=b"not json")).status_code == 401
