"""Players who come back (PROTOCOL.md "Players: profiles, ratings and archives"), over a real
server: accounts and their sessions, the login throttle, Glicko-2 ratings moved by rated matches
only (checked against an independent computation, :mod:`.glicko2`), rematches, and a player's
history page by page.

The ratings, rematch and history tests run on SQLite and, when ``TEST_DATABASE_URL`` is set, on
a PostgreSQL database of their own; the throttle is in memory and gets a fresh SQLite server per
test, since every login of a test run comes from one address.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from durable.conftest import BACKENDS, create_target, drop_target, new_target
from spectacular_bid.web.http_limits import (
    LOGINS_PER_MINUTE,
    LOGINS_PER_MINUTE_PER_NAME_AND_ADDRESS,
)

from .glicko2 import NEWCOMER, Glicko, glicko2, one_match
from .players import (
    PASSWORD,
    account,
    assert_rating,
    duel,
    header,
    login,
    named,
    profile,
    resign,
    who,
)
from .server import LiveServer, serve
from .test_complete_match import MOVE_SEED, play_to_the_end
from .wire import Api, Msg, Peer, bearer, open_peer

FAST = ("--rate-limit-per-s", "10000", "--rate-burst", "10000")
"""The complete match's players answer within milliseconds."""


@pytest.fixture(scope="module", params=BACKENDS)
def rated_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp(f"rated-{request.param}")
    if request.param == "sqlite":
        yield from serve(folder, *FAST)
        return
    target = new_target(request.param, folder)
    asyncio.run(create_target(target))
    try:
        yield from serve(folder, *FAST, "--database-url", target.url)
    finally:
        asyncio.run(drop_target(target))


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A server of this test alone: its login limits are untouched."""
    yield from serve(tmp_path / "server")


# -- accounts ---------------------------------------------------------------------------------


async def test_a_new_password_ends_the_other_session_but_not_this_one(
    rated_server: LiveServer,
) -> None:
    (name,) = named("Ann")
    here, elsewhere = Api(rated_server), Api(rated_server)
    guest = await here.guest(name)
    made = await here.http.post("/api/account", json={"password": PASSWORD}, headers=bearer(guest))
    assert made.status_code == 201, made.text
    here.http.cookies.clear()
    mine = made.json()["token"]
    assert await who(here, guest) == 401  # the guest's token gave way to the session's
    assert await who(here, mine) == name

    first = await login(elsewhere, name.upper(), PASSWORD)  # names compare without case
    assert first.status_code == 200, first.text
    assert first.json()["player"] == made.json()["player"]
    out = await elsewhere.http.post("/api/logout", headers=bearer(first.json()["token"]))
    assert out.status_code == 204
    assert await who(elsewhere, first.json()["token"]) == 401
    assert await who(here, mine) == name

    other = (await login(elsewhere, name, PASSWORD)).json()["token"]
    body = {"current": "not the password", "password": "battery staple"}
    wrong = await here.http.post("/api/account/password", json=body, headers=bearer(mine))
    assert wrong.status_code == 401
    assert await who(elsewhere, other) == name
    body = {"current": PASSWORD, "password": "battery staple"}
    changed = await here.http.post("/api/account/password", json=body, headers=bearer(mine))
    assert changed.status_code == 204, changed.text
    assert await who(elsewhere, other) == 401
    assert await who(here, mine) == name
    assert (await login(elsewhere, name, PASSWORD)).status_code == 401
    assert (await login(elsewhere, name, "battery staple")).status_code == 200


async def test_wrong_passwords_are_throttled_and_tell_no_name_apart(
    fresh_server: LiveServer,
) -> None:
    api = Api(fresh_server)
    await account(api, "Ann")
    started = time.monotonic()
    wrong = await login(api, "Ann", "guess 0")
    unknown = await login(api, "Nobody", "guess 0")
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert wrong.headers.get("retry-after") is None
    codes = [(await login(api, "Ann", f"guess {i}")).status_code for i in range(1, 5)]
    assert codes == [401] * 4
    # The sixth try at the name from this address, right or not, is refused — unless a slow
    # machine let the name's bucket refill a token meanwhile (one each 60/5 s): then the next is.
    throttled = await first_refusal(
        api, ["ann"] * (1 + refilled(started, LOGINS_PER_MINUTE_PER_NAME_AND_ADDRESS))
    )
    assert 1 <= int(throttled.headers["retry-after"]) <= 60
    assert throttled.json()["error"]["code"] == "rate_limited"
    assert "that name" in throttled.json()["error"]["message"]
    # Four more names make ten tries from this address (the refused ones took none); the
    # eleventh is refused, give or take what the address's bucket refilled (one each 60/10 s).
    codes = [(await login(api, f"Other {i}", "guess")).status_code for i in range(4)]
    assert codes == [401] * 4
    names = [f"Other {5 + i}" for i in range(1 + refilled(started, LOGINS_PER_MINUTE))]
    blocked = await first_refusal(api, names)
    assert "your address" in blocked.json()["error"]["message"]
    assert 1 <= int(blocked.headers["retry-after"]) <= 60


def refilled(since: float, per_minute: int) -> int:
    """The tokens a login bucket can have taken back since ``since`` (monotonic seconds)."""
    return int((time.monotonic() - since) * per_minute / 60)


async def first_refusal(api: Api, names: list[str]) -> httpx.Response:
    """The first of logins at ``names`` refused 429; the others before it must be plain 401."""
    for name in names:
        answer = await login(api, name, PASSWORD if name == "ann" else "guess")
        if answer.status_code == 429:
            return answer
        assert answer.status_code in (200, 401), answer.text
    raise AssertionError(f"none of {len(names)} logins was refused as too many")


async def test_every_spelling_of_a_name_shares_its_login_limit(fresh_server: LiveServer) -> None:
    """The limit counts tries at an account's name, and a name logs in as its folded form (NFKC,
    case, outer whitespace): another spelling of it may not buy five more guesses."""
    api = Api(fresh_server)
    await account(api, "Ann")
    spellings = ("\uff21nn", " Ann")  # a fullwidth Ａ; a space before
    # Eight tries in all, from one address: its limit of ten is not reached. Every try at any
    # spelling counts at the one name: two logins, then three wrong guesses make its five.
    for spelling in spellings:
        logged_in = await login(api, spelling, PASSWORD)
        assert logged_in.json()["player"]["name"] == "Ann", spelling  # the same account
    for i in range(3):
        assert (await login(api, "Ann", f"guess {i}")).status_code == 401
    assert (await login(api, "Ann", "guess 3")).status_code == 429
    sixth_guesses = {s: (await login(api, s, "guess 4")).status_code for s in spellings}
    assert sixth_guesses == dict.fromkeys(spellings, 429)


# -- ratings ----------------------------------------------------------------------------------


def test_the_reference_glicko2_gives_glickmans_example() -> None:
    """The paper's worked example (its figures are rounded at each step)."""
    opponents = [(Glicko(1400, 30), 1.0), (Glicko(1550, 100), 0.0), (Glicko(1700, 300), 0.0)]
    after = glicko2(Glicko(1500, 200, 0.06), opponents)
    assert abs(after.value - 1464.06) < 0.02
    assert abs(after.deviation - 151.52) < 0.01
    assert abs(after.volatility - 0.05999) < 0.00001


