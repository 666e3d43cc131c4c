"""``/api/lobby``: open challenges, live matches, finished ones (issue 3 §4)."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from spectacular_bid.service.commands import ResignMatch, Start
from spectacular_bid.service.matches import MatchService

from .guests import bearer, guest, new_match


def ids(lines: list[dict[str, object]]) -> list[object]:
    return [line["id"] for line in lines]


async def test_an_empty_lobby(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/lobby")
    assert response.status_code == 200
    assert response.json() == {
        "open_challenges": [],
        "live": [],
        "finished": [],
        "rematch_offers": [],
        "invitations": [],
    }


async def test_matches_move_through_the_lobby(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    open_id = await new_match(client, ann, "open")
    invite_id = await new_match(client, ann, "invite")
    shared_id = await new_match(client, bob, "shared")

    lobby = (await client.get("/api/lobby")).json()
    assert ids(lobby["open_challenges"]) == [open_id]  # an invitation is not listed
    assert ids(lobby["live"]) == [shared_id]
    line = lobby["open_challenges"][0]
    assert line["first"] == "Ann"
    assert line["second"] is None
    assert line["mode"] == "open"
    assert line["status"] == "waiting"

    await client.post(f"/api/matches/{open_id}/join", headers=bearer(bob))
    lobby = (await client.get("/api/lobby")).json()
    assert lobby["open_challenges"] == []
    assert set(ids(lobby["live"])) == {open_id, shared_id}

    service = app.state.service
    assert isinstance(service, MatchService)
    actor = service.get(shared_id)
    player = await service.guests.resolve(bob)
    assert player is not None
    await actor.submit(player.id, Start(), actor.version, service.now_ms())
    await actor.submit(player.id, ResignMatch(), actor.version, service.now_ms())
    lobby = (await client.get("/api/lobby")).json()
    assert ids(lobby["finished"]) == [shared_id]
    ended = lobby["finished"][0]
    assert ended["status"] == "finished"
    assert ended["ended_at_ms"] >= ended["created_at_ms"]  # "finished … ago" counts from here
    assert all(m["ended_at_ms"] is None for m in lobby["live"])
    assert invite_id not in ids(lobby["live"]) + ids(lobby["finished"])


async def test_a_lobby_line_is_made_again_only_when_its_match_changed(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    bob = await guest(client, "Bob")
    shared_id = await new_match(client, bob, "shared")
    service = app.state.service
    assert isinstance(service, MatchService)
    (before,) = service.live_matches()
    assert service.live_matches()[0] is before  # nothing changed: the same line

    actor = service.get(shared_id)
    player = await service.guests.resolve(bob)
    assert player is not None
    await actor.submit(player.id, Start(), actor.version, service.now_ms())
    await actor.submit(player.id, ResignMatch(), actor.version, service.now_ms())
    assert service.live_matches() == []
    (ended,) = service.recently_finished()
    assert ended.id == shared_id
    assert ended.status == "finished"
    assert ended.ended_at_ms is not None
