"""A shared-device match with the names its creator typed for the two players: the seats, the
match object, the lobby, the record, the replay and the ended match read back from the store
all call them so, while both seats stay the one guest on the device (its audience, its seats)."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from spectacular_bid.service.record_document import parse_document
from spectacular_bid.service.replay import verify

from .asgi_socket import AsgiSocket
from .guests import bearer, error_of, guest
from .served import service_of

NAMES = {"first": "Ann", "second": "Bob"}


async def shared(client: httpx.AsyncClient, token: str, names: Any) -> httpx.Response:
    body = {"mode": "shared", "names": names}
    return await client.post("/api/matches", json=body, headers=bearer(token))


async def resign_second(app: FastAPI, match_id: str, token: str) -> None:
    async with AsgiSocket(app, f"/ws/matches/{match_id}", query={"token": token}) as ws:
        state = await ws.receive_until("state")
        command = {"type": "resign", "seat": "second", "version": state["version"], "id": "r"}
        await ws.send_json(command)
        update = await ws.receive_until("update")
        assert update["match"]["status"] == "finished", update


async def test_the_typed_names_name_the_seats_everywhere(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    dana = await guest(client, "Dana")
    created = await shared(client, dana, NAMES)
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    view = (await client.get(f"/api/matches/{match_id}", headers=bearer(dana))).json()["match"]
    assert view["audience"] == "device"  # both seats are Dana's device
    assert {seat: view["players"][seat]["name"] for seat in NAMES} == NAMES
    spectator = (await client.get(f"/api/matches/{match_id}")).json()["match"]
    assert spectator["players"]["second"]["name"] == "Bob"
    live = (await client.get("/api/lobby")).json()["live"]
    line = next(m for m in live if m["id"] == match_id)
    assert (line["first"], line["second"]) == ("Ann", "Bob")
    stranger = await guest(client, "Cy")
    taken = await client.post(f"/api/matches/{match_id}/join", headers=bearer(stranger))
    assert taken.status_code == 409

    await resign_second(app, match_id, dana)  # Bob resigns: Ann wins
    record = (await client.get(f"/api/matches/{match_id}/record")).json()
    assert record["match"]["players"] == {
        "first": {"name": "Ann", "account": False},
        "second": {"name": "Bob", "account": False},
    }
    assert "names" not in record["match"]["settings"]
    verify(parse_document(record))
    ended = (await client.get("/api/matches")).json()["matches"]
    assert (ended[0]["first"], ended[0]["second"]) == ("Ann", "Bob")
    replay = (await client.get(f"/api/matches/{match_id}/replay")).json()
    assert replay["match"]["players"]["second"]["name"] == "Bob"
    # Read back from the store, as after the match has left memory.
    rebuilt = await service_of(app).ended.read(match_id)
    assert rebuilt.state.seat_names == ("Ann", "Bob")
    assert rebuilt.state.seats[0] == rebuilt.state.seats[1]  # one player, Dana
    # Imported elsewhere, the record keeps its names.
    imported = await client.post("/api/records", json=record, headers=bearer(dana))
    assert imported.status_code == 201, imported.text
    again = (await client.get(f"/api/matches/{imported.json()['id']}/record")).json()
    assert again["match"]["players"]["second"]["name"] == "Bob"


async def test_without_names_the_seats_are_the_devices(client: httpx.AsyncClient) -> None:
    dana = await guest(client, "Dana")
    created = await client.post("/api/matches", json={"mode": "shared"}, headers=bearer(dana))
    view = (await client.get(f"/api/matches/{created.json()['id']}")).json()["match"]
    assert view["players"]["first"]["name"] == view["players"]["second"]["name"] == "Dana"


async def test_names_must_be_two_different_display_names_of_a_shared_match(
    client: httpx.AsyncClient,
) -> None:
    dana = await guest(client, "Dana")
    for names in (
        {"first": "Ann", "second": "ann"},  # the same name
        {"first": "Ann", "second": " "},  # no name at all
        {"first": "Ann", "second": "B" * 25},  # too long
        {"first": "Ann"},  # one missing
    ):
        refused = await shared(client, dana, names)
        assert refused.status_code == 422, (names, refused.text)
        assert error_of(refused)["code"] == "bad_message"
    invite = await client.post(
        "/api/matches", json={"mode": "invite", "names": NAMES}, headers=bearer(dana)
    )
    assert invite.status_code == 422
    assert "shared" in error_of(invite)["message"]
    assert (await client.get("/api/lobby")).json()["live"] == []  # nothing was made