async def seated(server: LiveServer, match_id: str, first: str, second: str) -> dict[str, Peer]:
    seats = {
        "first": await open_peer(server, match_id, "first", first),
        "second": await open_peer(server, match_id, "second", second),
    }
    for peer in seats.values():
        await peer.until_type("presence")
    return seats


async def test_rated_matches_move_both_ratings_as_glicko2_says(rated_server: LiveServer) -> None:
    api = Api(rated_server)
    ann_name, bo_name = named("Ann", "Bo")
    ann, bo = await account(api, ann_name), await account(api, bo_name)
    before = await profile(api, ann_name.lower())  # found as at login
    assert before["rating"] == {
        "value": 1500.0,
        "deviation": 350.0,
        "volatility": 0.06,
        "provisional": True,
    }
    assert (before["wins"], before["losses"], before["ratings"]) == (0, 0, [])

    first = await duel(api, ann, bo)
    ended = await resign(rated_server, first, bo)  # Bo resigns: Ann wins (R5.2)
    assert ended["result"] == {"winner": "first", "reason": "resignation"}
    record = await header(api, first)
    assert record["rated"] is True
    assert record["players"] == {
        "first": {"name": ann_name, "account": True},
        "second": {"name": bo_name, "account": True},
    }
    ann_1, bo_1 = one_match(NEWCOMER, NEWCOMER)
    ann_now, bo_now = await profile(api, ann_name), await profile(api, bo_name)
    assert_rating(ann_now["rating"], ann_1)
    assert_rating(bo_now["rating"], bo_1)
    assert (ann_now["wins"], ann_now["losses"], bo_now["wins"], bo_now["losses"]) == (1, 0, 0, 1)

    # The second match, Bo in the first seat, is played to its end by score with random legal
    # moves; it starts from the first match's ratings.
    second = await duel(api, bo, ann)
    seats = await seated(rated_server, second, bo, ann)
    await play_to_the_end(seats, [], random.Random(MOVE_SEED))
    result = seats["first"].view["result"]
    for peer in seats.values():
        await peer.close()
    assert result["reason"] == "zero_balance"
    assert (await header(api, second))["rated"] is True
    bo_won = result["winner"] == "first"
    if bo_won:
        bo_2, ann_2 = one_match(bo_1, ann_1)
    else:
        ann_2, bo_2 = one_match(ann_1, bo_1)
    for name, afterwards, wins in (
        (ann_name, [ann_1, ann_2], 1 if bo_won else 2),
        (bo_name, [bo_1, bo_2], 1 if bo_won else 0),
    ):
        shown = await profile(api, name)
        assert_rating(shown["rating"], afterwards[-1])
        assert (shown["wins"], shown["losses"]) == (wins, 2 - wins)
        points = shown["ratings"]
        assert [p["match_id"] for p in points] == [first, second]  # oldest first
        assert points[0]["at_ms"] <= points[1]["at_ms"]
        for point, expected in zip(points, afterwards, strict=True):
            assert abs(point["value"] - expected.value) <= 0.01, (point, expected)
            assert abs(point["deviation"] - expected.deviation) <= 0.01, (point, expected)


