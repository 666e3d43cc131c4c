"""``/livez`` and ``/readyz`` (PROTOCOL.md "Probes and metrics"): live while the loop answers; ready
only with the database at the migrations' head and no drain, an optional dependency down being
``degraded``."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from fastapi import FastAPI
from sqlalchemy import text

from serverproc import free_port
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.store.repository import SqlStore
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings

from .guests import bearer, error_of, guest

READY = {"ready": True, "reasons": [], "draining": False, "degraded": []}


async def test_livez_answers_from_the_loop(client: httpx.AsyncClient) -> None:
    response = await client.get("/livez")
    assert response.status_code == 200
    assert response.json() == {"live": True}


async def test_readyz_is_ready_on_a_database_at_head(client: httpx.AsyncClient) -> None:
    response = await client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == READY


async def test_readyz_is_unready_when_the_schema_is_not_at_head(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    store = app.state.store
    assert isinstance(store, SqlStore)
    async with store.engine.begin() as conn:
        await conn.execute(text("UPDATE alembic_version SET version_num = 'older'"))
    response = await client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert (body["ready"], body["draining"], body["degraded"]) == (False, False, [])
    assert len(body["reasons"]) == 1
    assert "revision older" in body["reasons"][0]
    # /livez does not care: a replica whose database lags is not to be restarted.
    assert (await client.get("/livez")).status_code == 200


async def test_a_draining_server_is_unready_and_takes_no_new_match(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann = await guest(client, "Ann")
    waiting = await client.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
    assert waiting.status_code == 201
    service = app.state.service
    assert isinstance(service, MatchService)
    service.admission.start_draining()
    response = await client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {
        "ready": False,
        "reasons": ["the server is draining before it stops"],
        "draining": True,
        "degraded": [],
    }
    refused = await client.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "5"
    error = error_of(refused)
    assert error["code"] == "server_busy"
    assert "shutting down" in error["message"]
    # The match admitted before plays on: its second seat is taken as ever.
    bob = await guest(client, "Bob")
    match_id = waiting.json()["id"]
    joined = await client.post(f"/api/matches/{match_id}/join", headers=bearer(bob))
    assert joined.json() == {"seat": "second"}


@dataclass
class Dependency:
    """An optional dependency whose answer the test sets."""

    name: str
    reason: str | None = None
    fails: bool = False

    async def unready_reason(self) -> str | None:
        if self.fails:
            raise ConnectionError("refused")
        return self.reason


async def test_an_optional_dependency_down_is_degraded_not_unready(
    settings: WebSettings,
) -> None:
    app = create_app(settings, InMemoryStore())
    redis, other, broken = Dependency("redis", "down"), Dependency("other"), Dependency("x", None)
    broken.fails = True
    app.state.optional.extend([redis, other, broken])
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            response = await client.get("/readyz")
            assert response.status_code == 200
            assert response.json() == {**READY, "degraded": ["redis", "x"]}
            redis.reason = None
            assert (await client.get("/readyz")).json() == {**READY, "degraded": ["x"]}


async def test_one_process_has_no_optional_dependency(app: FastAPI) -> None:
    # Without REDIS_URL nothing is relayed (PROTOCOL.md "Several servers on one database"), so
    # nothing may claim to check Redis.
    assert app.state.optional == []
    assert app.state.remote_rooms is None


async def test_a_relaying_server_without_its_redis_is_degraded_not_unready(
    settings: WebSettings,
) -> None:
    port = free_port()  # nothing listens there
    app = create_app(settings.model_copy(update={"redis_url": f"redis://127.0.0.1:{port}/0"}))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            response = await client.get("/readyz")
            assert response.status_code == 200
            assert response.json() == {**READY, "degraded": ["redis"]}
            # Its own matches go on without Redis.
            ann = await guest(client, "Ann")
            made = await client.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
            assert made.status_code == 201
