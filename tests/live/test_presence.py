"""Matches that wait for people, over a real server with short settings (D3, D8).

An invitation stays open while its creator has it open, however long the friend takes, and for
the join timeout after the creator leaves; a friend who comes after it expired is offered a way
forward rather than the replay of an empty match. A shared-device match nobody has open ends,
aborted, after the abandon timeout. Time is driven through the settings: the join and abandon
timeouts are 600 ms here, so "three minutes late" is three timeouts late.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Final

import pytest

from .server import LiveServer, serve
from .wire import Api, Peer, bearer, open_peer

TIMEOUT_MS: Final = 600
"""The join timeout (D3) and the shared device's abandon timeout (D8) on this server."""
LATE_LIMIT_S: Final = 1.0
"""A loose bound on how late a timer may fire on a loaded machine; it never fires early."""


@pytest.fixture(scope="module")
def waiting_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from serve(
        tmp_path_factory.mktemp("waiting-server"),
        *("--grace-ms", "400", "--join-timeout-ms", str(TIMEOUT_MS)),
        env={"SPECBID_SHARED_ABANDON_MS": str(TIMEOUT_MS), "SPECBID_PRESENCE_DELAY_MS": "0"},
    )


async def waiting(server: LiveServer, match_id: str, name: str, token: str | None) -> Peer:
    peer = await open_peer(server, match_id, name, token)
    await peer.until_type("presence")
    return peer


async def test_d3_a_friend_three_timeouts_late_plays_while_the_creator_waits(
    waiting_server: LiveServer,
) -> None:
    api = Api(waiting_server)
    ann, bo = await api.guest("Ann"), await api.guest("Bo")
    match_id = await api.new_match(ann, "invite")
    first = await waiting(waiting_server, match_id, "first", ann)
    assert first.view["status"] == "waiting"
    await first.no_message(3 * TIMEOUT_MS / 1000)  # nothing ends it while she is there
    assert (await api.read(match_id))["match"]["status"] == "waiting"

    joined = await api.join(match_id, bo)
    assert (joined.status_code, joined.json()) == (200, {"seat": "second"})
    second = await waiting(waiting_server, match_id, "second", bo)
    taken = await first.update_at(1)
    assert taken["events"][0] == {
        "version": 1,
        "type": "seat_taken",
        "seat": "second",
        "name": "Bo",
    }
    await first.act("start")
    await second.update_at(2)
    dealt = await second.act("start")
    await first.update_at(dealt)
    view = first.view
    assert (view["status"], view["round_number"]) == ("active", 1)
    seats = {"first": first, "second": second}
    to_act = seats[view["to_act"]]
    legal = to_act.view["legal"]
    play = legal["plays"][0]
    played = await to_act.act("play", tile=play["tile"], at=(play["places"] or [None])[0])
    assert played == dealt + 1
    for peer in (first, second):
        assert not peer.errors()
        await peer.close()
    await api.close()


async def test_d3_an_invitation_ends_a_join_timeout_after_its_creator_left(
    waiting_server: LiveServer,
) -> None:
    api = Api(waiting_server)
    ann = await api.guest("Ann")
    match_id = await api.new_match(ann, "open")
    first = await waiting(waiting_server, match_id, "first", ann)
    spectator = await waiting(waiting_server, match_id, "spectator", None)
    await spectator.no_message(2 * TIMEOUT_MS / 1000)
    loop = asyncio.get_running_loop()
    left_at = loop.time()
    await first.close()  # she closes the waiting page
    end = await spectator.update_at(1, timeout=TIMEOUT_MS / 1000 + 5)
    waited = loop.time() - left_at
    assert TIMEOUT_MS / 1000 <= waited < TIMEOUT_MS / 1000 + LATE_LIMIT_S
    assert end["events"] == [
        {"version": 1, "type": "match_ended", "winner": None, "reason": "join_timeout"}
    ]
    assert end["match"]["status"] == "aborted"
    await spectator.close()
    await api.close()


