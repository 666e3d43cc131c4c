"""Ratings, profiles and archives over HTTP (PROTOCOL.md "Players: profiles, ratings and archives"):
a match between two accounts moves both ratings as Glicko-2 says (an independent computation,
``live.glicko2``, not the project's), a guest's match moves none, and each player's profile and
paged history say so."""

from __future__ import annotations

import math

import httpx
from fastapi import FastAPI

from live.glicko2 import NEWCOMER, Glicko, glicko2

from .asgi_socket import AsgiSocket
from .guests import bearer, guest, joined_match, new_match
from .served import service_of
from .test_accounts import account


async def resign(app: FastAPI, match_id: str, token: str) -> None:
    async with AsgiSocket(app, f"/ws/matches/{match_id}", query={"token": token}) as ws:
        state = await ws.receive_until("state")
        await ws.send_json({"type": "resign", "version": state["version"], "id": "r"})
        update = await ws.receive_until("update")
        assert update["match"]["status"] == "finished", update


async def profile(client: httpx.AsyncClient, name: str) -> dict[str, object]:
    response = await client.get(f"/api/players/{name}")
    assert response.status_code == 200, response.text
    body: dict[str, object] = response.json()
    return body


async def test_a_match_between_accounts_moves_both_ratings_as_glicko2_says(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bo = await account(client, "Ann"), await account(client, "Bo")
    before = await profile(client, "ann")  # an account's name, folded as at login
    assert before["rating"] == {
        "value": 1500.0,
        "deviation": 350.0,
        "volatility": 0.06,
        "provisional": True,
    }
    assert (before["wins"], before["losses"], before["ratings"]) == (0, 0, [])
    match_id = await joined_match(client, ann, bo)
    await resign(app, match_id, bo)  # Bo resigns: Ann wins (R5.2)
    record = (await client.get(f"/api/matches/{match_id}/record")).json()
    assert record["match"]["rated"] is True
    assert record["match"]["players"]["first"] == {"name": "Ann", "account": True}
    winner, loser = await profile(client, "Ann"), await profile(client, "Bo")
    value, rd, _ = glicko2(NEWCOMER, [(NEWCOMER, 1.0)])
    rating = winner["rating"]
    assert isinstance(rating, dict)
    assert math.isclose(rating["value"], value, abs_tol=0.01)
    assert math.isclose(rating["deviation"], rd, abs_tol=0.01)
    assert rating["provisional"] is True
    loser_rating = loser["rating"]
    assert isinstance(loser_rating, dict)
    assert math.isclose(loser_rating["value"], 3000 - value, abs_tol=0.02)  # symmetric start
    assert (winner["wins"], winner["losses"], loser["wins"], loser["losses"]) == (1, 0, 0, 1)
    points = winner["ratings"]
    assert isinstance(points, list)
    assert len(points) == 1
    assert points[0]["match_id"] == match_id
    assert math.isclose(points[0]["value"], value, abs_tol=0.01)
    # The second match starts from the first one's ratings.
    again = await joined_match(client, bo, ann)
    await resign(app, again, ann)  # Ann resigns: Bo wins
    expected, _, _ = glicko2(
        Glicko(loser_rating["value"], loser_rating["deviation"], loser_rating["volatility"]),
        [(Glicko(rating["value"], rd), 1.0)],
    )
    bo_after = (await profile(client, "Bo"))["rating"]
    assert isinstance(bo_after, dict)
    assert math.isclose(bo_after["value"], expected, abs_tol=0.01)


async def test_a_guest_match_moves_no_rating_and_a_guest_has_none(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann = await account(client, "Ann")
    cy = await guest(client, "Cy")
    match_id = await joined_match(client, ann, cy)
    await resign(app, match_id, cy)
    record = (await client.get(f"/api/matches/{match_id}/record")).json()
    assert record["match"]["rated"] is False
    assert (await profile(client, "Ann"))["rating"]["provisional"] is True  # type: ignore[index]
    assert (await profile(client, "Ann"))["ratings"] == []
    cy_id = (await client.get("/api/session", headers=bearer(cy))).json()["player"]["id"]
    guest_profile = await profile(client, cy_id)  # a guest is found by its id, not its name
    assert (guest_profile["name"], guest_profile["account"]) == ("Cy", False)
    assert (guest_profile["rating"], guest_profile["losses"]) == (None, 1)
    assert guest_profile["profile_url"] == f"/@/{cy_id}"
    assert (await client.get("/api/players/Cy")).status_code == 404
    assert (await client.get("/api/players/nobody")).json()["error"]["code"] == "not_found"


async def test_history_is_paged_newest_first_and_links_each_seat(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bo = await account(client, "Ann"), await account(client, "Bo")
    ids = []
    for _ in range(3):
        match_id = await joined_match(client, ann, bo)
        await resign(app, match_id, bo)
        ids.append(match_id)
    other = await guest(client, "Cy")
    await new_match(client, other)  # not Ann's, not ended: in no page
    url = (await profile(client, "Ann"))["matches_url"]
    assert url == "/api/players/Ann/matches"
    first = (await client.get(f"{url}?limit=2")).json()
    assert [m["id"] for m in first["matches"]] == ids[::-1][:2]
    line = first["matches"][0]
    assert (line["first_profile"], line["second_profile"]) == ("/@/Ann", "/@/Bo")
    rest = (await client.get(f"{url}?limit=2&before={first['next']}")).json()
    assert ([m["id"] for m in rest["matches"]], rest["next"]) == ([ids[0]], None)
    bad = await client.get(f"{url}?before=nonsense")
    assert bad.status_code == 422


async def test_the_lobby_shows_a_challenge_creators_rating_or_guest(
    client: httpx.AsyncClient,
) -> None:
    ann, cy = await account(client, "Ann"), await guest(client, "Cy")
    await new_match(client, ann, "open")
    await new_match(client, cy, "open")
    lobby = (await client.get("/api/lobby")).json()
    by_name = {m["first"]: m for m in lobby["open_challenges"]}
    assert by_name["Ann"]["first_rating"]["value"] == 1500.0
    assert by_name["Ann"]["first_rating"]["provisional"] is True
    assert by_name["Ann"]["first_profile"] == "/@/Ann"
    assert by_name["Cy"]["first_rating"] is None
    assert (by_name["Cy"]["bank_ms"], by_name["Cy"]["delay_ms"]) == (120_000, 10_000)


async def test_each_match_in_a_history_says_how_far_it_moved_each_rating(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """The profile's list shows each rated match's change, and its chart starts from the rating
    the first match began with, so that a single match draws a line."""
    ann, bo = await account(client, "Ann"), await account(client, "Bo")
    cy = await guest(client, "Cy")
    rated = await joined_match(client, ann, bo)
    await resign(app, rated, bo)
    casual = await joined_match(client, ann, cy)
    await resign(app, casual, cy)
    ann_points = (await client.get("/api/players/Ann")).json()["ratings"]
    bo_points = (await client.get("/api/players/Bo")).json()["ratings"]
    assert len(ann_points) == len(bo_points) == 1
    point, bo_point = ann_points[0], bo_points[0]
    assert point["before"] == 1500.0
    assert point["value"] > 1500.0
    gained = point["value"] - point["before"]
    lines = (await client.get("/api/players/Ann/matches")).json()["matches"]
    by_id = {line["id"]: line for line in lines}
    assert math.isclose(by_id[rated]["first_rating_change"], gained, abs_tol=0.011)
    assert math.isclose(
        by_id[rated]["second_rating_change"], bo_point["value"] - bo_point["before"], abs_tol=0.011
    )
    assert by_id[rated]["second_rating_change"] < 0
    assert by_id[casual]["first_rating_change"] is None
    assert by_id[casual]["second_rating_change"] is None
    listed = (await client.get("/api/matches")).json()["matches"]
    assert {m["id"]: m["first_rating_change"] for m in listed}[rated] == by_id[rated][
        "first_rating_change"
    ]


async def test_an_ended_match_read_back_from_the_store_shows_the_changes(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """Once a rated match has left memory, its match object is rebuilt from the store: it still
    carries both ratings and each player's change, from the rows stored with its end."""
    ann, bo = await account(client, "Ann"), await account(client, "Bo")
    match_id = await joined_match(client, ann, bo)
    await resign(app, match_id, bo)
    live = (await client.get(f"/api/matches/{match_id}")).json()["match"]
    service = service_of(app)
    await service.let_go([match_id])  # out of memory: read from the store from now on
    assert service.at_hand(match_id) is None
    stored = (await client.get(f"/api/matches/{match_id}")).json()["match"]
    assert stored["rated"] is True
    for seat in ("first", "second"):
        assert stored["players"][seat]["rating"] == live["players"][seat]["rating"]
        assert stored["players"][seat]["rating_change"] == live["players"][seat]["rating_change"]
    assert (
        stored["players"]["first"]["rating_change"]
        > 0
        > stored["players"]["second"]["rating_change"]
    )
