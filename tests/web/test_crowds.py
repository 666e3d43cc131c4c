"""A crowd at one match (PROTOCOL.md "Limits and close codes"): sockets capped per address and per
guest, presence coalesced so that ``n`` arrivals cost O(n) messages, and a crowd's number sent at a
slower pace."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import httpx
import pytest
from fastapi import FastAPI

from spectacular_bid.web.app import create_app
from spectacular_bid.web.room import CROWD_PRESENCE_MS
from spectacular_bid.web.settings import WebSettings

from .asgi_socket import AsgiSocket, Closed
from .guests import guest, joined_match


@asynccontextmanager
async def serving(
    settings: WebSettings, **strict: object
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    app = create_app(settings.model_copy(update=strict))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield app, client


def socket(
    app: FastAPI, match_id: str, token: str | None = None, address: str = "10.0.0.1"
) -> AsgiSocket:
    ws = AsgiSocket(app, f"/ws/matches/{match_id}", query={"token": token} if token else {})
    ws.scope["client"] = (address, 40000)
    return ws


async def drain(ws: AsgiSocket, seconds: float) -> list[dict[str, object]]:
    """Every message the socket gets within ``seconds``."""
    got: list[dict[str, object]] = []
    deadline = asyncio.get_running_loop().time() + seconds
    while (left := deadline - asyncio.get_running_loop().time()) > 0:
        try:
            got.append(await asyncio.wait_for(ws.receive_json(), left))
        except TimeoutError:
            break
    return got


async def test_one_address_may_hold_only_its_share_of_sockets(settings: WebSettings) -> None:
    async with serving(settings, sockets_per_address=3) as (app, client):
        match_id = await joined_match(client, await guest(client, "Ann"), await guest(client, "Bo"))
        async with AsyncExitStack() as stack:
            for _ in range(3):
                await stack.enter_async_context(socket(app, match_id))
            with pytest.raises(Closed) as refused:
                async with socket(app, match_id) as extra:
                    await extra.receive_json()
            assert refused.value.code == 1008
            assert "at most 3" in refused.value.reason
            # Another address is not held back by this one.
            async with socket(app, match_id, address="10.0.0.2") as other:
                assert (await other.receive_json())["type"] == "state"
        # Closed sockets give their places back.
        async with socket(app, match_id) as again:
            assert (await again.receive_json())["type"] == "state"


async def test_one_guest_may_hold_only_its_share_of_sockets(settings: WebSettings) -> None:
    async with serving(settings, sockets_per_guest=2) as (app, client):
        ann, bo = await guest(client, "Ann"), await guest(client, "Bo")
        match_id = await joined_match(client, ann, bo)
        async with socket(app, match_id, ann, "10.0.0.1"), socket(app, match_id, ann, "10.0.0.2"):
            with pytest.raises(Closed) as refused:
                async with socket(app, match_id, ann, "10.0.0.3") as extra:
                    await extra.receive_json()
            assert (refused.value.code, refused.value.reason) == (
                1008,
                "too many sockets for one guest (at most 2)",
            )
            async with socket(app, match_id, bo, "10.0.0.3") as player:
                assert (await player.receive_json())["match"]["audience"] == "second"


async def test_a_crowd_arriving_costs_each_socket_a_few_presence_messages(
    settings: WebSettings,
) -> None:
    crowd = 40
    async with serving(settings, presence_delay_ms=100, spectator_crowd=1000) as (app, client):
        ann, bo = await guest(client, "Ann"), await guest(client, "Bo")
        match_id = await joined_match(client, ann, bo)
        async with AsyncExitStack() as stack:
            player = await stack.enter_async_context(socket(app, match_id, ann))
            assert (await player.receive_json())["type"] == "state"
            watchers = [
                await stack.enter_async_context(socket(app, match_id, address=f"10.1.0.{i}"))
                for i in range(crowd)
            ]
            got = await drain(player, 0.5)
            presences = [m for m in got if m["type"] == "presence"]
            # Without coalescing the player gets one presence per arrival (forty-one).
            assert 1 <= len(presences) <= 3
            assert presences[-1]["spectators"] == crowd
            for watcher in watchers:
                messages = [m["type"] for m in await drain(watcher, 0.05)]
                assert messages[0] == "state"
                assert messages.count("presence") <= 3


async def test_beyond_a_crowd_its_number_alone_waits_but_a_player_does_not(
    settings: WebSettings,
) -> None:
    async with serving(settings, presence_delay_ms=50, spectator_crowd=2) as (app, client):
        ann, bo = await guest(client, "Ann"), await guest(client, "Bo")
        match_id = await joined_match(client, ann, bo)
        async with AsyncExitStack() as stack:
            player = await stack.enter_async_context(socket(app, match_id, ann))
            for i in range(3):
                await stack.enter_async_context(socket(app, match_id, address=f"10.2.0.{i}"))
            first = [m for m in await drain(player, 0.4) if m["type"] == "presence"]
            assert first[-1]["spectators"] == 3
            # A fourth spectator: the crowd's number alone is not worth a message at once...
            await stack.enter_async_context(socket(app, match_id, address="10.2.0.9"))
            assert [m for m in await drain(player, 0.3) if m["type"] == "presence"] == []
            # ...but the other player arriving is, and it carries the crowd's number too.
            await stack.enter_async_context(socket(app, match_id, bo))
            (presence,) = [m for m in await drain(player, 0.4) if m["type"] == "presence"]
            assert presence["online"] == {"first": True, "second": True}
            assert presence["spectators"] == 4
            assert CROWD_PRESENCE_MS > 400
