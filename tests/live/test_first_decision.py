"""D7 over a real server: nobody loses a rated match they never played.

Two accounts finish a rated match; one offers a rematch, the other accepts, and the first never
comes to it (she went to look at her profile). The rematch deals at the end of the start grace
(D3) and her first decision runs; she does not lose on time: when that decision has run its
delay plus the grace, the match ends aborted for no first decision, unrated, both ratings as
they were, and the opponent, who is there, is told. The same for a rematch asked for from the
archive and accepted from the lobby. Both run at once, to share the wait.

The rated clock is the rules' own (R7.1, R7.2: a 10 s delay), so each rematch takes about 11 s:
the grace of D7 is shortened to 1 s (an environment setting, which a server without D7 ignores:
there the same test waits in vain, as the first decision would only be flagged after 130 s).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Final

import pytest

from durable.conftest import BACKENDS, create_target, drop_target, new_target
from spectacular_bid.service.record_document import parse_document
from spectacular_bid.service.replay import verify

from .players import account, duel, header, named, profile, resign
from .server import LiveServer, serve
from .wire import Api, Msg, Peer, bearer, choose, open_peer

DELAY_MS: Final = 10_000
"""The rules' delay (R7.2): a rated match is on the default clock."""
GRACE_MS: Final = 1_000
"""D7's grace on this server (20 s by default)."""
LATE_LIMIT_MS: Final = 1_000
"""A loose bound on how late a timer may fire on a loaded machine; it never fires early."""
ENDED: Final = ("finished", "aborted")


@pytest.fixture(scope="module", params=BACKENDS)
def d7_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """On SQLite and, with ``TEST_DATABASE_URL``, on a PostgreSQL database of its own."""
    folder = tmp_path_factory.mktemp(f"d7-{request.param}")
    flags = [
        *("--rate-limit-per-s", "10000", "--rate-burst", "10000"),
        *("--grace-ms", "300", "--idle-ttl-ms", "300"),
    ]
    env = {"SPECBID_FIRST_DECISION_GRACE_MS": str(GRACE_MS)}
    if request.param == "sqlite":
        yield from serve(folder, *flags, env=env)
        return
    target = new_target(request.param, folder)
    asyncio.run(create_target(target))
    try:
        yield from serve(folder, *flags, "--database-url", target.url, env=env)
    finally:
        asyncio.run(drop_target(target))