async def test_guest_shared_and_custom_clock_matches_are_unrated(
    rated_server: LiveServer,
) -> None:
    api = Api(rated_server)
    ann_name, bo_name, cy_name = named("Ann", "Bo", "Cy")
    ann, bo, cy = (
        await account(api, ann_name),
        await account(api, bo_name),
        await api.guest(cy_name),
    )
    rated = await duel(api, ann, bo)
    await resign(rated_server, rated, bo)  # a rated start, so that "unchanged" means something
    before = {name: await profile(api, name) for name in (ann_name, bo_name)}

    against_guest = await duel(api, ann, cy)
    await resign(rated_server, against_guest, cy)
    shared = await api.new_match(ann, "shared")
    await resign(rated_server, shared, ann, seat="second")
    custom = await duel(api, ann, bo, bank_ms=60_000, delay_ms=5_000)
    await resign(rated_server, custom, bo)

    for match_id in (against_guest, shared, custom):
        record = await header(api, match_id)
        assert (record["status"], record["rated"]) == ("finished", False), record
    after = {name: await profile(api, name) for name in (ann_name, bo_name)}
    for name in (ann_name, bo_name):
        assert after[name]["rating"] == before[name]["rating"]
        assert after[name]["ratings"] == before[name]["ratings"]
    # Unrated results still count as wins and losses, but a shared device's counts as neither.
    assert (after[ann_name]["wins"], after[ann_name]["losses"]) == (3, 0)
    assert (after[bo_name]["wins"], after[bo_name]["losses"]) == (0, 2)


