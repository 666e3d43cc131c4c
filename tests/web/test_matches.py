"""``/api/matches``: create, join, and read a match as the caller may see it (PROTOCOL.md "POST
/api/matches")."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from spectacular_bid.service.commands import Start
from spectacular_bid.web.messages import ServerState
from spectacular_bid.web.snapshot import MatchSnapshot

from .guests import bearer, error_of, guest, joined_match, new_match
from .served import service_of


@pytest.mark.parametrize("mode", ["invite", "open", "shared"])
async def test_create_each_mode(client: httpx.AsyncClient, mode: str) -> None:
    token = await guest(client, "Ann")
    response = await client.post("/api/matches", json={"mode": mode}, headers=bearer(token))
    assert response.status_code == 201
    body = response.json()
    match_id = body["id"]
    assert body == {
        "id": match_id,
        "mode": mode,
        "seat": "first",
        "invite_url": f"/m/{match_id}",
        "ws_url": f"/ws/matches/{match_id}",
    }
    view = (await client.get(f"/api/matches/{match_id}", headers=bearer(token))).json()
    assert view["match"]["mode"] == mode
    assert view["match"]["audience"] == ("device" if mode == "shared" else "first")
    assert view["match"]["status"] == ("active" if mode == "shared" else "waiting")


async def test_create_needs_a_guest(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/matches", json={"mode": "open"})
    assert response.status_code == 401
    assert error_of(response)["code"] == "unauthorized"


async def test_create_refuses_an_unknown_mode(client: httpx.AsyncClient) -> None:
    token = await guest(client, "Ann")
    response = await client.post("/api/matches", json={"mode": "blitz"}, headers=bearer(token))
    assert response.status_code == 422
    error = error_of(response)
    assert error["code"] == "bad_message"
    assert "'mode'" in error["message"]
    assert "'blitz'" in error["message"]
    assert all(f"'{mode}'" in error["message"] for mode in ("invite", "open", "shared", "bot"))


async def test_create_with_its_own_time_control(client: httpx.AsyncClient) -> None:
    token = await guest(client, "Ann")
    response = await client.post(
        "/api/matches", json={"mode": "shared", "bank_ms": 30_000}, headers=bearer(token)
    )
    match_id = response.json()["id"]
    clock = (await client.get(f"/api/matches/{match_id}")).json()["match"]["clock"]
    assert clock["bank_left_ms"] == {"first": 30_000, "second": 30_000}


async def test_join_takes_the_second_seat(client: httpx.AsyncClient) -> None:
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    match_id = await new_match(client, ann)
    response = await client.post(f"/api/matches/{match_id}/join", headers=bearer(bob))
    assert response.status_code == 200
    assert response.json() == {"seat": "second"}
    view = (await client.get(f"/api/matches/{match_id}", headers=bearer(bob))).json()
    assert view["match"]["players"]["second"]["name"] == "Bob"
    assert view["match"]["status"] == "active"


async def test_joining_ones_own_match_gives_the_seat_back(client: httpx.AsyncClient) -> None:
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    response = await client.post(f"/api/matches/{match_id}/join", headers=bearer(ann))
    assert response.json() == {"seat": "first"}


@pytest.mark.parametrize("mode", ["invite", "shared"])
async def test_a_full_match_is_409_seat_taken(client: httpx.AsyncClient, mode: str) -> None:
    ann, bob, cat = [await guest(client, n) for n in ("Ann", "Bob", "Cat")]
    match_id = await new_match(client, ann, mode)
    if mode == "invite":
        await client.post(f"/api/matches/{match_id}/join", headers=bearer(bob))
    response = await client.post(f"/api/matches/{match_id}/join", headers=bearer(cat))
    assert response.status_code == 409
    assert error_of(response)["code"] == "seat_taken"


async def test_join_needs_a_guest(client: httpx.AsyncClient) -> None:
    ann = await guest(client, "Ann")
    match_id = await new_match(client, ann)
    response = await client.post(f"/api/matches/{match_id}/join")
    assert response.status_code == 401


async def test_an_unknown_match_is_404(client: httpx.AsyncClient) -> None:
    ann = await guest(client, "Ann")
    for response in (
        await client.get("/api/matches/nope"),
        await client.post("/api/matches/nope/join", headers=bearer(ann)),
    ):
        assert response.status_code == 404
        assert error_of(response) == {"code": "not_found", "message": "no match 'nope'"}


async def test_a_player_sees_their_hand_and_a_spectator_none(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bob, cat = [await guest(client, n) for n in ("Ann", "Bob", "Cat")]
    match_id = await joined_match(client, ann, bob)
    service = service_of(app)
    actor = service.get(match_id)
    for token in (ann, bob):  # both press Start: the first round is dealt (D3)
        player = await service.guests.resolve(token)
        assert player is not None
        await actor.submit(player.id, Start(), actor.version, service.now_ms())

    views = {
        who: (await client.get(f"/api/matches/{match_id}", headers=headers)).json()
        for who, headers in (
            ("first", bearer(ann)),
            ("second", bearer(bob)),
            ("outsider", bearer(cat)),
            ("anonymous", {}),
        )
    }
    for view in views.values():
        assert view["version"] == actor.version
        MatchSnapshot.model_validate(view["match"])
        ServerState.model_validate({"type": "state", **view})
    first, second = views["first"]["match"], views["second"]["match"]
    assert first["audience"] == "first"
    assert len(first["hand"]) == 7
    assert len(second["hand"]) == 7
    assert set(first["hand"]).isdisjoint(second["hand"])
    for who in ("outsider", "anonymous"):
        spectator = views[who]["match"]
        assert spectator["audience"] == "spectator"
        assert spectator["hand"] is None
        assert spectator["legal"] is None
        text = str(spectator)
        assert not any(f"'{tile}'" in text for tile in first["hand"] + second["hand"])
    # The log (the move list) is every event so far, each as its receiver may see it.
    dealt_to = {}
    for who, view in views.items():
        log = view["log"]
        assert [(e["version"], e["type"]) for e in log[:3]] == [
            (1, "seat_taken"),
            (2, "ready"),
            (3, "round_dealt"),
        ]
        dealt_to[who] = log[2]["hands"]
    assert dealt_to["first"] == {"first": sorted(first["hand"]), "second": None}
    assert dealt_to["second"] == {"first": None, "second": sorted(second["hand"])}
    assert dealt_to["outsider"] == dealt_to["anonymous"] == {"first": None, "second": None}
