"""Idempotent presses and the move log, over a real server (PROTOCOL.md "The version rule").

- Start/Continue is a press, never refused as ``stale_version``: two players pressing at the same
  moment against the same version both get ``ack`` and the round is dealt at once (D3), and a
  press already in effect gets ``ack`` and changes nothing.
- Every ``state`` message carries ``log``, every event of the match so far as its receiver may
  see it (R2.2, D4): a reload, a late spectator, a reconnect from before the resend window and
  ``GET /api/matches/{id}`` can all draw the whole move list.

The players choose at random among the legal commands the server offers, one at a time, so a
match on the fixed deck (``--fixed-deck-seed``) is the same on every run.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterable, Iterator

import pytest

from spectacular_bid.rules.notation import tile_text
from spectacular_bid.service.decks import seeded_decks

from .server import DECK_SEED, LiveServer, serve
from .sight import SightCheck, revealed_decks
from .wire import Api, Msg, Peer, choose, open_peer

IN_ROUND = ("auction", "opening", "playing")
DEAL_WITHIN_S = 2.0
"""Far below the 20 s grace (D3): a round dealt this soon was dealt by the presses."""
RESEND_LIMIT = 4
"""The narrow server's resend window, in versions."""
SEATS = ("first", "second")


@pytest.fixture(scope="module")
def narrow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server with a resend window of :data:`RESEND_LIMIT` versions (``resend_limit`` has no
    flag; its environment variable sets it) and no practical rate limit."""
    yield from serve(
        tmp_path_factory.mktemp("narrow-server"),
        "--rate-limit-per-s",
        "10000",
        "--rate-burst",
        "10000",
        env={"SPECBID_RESEND_LIMIT": str(RESEND_LIMIT)},
    )


# -- helpers --------------------------------------------------------------------------------------


async def seated(server: LiveServer, api: Api) -> tuple[str, dict[str, str], dict[str, Peer]]:
    """A joined invite match with a connected socket per seat (each past its first state)."""
    match_id, ann, bob = await api.duel()
    tokens = {"first": ann, "second": bob}
    peers = {seat: await open_peer(server, match_id, seat, tokens[seat]) for seat in SEATS}
    for peer in peers.values():
        assert (await peer.receive())["type"] == "state"
    return match_id, tokens, peers


async def play_until(
    seats: dict[str, Peer], watchers: Iterable[Peer], rng: random.Random, version: int
) -> int:
    """Lockstep play (a random legal command, then every socket has its update) until the match
    is at ``version`` or later; Start/Continue is pressed between rounds. Returns the version."""
    everyone = [*seats.values(), *watchers]
    while (view := seats["first"].view)["status"] == "active" and seats["first"].version < version:
        if view["phase"] == "awaiting_deal":
            seat = next(s for s in SEATS if not view["ready"][s])
            command: Msg = {"type": "start"}
        else:
            seat = view["to_act"]
            command = choose(seats[seat].view["legal"], rng)
        peer = seats[seat]
        made = await peer.act(command.pop("type"), **command)
        for other in everyone:
            if other is not peer:
                await other.update_at(made)
    reached = seats["first"].version
    assert reached >= version, f"the match ended at version {reached}, before {version}"
    return reached


def seen_events(peer: Peer) -> list[Msg]:
    """The move list as this socket has it: its last state's log, then every update's events."""
    events: list[Msg] = []
    for frame in peer.frames:
        if frame["type"] == "state":
            events = list(frame["log"])
        elif frame["type"] == "update":
            events.extend(frame["events"])
    return events


def versions_of(log: list[Msg]) -> list[int]:
    return [event["version"] for event in log]


def dealt_decks(rounds: int) -> dict[int, list[str]]:
    """Each round's deck in dealt order, as the fixed-deck seed gives them to every match."""
    next_deck = seeded_decks(DECK_SEED)
    return {n: [tile_text(tile) for tile in next_deck()] for n in range(1, rounds + 1)}