async def test_a_rated_matchs_frames_show_both_ratings_and_the_change_at_its_end(
    rated_server: LiveServer,
) -> None:
    """The match object shows each player's rating beside the name (``?`` while provisional),
    marks a match that will be rated, and at a rated end carries each player's change: the one
    stored with the end (the profile's point for the match, less the rating it started from)."""
    api = Api(rated_server)
    ann_name, bo_name = named("Ann", "Bo")
    ann, bo = await account(api, ann_name), await account(api, bo_name)
    warm_up = await duel(api, ann, bo)
    await resign(rated_server, warm_up, bo)  # Ann 1662?, Bo 1338?: ratings that differ
    starting = {n: (await profile(api, n))["rating"] for n in (ann_name, bo_name)}

    match_id = await duel(api, bo, ann)  # Bo in the first seat
    seats = await seated(rated_server, match_id, bo, ann)
    watcher = await open_peer(rated_server, match_id, "watcher")
    await watcher.until_type("presence")
    for peer in (*seats.values(), watcher):
        view = peer.view
        assert view["rated"] is True
        for seat, name in (("first", bo_name), ("second", ann_name)):
            shown = view["players"][seat]
            assert shown["rating"] == {
                "value": starting[name]["value"],
                "provisional": starting[name]["provisional"],
            }, (peer.name, seat, shown)
            assert shown["rating_change"] is None
    await seats["first"].act("resign")  # Bo resigns: Ann wins
    for peer in (*seats.values(), watcher):
        if peer.view["status"] != "finished":  # the resigning seat read it before its ack
            await peer.until(lambda m: m["type"] == "update" and m["match"]["status"] == "finished")
    points = {n: (await profile(api, n))["ratings"][-1] for n in (ann_name, bo_name)}
    assert points[ann_name]["match_id"] == match_id
    for peer in (*seats.values(), watcher):
        end = peer.view
        assert end["rated"] is True
        for seat, name in (("first", bo_name), ("second", ann_name)):
            change = end["players"][seat]["rating_change"]
            assert change is not None, (peer.name, end["players"])
            assert abs(change - (points[name]["value"] - starting[name]["value"])) <= 0.02
        assert (
            end["players"]["first"]["rating_change"] < 0 < end["players"]["second"]["rating_change"]
        )
    for peer in (*seats.values(), watcher):
        await peer.close()
    # Read afterwards, from memory or from the store, the ended match still says so.
    again = (await api.read(match_id))["match"]
    assert (
        again["players"]["second"]["rating_change"]
        == peer.view["players"]["second"]["rating_change"]
    )


async def test_unrated_matches_are_not_marked_rated(rated_server: LiveServer) -> None:
    api = Api(rated_server)
    ann_name, cy_name = named("Ann", "Cy")
    ann, cy = await account(api, ann_name), await api.guest(cy_name)
    against_guest = await duel(api, ann, cy)
    custom = await duel(api, ann, await account(api, named("Di")[0]), bank_ms=60_000)
    for match_id in (against_guest, custom):
        view = (await api.read(match_id, ann))["match"]
        assert view["rated"] is False
        assert view["players"]["first"]["rating"]["provisional"] is True  # an account's
    view = (await api.read(against_guest, ann))["match"]
    assert view["players"]["second"]["rating"] is None  # a guest has none
    await resign(rated_server, against_guest, cy)
    ended = (await api.read(against_guest))["match"]
    assert ended["rated"] is False
    assert ended["players"]["first"]["rating_change"] is None


# -- rematch ----------------------------------------------------------------------------------


async def ended_with_watchers(
    server: LiveServer, api: Api, **clock: int
) -> tuple[str, str, str, list[Peer]]:
    """An ended match of two guests (Bo resigned) and a socket for Ann, Bo and a spectator."""
    ann, bo = await api.guest("Ann"), await api.guest("Bo")
    match_id = await duel(api, ann, bo, **clock)
    await resign(server, match_id, bo)
    peers = [
        await open_peer(server, match_id, "ann", ann),
        await open_peer(server, match_id, "bo", bo),
        await open_peer(server, match_id, "spectator"),
    ]
    for peer in peers:
        await peer.until_type("presence")
    return match_id, ann, bo, peers


async def told(peers: list[Peer], **expected: object) -> list[Msg]:
    """The next ``rematch`` message each socket gets, checked against ``expected``."""
    messages = [await peer.until_type("rematch") for peer in peers]
    for peer, message in zip(peers, messages, strict=True):
        got = {key: message[key] for key in expected}
        assert got == expected, (peer.name, message)
    return messages


