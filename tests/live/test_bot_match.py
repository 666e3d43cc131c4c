"""A whole match against each computer level over a real server (PROTOCOL.md "POST /api/matches").

A person plays random legal commands from the ``legal`` the server sends it; the computer
answers through the service. The server runs its bots with no minimum delay and a twentieth of
their thinking time, so five matches take seconds. Every frame of the person and of a spectator
passes the hidden-tile scan (D4); the server logs no refusal of a bot command (an error) and no
exception, and every record it wrote replays when it stops (``serve``'s ``check_folder``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from .server import DECK_SEED, LiveServer, serve
from .sight import SightCheck, revealed_decks
from .wire import Api, Msg, Peer, bearer, choose, open_peer

DECISIONS = ("auction", "opening", "playing")


@pytest.fixture(scope="module")
def bot_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from serve(
        tmp_path_factory.mktemp("bot-server"),
        *("--rate-limit-per-s", "10000", "--rate-burst", "10000"),
        *("--bot-delay-ms", "0", "--bot-budget-scale", "0.05"),
    )


async def play_the_computer(person: Peer, rng: random.Random) -> int:
    """The person's commands until the match ends: Start when the round waits for it (D3), a
    random legal command on its turn, else the next frame. Returns how many it sent."""
    sent = 0
    while (view := person.view)["status"] == "active":
        if view["phase"] == "awaiting_deal" and not view["ready"]["first"]:
            reply = await person.command("start")
        elif view["phase"] in DECISIONS and view["to_act"] == "first":
            command = choose(view["legal"], rng)
            reply = await person.command(command.pop("type"), **command)
        else:
            await person.until(lambda m: m["type"] in ("update", "state"))
            continue
        assert reply["type"] == "ack", reply
        sent += 1
        await caught_up(person, reply["version"])
    return sent


async def caught_up(person: Peer, version: int) -> None:
    """Until ``person`` has the frame of ``version`` (its own command's, or a later one)."""
    if person.version < version:
        await person.until(lambda m: m.get("version", -1) >= version)


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
async def test_a_match_against_the_computer_ends_with_a_result(
    bot_server: LiveServer, level: int
) -> None:
    api = Api(bot_server)
    ann = await api.guest("Ann")
    created = await api.http.post(
        "/api/matches", json={"mode": "bot", "level": level}, headers=bearer(ann)
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    assert created.json()["mode"] == "bot"
    person = await open_peer(bot_server, match_id, "first", ann)
    spectator = await open_peer(bot_server, match_id, "spectator")
    try:
        state = await person.until_type("state")
        second = state["match"]["players"]["second"]
        assert state["match"]["bot_level"] == level
        assert second == {
            "name": f"Computer (level {level})",
            "online": True,
            "rating": None,  # the computer has none, and its matches are never rated
            "rating_change": None,
        }
        sent = await play_the_computer(person, random.Random(level))
        await spectator.until(lambda m: m.get("match", {}).get("status") == "finished")
    finally:
        await person.close()
        await spectator.close()

    end = person.view
    assert end["status"] == "finished"
    assert end["result"]["winner"] in ("first", "second")
    assert end["result"]["reason"] == "zero_balance"
    decks = revealed_decks(spectator.frames, DECK_SEED)
    for receiver, peer in (("first", person), (None, spectator)):
        assert SightCheck(receiver, decks).check_all(peer.frames) == len(peer.frames) > sent

    await shown_with_its_level(api, match_id, level)
    await api.close()


async def shown_with_its_level(api: Api, match_id: str, level: int) -> None:
    """Unrated, and the lobby, the archive and the computer's profile name
    the level."""
    lobby = (await api.http.get("/api/lobby")).json()
    line = next(m for m in lobby["finished"] if m["id"] == match_id)
    assert (line["mode"], line["bot_level"]) == ("bot", level)
    profile: Msg = (
        await api.http.get(line["second_profile"].replace("/@/", "/api/players/"))
    ).json()
    assert profile["bot_level"] == level
    assert profile["rating"] is None
    archive = (await api.http.get(profile["matches_url"])).json()["matches"]
    mine = next(m for m in archive if m["id"] == match_id)
    assert mine["bot_level"] == level
    assert mine["rated"] is False
    replay = (await api.http.get(f"/api/matches/{match_id}/replay")).json()
    assert replay["match"]["bot_level"] == level  # the replay viewer names it too


async def test_a_bot_match_needs_a_level_in_range(bot_server: LiveServer) -> None:
    api = Api(bot_server)
    ann = await api.guest("Ann")
    for body in (
        {"mode": "bot"},
        {"mode": "bot", "level": 0},
        {"mode": "bot", "level": 6},
        {"mode": "bot", "level": "3"},
        {"mode": "invite", "level": 3},
    ):
        response = await api.http.post("/api/matches", json=body, headers=bearer(ann))
        assert response.status_code == 422, (body, response.text)
        assert response.json()["error"]["code"] == "bad_message"
    lobby = (await api.http.get("/api/lobby")).json()
    assert not [m for m in lobby["live"] if m["first"] == "Ann" and m["status"] == "waiting"]
    await api.close()