def check_sight(receiver: str | None, state: Msg) -> None:
    """Every tile the state's log and view name is one ``receiver`` may see (R2.2, D4): the
    log replayed from the start of the match, as if it had been one update."""
    log = state["log"]
    rounds = max((e["number"] for e in log if e["type"] == "round_dealt"), default=0)
    revealed_decks([{"events": log}], DECK_SEED)  # reveals match the deal's commitments
    as_update = {"type": "update", "events": log, "match": state["match"]}
    SightCheck(receiver, dealt_decks(rounds)).check(as_update)


async def read_reply(peer: Peer, client_id: str) -> Msg:
    return await peer.until(lambda m: m["type"] in ("ack", "error") and m["id"] == client_id)


def is_dealing(message: Msg) -> bool:
    return message["type"] == "update" and message["match"]["phase"] in IN_ROUND


async def first_dealing_update(peer: Peer, timeout: float) -> Msg:
    """The update that dealt the round: among the frames read so far (a reply read after it
    skipped it), or the next within ``timeout`` seconds."""
    seen = next((frame for frame in peer.frames if is_dealing(frame)), None)
    return seen if seen is not None else await peer.until(is_dealing, max(timeout, 0.001))


# -- presses -----------------------------------------------------------------------------------


async def test_both_players_press_start_at_once(fast_server: LiveServer) -> None:
    """D3: two Start presses made against the same version both count; the second
    deals the round at once (not at the end of the grace) and both senders get ``ack``."""
    api = Api(fast_server)
    _, _, peers = await seated(fast_server, api)
    first, second = peers["first"], peers["second"]
    version = first.version
    assert second.version == version
    assert first.view["phase"] == "awaiting_deal"
    assert first.view["ready"] == {"first": False, "second": False}

    loop = asyncio.get_running_loop()
    pressed_at = loop.time()
    await asyncio.gather(
        first.send({"type": "start", "version": version, "id": "race-first"}),
        second.send({"type": "start", "version": version, "id": "race-second"}),
    )
    replies = await asyncio.gather(
        read_reply(first, "race-first"), read_reply(second, "race-second")
    )
    assert [r["type"] for r in replies] == ["ack", "ack"], replies
    assert sorted(r["version"] for r in replies) == [version + 1, version + 2], replies
    for peer in (first, second):
        left = pressed_at + DEAL_WITHIN_S - loop.time()
        dealt = await first_dealing_update(peer, left)
        assert dealt["version"] == version + 2, dealt
    assert loop.time() - pressed_at < DEAL_WITHIN_S
    events = [e for e in seen_events(first) if e["version"] > version]
    assert [(e["version"], e["type"]) for e in events][:2] == [
        (version + 1, "ready"),
        (version + 2, "round_dealt"),
    ], events

    # The same press again (a double click, a resent frame): ack, and nothing changes.
    dealt_version = first.version
    for peer in (first, second):
        again = await peer.command("start", version=version)
        assert (again["type"], again["version"]) == ("ack", dealt_version), again
    await asyncio.gather(first.no_message(0.3), second.no_message(0.3))
    for peer in (first, second):
        assert peer.version == dealt_version
        assert not peer.errors()
        await peer.close()
    await api.close()


# -- the move log in a state ---------------------------------------------------------------------


async def test_a_reload_gets_the_whole_move_log(fast_server: LiveServer) -> None:
    """A new socket without ``since`` (a reload) gets a state whose log is every event the
    player's socket saw since the start, in order, filtered the same way: its own dealt and
    drawn tiles shown, the opponent's hidden (R2.2)."""
    api = Api(fast_server)
    match_id, tokens, peers = await seated(fast_server, api)
    reached = await play_until(peers, [], random.Random(11), 12)

    for seat in SEATS:
        reload = await open_peer(fast_server, match_id, f"reload-{seat}", tokens[seat])
        state = await reload.receive()
        assert (state["type"], state["version"]) == ("state", reached), state
        log = state["log"]
        assert log == seen_events(peers[seat])
        assert versions_of(log) == sorted(versions_of(log))
        assert set(versions_of(log)) == set(range(1, reached + 1))
        dealt = next(e for e in log if e["type"] == "round_dealt")
        other = "second" if seat == "first" else "first"
        assert dealt["hands"][seat] is not None, dealt
        assert dealt["hands"][other] is None, dealt
        for drew in (e for e in log if e["type"] == "drew"):
            assert (drew["tile"] is not None) == (drew["seat"] == seat), drew
        check_sight(seat, state)
        await reload.close()
    for peer in peers.values():
        assert not peer.errors()
        await peer.close()
    await api.close()