async def alone_at_the_table(peer: Peer, rng: random.Random, timeout_s: float) -> Msg:
    """``peer`` answers each of its own decisions at once with a random legal one, until the
    match has ended; returns its last view."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + timeout_s
    await peer.until_type("state")
    while peer.view["status"] not in ENDED:
        legal = peer.view["legal"]
        if legal is not None:
            command = choose(legal, rng)
            await peer.act(command.pop("type"), **command)
        await peer.until(lambda m: m["type"] == "update", max(0.001, give_up - loop.time()))
    return peer.view


def the_absent_decision(peer: Peer, absent: str) -> tuple[int, Msg]:
    """When the absent seat's first decision began (its delay counts down from then, R7.2), and
    the first view of it the present player got."""
    for frame in peer.frames:
        match: Msg | None = frame.get("match")
        if match is not None and match["status"] == "active":
            clock = match["clock"]
            if clock["running"] == absent:
                began_ms: int = clock["now_ms"] - (DELAY_MS - clock["delay_left_ms"])
                return began_ms, match
    raise AssertionError(f"{peer.name}: the absent seat's decision never began")


async def unrated_abort(server: LiveServer, api: Api, rematch: str, present: str) -> None:
    """The present player plays the rematch alone: it must end aborted for the absent seat's
    missing first decision, within its delay plus the grace, and never earlier."""
    seats = (await api.read(rematch, present))["match"]
    seat = seats["audience"]
    other = "first" if seat == "second" else "second"
    peer = await open_peer(server, rematch, seat, present)
    ended = await alone_at_the_table(peer, random.Random(7), 30.0)
    began_ms, seen = the_absent_decision(peer, other)
    deadline = began_ms + DELAY_MS + GRACE_MS
    assert seen["first_decision_deadline_ms"] == deadline
    assert seen["clock"]["deadline_ms"] == deadline - GRACE_MS + 120_000  # R7.7's, the bank's
    assert ended["status"] == "aborted"
    assert ended["result"] == {"winner": None, "reason": "no_first_decision", "undecided": other}
    assert ended["first_decision_deadline_ms"] is None
    assert deadline <= ended["clock"]["now_ms"] < deadline + LATE_LIMIT_MS
    told = [e for f in peer.frames if f["type"] == "update" for e in f["events"]][-2:]
    assert {"type": "match_ended", "winner": None, "reason": "no_first_decision"}.items() <= (
        told[0].items()
    )
    assert told[0]["undecided"] == other
    assert not peer.errors()
    await peer.close()

    record = (await api.http.get(f"/api/matches/{rematch}/record")).json()
    assert record["format_version"] == 4
    assert (record["match"]["status"], record["match"]["winner"]) == ("aborted", None)
    assert (record["match"]["reason"], record["match"]["rated"]) == ("no_first_decision", False)
    assert record["match"]["settings"]["first_decision_grace_ms"] == GRACE_MS
    last = record["versions"][-1]
    assert last["command"] == {"type": "abort", "reason": "no_first_decision", "seat": other}
    assert last["received_ms"] == deadline
    verified = verify(parse_document(record))  # replay and --verify agree with the server
    assert (verified.winner, verified.reason) == (None, "no_first_decision")
    assert (await header(api, rematch))["players"][other]["account"] is True


async def ratings(api: Api, *names: str) -> dict[str, Msg]:
    shown = {}
    for name in names:
        player = await profile(api, name)
        shown[name] = {k: player[k] for k in ("rating", "ratings", "wins", "losses")}
    return shown


async def rematch_she_left(server: LiveServer, api: Api) -> tuple[list[str], str, str]:
    """Ann beats Bo (rated); on the result page she offers a rematch, Bo accepts, and she leaves
    for her profile before the rematch deals. Returns the names, the rematch and Bo's token."""
    ann_name, bo_name = named("Ann", "Bo")
    ann, bo = await account(api, ann_name), await account(api, bo_name)
    played = await duel(api, ann, bo)
    await resign(server, played, bo)
    assert (await header(api, played))["rated"] is True
    pages = [await open_peer(server, played, n, t) for n, t in (("ann", ann), ("bo", bo))]
    for page in pages:
        await page.until_type("presence")
    url = f"/api/matches/{played}/rematch"
    assert (await api.http.post(url, headers=bearer(ann))).json()["offered_by"] == "first"
    accepted = (await api.http.post(url, headers=bearer(bo))).json()
    assert accepted["match_id"] is not None
    for page in pages:  # both are taken to the rematch; she opens her profile instead
        await page.until(lambda m: m["type"] == "rematch" and m["match_id"] is not None)
        await page.close()
    return [ann_name, bo_name], accepted["match_id"], bo


async def archive_rematch_she_left(server: LiveServer, api: Api) -> tuple[list[str], str, str]:
    """Cy beats Di (rated); the match leaves memory; from her history Cy asks for a rematch,
    Di accepts it in the lobby, and Cy does not come. Returns names, rematch, Di's token."""
    cy_name, di_name = named("Cy", "Di")
    cy, di = await account(api, cy_name), await account(api, di_name)
    played = await duel(api, cy, di)
    await resign(server, played, di)
    # Twice --idle-ttl-ms passes (the time under test): nobody has it open, it leaves memory.
    await asyncio.sleep(0.6)
    url = f"/api/matches/{played}/rematch"
    assert (await api.http.post(url, headers=bearer(cy))).json()["offered_by"] == "first"
    lobby = (await api.http.get("/api/lobby", headers=bearer(di))).json()
    assert [o["match_id"] for o in lobby["rematch_offers"]] == [played]
    accepted = (await api.http.post(url, headers=bearer(di))).json()
    assert accepted["match_id"] is not None
    return [cy_name, di_name], accepted["match_id"], di


async def test_d7_a_rematch_its_offerer_never_comes_to_ends_aborted_and_unrated(
    d7_server: LiveServer,
) -> None:
    api = Api(d7_server)
    (ann_bo, live_rematch, bo), (cy_di, archive_rematch, di) = await asyncio.gather(
        rematch_she_left(d7_server, api), archive_rematch_she_left(d7_server, api)
    )
    before = await ratings(api, *ann_bo, *cy_di)
    await asyncio.gather(
        unrated_abort(d7_server, api, live_rematch, bo),
        unrated_abort(d7_server, api, archive_rematch, di),
    )
    assert await ratings(api, *ann_bo, *cy_di) == before  # nobody's rating moved
    await api.close()