async def test_d3_a_friend_after_the_expiry_is_offered_a_way_forward(
    waiting_server: LiveServer,
) -> None:
    """The friend sees who invited them and, in one request, invites that person back (the
    new invitation is listed in the creator's lobby) or posts an open challenge, both on the
    expired invitation's time control."""
    api = Api(waiting_server)
    ann, bo = await api.guest("Ann"), await api.guest("Bo")
    expired = await api.new_match(ann, "invite", bank_ms=60_000, delay_ms=5_000)
    watcher = await waiting(waiting_server, expired, "spectator", None)
    await watcher.update_at(1, timeout=TIMEOUT_MS / 1000 + 5)  # nobody opened it: it expired
    await watcher.close()
    late = await api.join(expired, bo)
    assert (late.status_code, late.json()["error"]["code"]) == (409, "seat_taken")
    seen = (await api.read(expired, bo))["match"]
    assert (seen["status"], seen["result"]["reason"]) == ("aborted", "join_timeout")
    assert (seen["players"]["first"]["name"], seen["players"]["second"]) == ("Ann", None)

    back = await api.http.post(
        f"/api/matches/{expired}/again", json={"mode": "invite"}, headers=bearer(bo)
    )
    assert back.status_code == 201, back.text
    made = back.json()
    assert (made["mode"], made["seat"]) == ("invite", "first")
    assert made["invite_url"] == f"/m/{made['id']}"
    fresh = (await api.read(made["id"], bo))["match"]
    assert (fresh["status"], fresh["players"]["first"]["name"]) == ("waiting", "Bo")
    assert fresh["clock"]["bank_left_ms"] == {"first": 60_000, "second": 60_000}
    lobby = (await api.http.get("/api/lobby", headers=bearer(ann))).json()
    assert lobby["invitations"] == [
        {
            "match_id": made["id"],
            "by": "Bo",
            "by_profile": lobby["invitations"][0]["by_profile"],
            "by_rating": None,
            "bank_ms": 60_000,
            "delay_ms": 5_000,
        }
    ]
    assert (await api.http.get("/api/lobby", headers=bearer(bo))).json()["invitations"] == []
    joined = await api.join(made["id"], ann)
    assert joined.json() == {"seat": "second"}, joined.text
    lobby = (await api.http.get("/api/lobby", headers=bearer(ann))).json()
    assert lobby["invitations"] == []  # taken: no longer offered

    challenge = await api.http.post(
        f"/api/matches/{expired}/again", json={"mode": "open"}, headers=bearer(bo)
    )
    assert challenge.status_code == 201, challenge.text
    listed = (await api.http.get("/api/lobby")).json()["open_challenges"]
    line = next(m for m in listed if m["id"] == challenge.json()["id"])
    assert (line["first"], line["bank_ms"], line["delay_ms"]) == ("Bo", 60_000, 5_000)

    # Only an expired invitation of somebody else offers this.
    own = await api.http.post(
        f"/api/matches/{expired}/again", json={"mode": "invite"}, headers=bearer(ann)
    )
    assert (own.status_code, own.json()["error"]["code"]) == (409, "wrong_phase")
    played = await api.http.post(
        f"/api/matches/{made['id']}/again", json={"mode": "open"}, headers=bearer(bo)
    )
    assert (played.status_code, played.json()["error"]["code"]) == (409, "wrong_phase")
    unknown = await api.http.post(
        "/api/matches/nosuchmatch/again", json={"mode": "open"}, headers=bearer(bo)
    )
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "not_found")
    bad = await api.http.post(
        f"/api/matches/{expired}/again", json={"mode": "shared"}, headers=bearer(bo)
    )
    assert (bad.status_code, bad.json()["error"]["code"]) == (422, "bad_message")
    anonymous = await api.http.post(f"/api/matches/{expired}/again", json={"mode": "open"})
    assert anonymous.status_code == 401
    await api.close()


async def test_d8_a_shared_device_match_nobody_has_open_ends_aborted(
    waiting_server: LiveServer,
) -> None:
    api = Api(waiting_server)
    ann = await api.guest("Ann")
    match_id = await api.new_match(ann, "shared")
    device = await waiting(waiting_server, match_id, "device", ann)
    await device.act("start")  # dealt; the hand-over waits for Reveal (R7.5), clocks standing
    spectator = await waiting(waiting_server, match_id, "spectator", None)
    await device.until(lambda m: m["type"] == "presence" and m["spectators"] == 1)
    version = device.version
    await device.no_message(3 * TIMEOUT_MS / 1000)  # she is there: it waits
    assert (await api.read(match_id))["match"]["status"] == "active"
    loop = asyncio.get_running_loop()
    left_at = loop.time()
    await device.close()  # the tab is closed; a spectator alone does not hold it
    end = await spectator.update_at(version + 1, timeout=TIMEOUT_MS / 1000 + 5)
    waited = loop.time() - left_at
    assert TIMEOUT_MS / 1000 <= waited < TIMEOUT_MS / 1000 + LATE_LIMIT_S
    assert end["match"]["status"] == "aborted"
    assert end["match"]["result"] == {"winner": None, "reason": "abandoned"}
    ended = [e for e in end["events"] if e["type"] == "match_ended"]
    assert ended == [
        {"version": version + 1, "type": "match_ended", "winner": None, "reason": "abandoned"}
    ]
    record = (await api.http.get(f"/api/matches/{match_id}/record")).json()
    assert (record["match"]["reason"], record["match"]["rated"]) == ("abandoned", False)
    assert record["versions"][-1]["command"] == {"type": "abort", "reason": "abandoned"}
    lobby = (await api.http.get("/api/lobby")).json()
    assert match_id not in [m["id"] for m in lobby["live"]]
    await spectator.close()
    await api.close()