async def test_a_late_spectator_gets_the_whole_public_log(fast_server: LiveServer) -> None:
    """A spectator arriving after 50 versions gets every version's events, as a spectator
    connected from the start saw them, and no tile of a hand still in play (R2.2, D4)."""
    api = Api(fast_server)
    match_id, _, peers = await seated(fast_server, api)
    witness = await open_peer(fast_server, match_id, "witness")
    assert (await witness.receive())["type"] == "state"
    reached = await play_until(peers, [witness], random.Random(5), 51)

    late = await open_peer(fast_server, match_id, "late")
    state = await late.receive()
    assert (state["type"], state["version"]) == ("state", reached), state
    log = state["log"]
    assert set(versions_of(log)) == set(range(1, reached + 1))
    assert versions_of(log) == sorted(versions_of(log))
    assert log == seen_events(witness)
    # Past the end of round 1 (its hands and deck public now) and into a live round.
    assert {"round_ended", "deck_revealed"} <= {e["type"] for e in log}
    assert state["match"]["phase"] in IN_ROUND
    assert state["match"]["hand"] is None
    check_sight(None, state)
    for peer in (late, witness, *peers.values()):
        assert not peer.errors()
        await peer.close()
    await api.close()


async def test_a_reconnect_from_before_the_resend_window_gets_the_whole_log(
    narrow_server: LiveServer,
) -> None:
    """The reconnect rule: a client at most ``resend_limit`` versions behind gets an update
    with what it missed; one further behind gets a state, and that state's log is the whole
    move list, so its list needs nothing the missed updates would have brought."""
    api = Api(narrow_server)
    match_id, tokens, peers = await seated(narrow_server, api)
    reached = await play_until(peers, [], random.Random(3), 3 * RESEND_LIMIT)

    inside = await open_peer(
        narrow_server, match_id, "inside", tokens["first"], since=str(reached - RESEND_LIMIT)
    )
    missed = await inside.receive()
    assert (missed["type"], missed["version"]) == ("update", reached), missed
    assert missed["events"] == [
        e for e in seen_events(peers["first"]) if e["version"] > reached - RESEND_LIMIT
    ]
    await inside.close()

    for since in (reached - RESEND_LIMIT - 1, 1):
        back = await open_peer(narrow_server, match_id, "back", tokens["first"], since=str(since))
        state = await back.receive()
        assert (state["type"], state["version"]) == ("state", reached), state
        assert state["log"] == seen_events(peers["first"])
        check_sight("first", state)
        await back.close()
    for peer in peers.values():
        assert not peer.errors()
        await peer.close()
    await api.close()


async def test_reading_a_match_over_http_gives_the_same_state_and_log(
    fast_server: LiveServer,
) -> None:
    """``GET /api/matches/{id}`` answers with the body of a ``state`` message for the caller's
    audience: ``type``, ``version``, ``match`` and the same ``log`` as a socket's."""
    api = Api(fast_server)
    match_id, tokens, peers = await seated(fast_server, api)
    reached = await play_until(peers, [], random.Random(8), 10)

    for name, token in (("first", tokens["first"]), ("second", tokens["second"]), (None, None)):
        body = await api.read(match_id, token)
        assert set(body) == {"type", "version", "match", "log"}, sorted(body)
        assert (body["type"], body["version"]) == ("state", reached)
        assert body["match"]["audience"] == (name or "spectator")
        fresh = await open_peer(fast_server, match_id, f"fresh-{name}", token)
        state = await fresh.receive()
        assert state["type"] == "state"
        assert body["log"] == state["log"]
        if name is not None:
            assert body["log"] == seen_events(peers[name])
        check_sight(name, body)
        await fresh.close()
    for peer in peers.values():
        assert not peer.errors()
        await peer.close()
    await api.close()
