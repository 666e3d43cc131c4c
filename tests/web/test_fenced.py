"""A server whose lease was taken by a peer (OPERATIONS.md, "Running it for real": a lost lease)
knows it: ``/readyz`` says why at once, a request that would write is refused ``503 server_busy``
with ``Retry-After`` (never a 500), and the process registers again under a new identity and
epoch, owning nothing, and is ready again."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import text

from spectacular_bid.service.matches import MatchService
from spectacular_bid.store.repository import SqlStore

from .guests import bearer, error_of, guest, new_match


def _parts(app: FastAPI) -> tuple[SqlStore, MatchService]:
    store, service = app.state.store, app.state.service
    assert isinstance(store, SqlStore)
    assert isinstance(service, MatchService)
    return store, service


async def _taken_over(store: SqlStore) -> str:
    """What a peer's takeover does to this server's row (``store.leases``): gone, epoch + 1."""
    old = store.server_id
    assert old is not None
    async with store.engine.begin() as conn:
        await conn.execute(
            text("UPDATE server SET gone = true, epoch = epoch + 1 WHERE id = :id"), {"id": old}
        )
    return old


async def test_a_fenced_server_refuses_writes_with_503_and_says_so_in_readyz(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    store, service = _parts(app)
    ann = await guest(client, "Ann")
    await new_match(client, ann)
    await _taken_over(store)
    await service.failover.stop()  # the test, not the scan, decides when it registers again

    # The first write finds the fence closed: a refusal to retry, not a 500.
    refused = await client.post("/api/session", json={"name": "Bob"})
    assert refused.status_code == 503, refused.text
    assert error_of(refused)["code"] == "server_busy"
    assert int(refused.headers["retry-after"]) >= 1
    # Known lost: every write is refused before it runs, the probe says why.
    for path, body in (("/api/session", {"name": "Cy"}), ("/api/matches", {"mode": "invite"})):
        again = await client.post(path, json=body, headers=bearer(ann))
        assert again.status_code == 503, again.text
        assert error_of(again)["code"] == "server_busy"
        assert "lease" in error_of(again)["message"]
    ready = await client.get("/readyz")
    assert ready.status_code == 503
    assert any("lost its lease" in reason for reason in ready.json()["reasons"])
    # Reading goes on: a GET is never a 500.
    assert (await client.get("/api/lobby")).status_code == 200


async def test_a_fenced_server_registers_again_owning_nothing(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    store, service = _parts(app)
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    old = await _taken_over(store)
    await service.failover.scan()  # finds the lease lost, lets go of everything
    assert not service.holds(match_id)
    await service.failover.scan()  # registers again
    assert store.server_id not in (None, old)
    assert (await client.get("/readyz")).json()["ready"] is True
    made = await client.post("/api/matches", json={"mode": "invite"}, headers=bearer(ann))
    assert made.status_code == 201, made.text
    async with store.engine.connect() as conn:
        rows = await conn.execute(text("SELECT id, epoch, gone FROM server ORDER BY started_at"))
        servers = {row.id: (row.epoch, bool(row.gone)) for row in rows}
    assert servers[old] == (1, True)
    assert servers[store.server_id] == (0, False)
    owner = await store.owner_of(made.json()["id"])
    assert owner == store.server_id


async def test_a_lease_past_its_term_is_unready_before_anything_is_written(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    # A process paused past its lease (SIGSTOP) wakes before any write tells it the lease is
    # gone: its own clock already says the lease ran out, so the probe says so at once.
    store, service = _parts(app)
    await service.failover.stop()
    assert store.lease is not None
    store.lease.until_ms = store.lease.now_ms() - 1
    ready = await client.get("/readyz")
    assert ready.status_code == 503
    assert any("ran out" in reason for reason in ready.json()["reasons"])
    await service.failover.scan()  # nobody took it: the renewal holds, ready again
    assert (await client.get("/readyz")).status_code == 200