async def test_an_accepted_rematch_swaps_the_seats_and_keeps_the_clock(
    rated_server: LiveServer,
) -> None:
    api = Api(rated_server)
    match_id, ann, bo, peers = await ended_with_watchers(
        rated_server, api, bank_ms=60_000, delay_ms=5_000
    )
    version = (await api.read(match_id))["version"]
    url = f"/api/matches/{match_id}/rematch"

    offered = await api.http.post(url, headers=bearer(ann))
    assert offered.status_code == 200, offered.text
    assert (offered.json()["offered_by"], offered.json()["match_id"]) == ("first", None)
    assert 0 < offered.json()["expires_in_ms"] <= 180_000
    await told(peers, offered_by="first", match_id=None, version=version)

    accepted = (await api.http.post(url, headers=bearer(bo))).json()
    new_id = accepted["match_id"]
    assert new_id is not None
    assert accepted["offered_by"] is None
    await told(peers, offered_by=None, match_id=new_id, version=version)
    assert (await api.http.get(url)).json() == accepted
    for peer in peers:
        await peer.close()

    fresh = (await api.read(new_id, bo))["match"]
    assert (fresh["status"], fresh["mode"], fresh["audience"]) == ("active", "invite", "first")
    assert (fresh["players"]["first"]["name"], fresh["players"]["second"]["name"]) == ("Bo", "Ann")
    assert fresh["clock"]["bank_left_ms"] == {"first": 60_000, "second": 60_000}
    line = next(m for m in (await api.http.get("/api/lobby")).json()["live"] if m["id"] == new_id)
    assert (line["bank_ms"], line["delay_ms"]) == (60_000, 5_000)
    assert (await api.read(match_id))["version"] == version  # the ended match did not move


async def test_a_rematch_offer_is_declined_or_lapses_when_the_other_leaves(
    rated_server: LiveServer,
) -> None:
    api = Api(rated_server)
    match_id, ann, bo, peers = await ended_with_watchers(rated_server, api)
    url = f"/api/matches/{match_id}/rematch"
    none = {"offered_by": None, "expires_in_ms": None, "match_id": None}

    await api.http.post(url, headers=bearer(ann))
    await told(peers, offered_by="first")
    declined = await api.http.delete(url, headers=bearer(bo))
    assert (declined.status_code, declined.json()) == (200, none)
    await told(peers, offered_by=None, match_id=None)
    assert (await api.http.get(url)).json() == none

    await api.http.post(url, headers=bearer(ann))
    await told(peers, offered_by="first")
    ann_peer, bo_peer, spectator = peers
    await bo_peer.close()  # Bo's last socket of the match
    await told([ann_peer, spectator], offered_by=None, match_id=None)
    assert (await api.http.get(url)).json() == none
    for peer in (ann_peer, spectator):
        await peer.close()


# -- history ----------------------------------------------------------------------------------


async def test_a_players_history_pages_newest_first(rated_server: LiveServer) -> None:
    api = Api(rated_server)
    ann_name, bo_name = named("Ann", "Bo")
    ann, bo = await account(api, ann_name), await account(api, bo_name)
    ids = []
    for n in range(5):
        match_id = await duel(api, ann, bo) if n % 2 == 0 else await duel(api, bo, ann)
        await resign(rated_server, match_id, bo)
        ids.append(match_id)
    url = (await profile(api, ann_name))["matches_url"]
    assert url == f"/api/players/{ann_name}/matches"

    seen: list[str] = []
    pages: list[list[str]] = []
    query: dict[str, str | int] = {"limit": 2}
    while True:
        page = (await api.http.get(url, params=query)).json()
        pages.append([line["id"] for line in page["matches"]])
        seen += pages[-1]
        for line in page["matches"]:
            assert line["status"] == "finished"
            assert line["rated"] is True
            assert {line["first"], line["second"]} == {ann_name, bo_name}
        if page["next"] is None:
            break
        query = {"limit": 2, "before": page["next"]}
    assert pages == [ids[:-3:-1], ids[-3:-5:-1], ids[:1]]
    assert seen == ids[::-1]
