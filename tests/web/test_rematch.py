"""Rematch over HTTP and the WebSocket (PROTOCOL.md "rematch"): an offer, its acceptance starting a
new match of the same two players and time control with the seats swapped, which every socket of
the ended match (spectators too) is told of; a decline; and an offer lapsing when a player leaves
or after three minutes. The ended match's version never moves."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.rematches import OFFER_MS, PRESENCE_MS, Rematches

from .asgi_socket import AsgiSocket
from .guests import bearer, error_of, guest, joined_match, new_match


def socket(app: FastAPI, match_id: str, token: str | None = None) -> AsgiSocket:
    query = {"token": token} if token is not None else {}
    return AsgiSocket(app, f"/ws/matches/{match_id}", query=query)


async def ended_match(app: FastAPI, client: httpx.AsyncClient, ann: str, bo: str) -> str:
    match_id = await joined_match(client, ann, bo)
    async with socket(app, match_id, bo) as ws:
        state = await ws.receive_until("state")
        await ws.send_json({"type": "resign", "version": state["version"], "id": "r"})
        assert (await ws.receive_until("update"))["match"]["status"] == "finished"
    return match_id


async def rematch(client: httpx.AsyncClient, match_id: str, token: str) -> httpx.Response:
    return await client.post(f"/api/matches/{match_id}/rematch", headers=bearer(token))


async def version_of(client: httpx.AsyncClient, match_id: str) -> int:
    version: int = (await client.get(f"/api/matches/{match_id}")).json()["version"]
    return version


async def test_an_accepted_offer_takes_everyone_to_the_new_match(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bo = await guest(client, "Ann"), await guest(client, "Bo")
    created = await client.post(
        "/api/matches",
        json={"mode": "invite", "bank_ms": 60_000, "delay_ms": 5_000},
        headers=bearer(ann),
    )
    match_id = created.json()["id"]
    assert (await client.post(f"/api/matches/{match_id}/join", headers=bearer(bo))).is_success
    async with socket(app, match_id, bo) as ws:
        state = await ws.receive_until("state")
        await ws.send_json({"type": "resign", "version": state["version"], "id": "r"})
        await ws.receive_until("update")
    version = await version_of(client, match_id)
    async with socket(app, match_id, bo) as bo_ws, socket(app, match_id) as watcher:
        await bo_ws.receive_until("presence")
        await watcher.receive_until("presence")
        offered = await rematch(client, match_id, ann)
        assert offered.status_code == 200, offered.text
        body = offered.json()
        assert (body["offered_by"], body["match_id"]) == ("first", None)
        assert 0 < body["expires_in_ms"] <= OFFER_MS
        told = await bo_ws.receive_until("rematch")
        assert (told["offered_by"], told["match_id"], told["version"]) == ("first", None, version)
        again = await rematch(client, match_id, ann)  # offering twice is the same offer
        assert again.json()["offered_by"] == "first"
        accepted = (await rematch(client, match_id, bo)).json()
        new_id = accepted["match_id"]
        assert new_id is not None
        assert accepted["offered_by"] is None
        for ws in (bo_ws, watcher):
            while (message := await ws.receive_until("rematch"))["match_id"] is None:
                pass
            assert message["match_id"] == new_id
    view = (await client.get(f"/api/matches/{new_id}")).json()["match"]
    assert view["status"] == "active"
    names = (view["players"]["first"]["name"], view["players"]["second"]["name"])
    assert names == ("Bo", "Ann")  # the seats swapped
    lobby = (await client.get("/api/lobby")).json()
    line = next(m for m in lobby["live"] if m["id"] == new_id)
    assert (line["bank_ms"], line["delay_ms"], line["mode"]) == (60_000, 5_000, "invite")
    assert await version_of(client, match_id) == version  # the ended match did not move
    late = (await rematch(client, match_id, ann)).json()
    assert late["match_id"] == new_id  # once started, an offer just points to it


async def test_a_declined_offer_is_gone_for_both(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann, bo = await guest(client, "Ann"), await guest(client, "Bo")
    match_id = await ended_match(app, client, ann, bo)
    async with socket(app, match_id, ann) as ann_ws:
        await ann_ws.receive_until("presence")
        await rematch(client, match_id, ann)
        assert (await ann_ws.receive_until("rematch"))["offered_by"] == "first"
        declined = await client.delete(f"/api/matches/{match_id}/rematch", headers=bearer(bo))
        assert declined.json() == {"offered_by": None, "expires_in_ms": None, "match_id": None}
        assert (await ann_ws.receive_until("rematch"))["offered_by"] is None
    read = await client.get(f"/api/matches/{match_id}/rematch")
    assert read.json()["offered_by"] is None


async def test_an_offer_lapses_when_a_player_leaves_or_after_three_minutes(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bo = await guest(client, "Ann"), await guest(client, "Bo")
    match_id = await ended_match(app, client, ann, bo)
    async with socket(app, match_id, ann) as ann_ws:
        await ann_ws.receive_until("presence")
        async with socket(app, match_id, bo) as bo_ws:
            await bo_ws.receive_until("presence")
            await rematch(client, match_id, ann)
            assert (await ann_ws.receive_until("rematch"))["offered_by"] == "first"
        lapsed = await ann_ws.receive_until("rematch")  # Bo's last socket closed
        assert lapsed["offered_by"] is None
    service = app.state.service
    assert isinstance(service, MatchService)
    now = [0]
    service.rematches = Rematches(lambda: now[0])
    await rematch(client, match_id, ann)
    url = f"/api/matches/{match_id}/rematch"
    for now[0] in range(0, OFFER_MS, 10_000):  # Ann's page reads it: Ann is still there
        assert (await client.get(url, headers=bearer(ann))).json()["offered_by"] == "first"
    now[0] = OFFER_MS - 1
    assert (await client.get(url, headers=bearer(ann))).json()["offered_by"] == "first"
    now[0] = OFFER_MS
    assert (await client.get(url, headers=bearer(ann))).json()["offered_by"] is None
    started = (await rematch(client, match_id, bo)).json()  # a new offer, not an acceptance
    assert (started["offered_by"], started["match_id"]) == ("second", None)


async def test_only_the_players_of_an_ended_online_match_may_ask(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bo, cy = await guest(client, "Ann"), await guest(client, "Bo"), await guest(client, "Cy")
    live = await joined_match(client, ann, bo)
    assert error_of(await rematch(client, live, ann))["code"] == "wrong_phase"
    ended = await ended_match(app, client, ann, bo)
    stranger = await rematch(client, ended, cy)
    assert (stranger.status_code, error_of(stranger)["code"]) == (403, "not_your_seat")
    shared = await new_match(client, ann, "shared")
    async with socket(app, shared, ann) as ws:
        state = await ws.receive_until("state")
        await ws.send_json({"type": "resign", "version": state["version"], "seat": "first"})
        assert (await ws.receive_until("update"))["match"]["status"] == "finished"
    refused = error_of(await rematch(client, shared, ann))
    assert (refused["code"], refused["message"]) == (
        "wrong_phase",
        "a shared device starts its next match from the lobby",
    )
    missing = await rematch(client, "nosuchmatch", ann)
    assert error_of(missing)["code"] == "not_found"
    assert (await client.post(f"/api/matches/{ended}/rematch")).status_code == 401


async def test_an_offer_lapses_when_its_player_is_no_longer_heard_from(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """The offering page reads the rematch every few seconds; when it stops (the player left,
    with no socket to tell it, as from the archive), the offer lapses, so that nobody is dealt
    into a rematch they are not there to play."""
    ann, bo = await guest(client, "Ann"), await guest(client, "Bo")
    match_id = await ended_match(app, client, ann, bo)
    service = app.state.service
    assert isinstance(service, MatchService)
    now = [0]
    service.rematches = Rematches(lambda: now[0])
    url = f"/api/matches/{match_id}/rematch"
    await rematch(client, match_id, ann)
    now[0] = PRESENCE_MS - 1
    assert (await client.get(url, headers=bearer(bo))).json()["offered_by"] == "first"
    now[0] = PRESENCE_MS  # Bo's and a visitor's reads do not keep Ann's offer
    assert (await client.get(url)).json()["offered_by"] is None
    assert (await client.get("/api/lobby", headers=bearer(bo))).json()["rematch_offers"] == []
    accepted = (await rematch(client, match_id, bo)).json()
    assert (accepted["offered_by"], accepted["match_id"]) == ("second", None)  # a new offer
