"""What each subscriber is sent (R2.2, D4) and how a reconnecting client catches up
(the missed events, or a full state when the gap is too large)."""

from __future__ import annotations

import json
import random

from spectacular_bid.rules.match import Phase
from spectacular_bid.rules.notation import parse_tile, tile_text
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.rules.tiles import Tile
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.audience import Audience
from spectacular_bid.service.fairness import verify_commitment
from spectacular_bid.service.ports import JSON
from spectacular_bid.web.subscriber import Subscriber

from .helpers import (
    ANN,
    BO,
    CY,
    SECOND,
    FakeTime,
    Tables,
    fake_time_settings,
    messages,
    split_reveals,
    tiles_named,
)


def test_the_tile_scanner_finds_tiles_and_places_anywhere_in_a_message() -> None:
    message = {
        "id": "ab-1-2-cd",
        "events": [{"type": "drew", "tile": "2-5"}, {"at": "1-4:smaller"}],
        "match": {"hand": ["0-0"], "board": {"scoring_ends": [["3-3", 6]]}, "name": "Ann"},
    }
    assert tiles_named(message) == {parse_tile(t) for t in ("2-5", "1-4", "0-0", "3-3")}


class Referee:
    """Knows every hand (the test is the referee) and checks each message against what its
    receiver may see at that moment."""

    def __init__(self, actor: MatchActor) -> None:
        self.actor = actor
        self.decks: dict[int, list[str]] = {}
        self.own_tiles_seen = dict.fromkeys(SEATS, 0)
        self.rounds_ended_seen: dict[Audience, int] = {}

    def may_see(self, audience: Audience) -> set[Tile]:
        match = self.actor.state.match
        rnd = match.round
        if rnd is None:
            return set()
        visible = set(rnd.board.tiles)
        if match.phase in (Phase.AWAITING_DEAL, Phase.OVER):  # the round is over: D4
            visible |= set(rnd.hand(Seat.FIRST)) | set(rnd.hand(Seat.SECOND))
        elif audience is Audience.FIRST:
            visible |= set(rnd.hand(Seat.FIRST))
        elif audience is Audience.SECOND:
            visible |= set(rnd.hand(Seat.SECOND))
        return visible

    def check(self, audience: Audience, message: JSON) -> None:
        match = self.actor.state.match
        rnd = match.round
        if rnd is not None:
            self.decks.setdefault(rnd.number, [tile_text(t) for t in rnd.deck])
        body, reveals = split_reveals(message)
        named = tiles_named(body)
        hidden = named - self.may_see(audience)
        assert not hidden, (
            f"{audience.value} was sent {sorted(str(t) for t in hidden)} in {json.dumps(message)}"
        )
        if audience in (Audience.FIRST, Audience.SECOND) and rnd is not None:
            seat = Seat.FIRST if audience is Audience.FIRST else Seat.SECOND
            self.own_tiles_seen[seat] += len(named & set(rnd.hand(seat)))
        for reveal in reveals:  # a whole deck, but only of a finished round (PROTOCOL.md "Events")
            assert rnd is not None
            finished = reveal["round"] < rnd.number or match.phase in (
                Phase.AWAITING_DEAL,
                Phase.OVER,
            )
            assert finished, f"round {reveal['round']}'s deck sent to {audience.value} in play"
            assert reveal["deck"] == self.decks[reveal["round"]]
            deck = [parse_tile(t) for t in reveal["deck"]]
            assert verify_commitment(reveal["commitment"], deck, reveal["salt"])
        for event in body.get("events", []):
            if event["type"] == "round_ended":
                assert rnd is not None
                self.rounds_ended_seen[audience] = self.rounds_ended_seen.get(audience, 0) + 1
                assert event["hands"] == {
                    "first": [tile_text(t) for t in rnd.hand(Seat.FIRST)],
                    "second": [tile_text(t) for t in rnd.hand(Seat.SECOND)],
                }


async def test_d4_no_message_names_a_tile_its_receiver_may_not_see(tables: Tables) -> None:
    table = await tables.open(fake_time_settings(fixed_deck_seed=11), time_source=FakeTime())
    actor = table.actor
    referee = Referee(actor)
    subscribers: list[Subscriber] = [
        table.subscribe(ANN),
        table.subscribe(BO),
        table.subscribe(None),
        table.subscribe(CY),
        table.subscribe(ANN, None, Audience.SPECTATOR),
    ]
    assert [s.audience for s in subscribers] == [
        Audience.FIRST,
        Audience.SECOND,
        Audience.SPECTATOR,
        Audience.SPECTATOR,
        Audience.SPECTATOR,
    ]
    first_version = actor.version
    updates: dict[int, list[int]] = {i: [] for i in range(len(subscribers))}

    def check_all() -> None:
        for i, sub in enumerate(subscribers):
            for message in messages(sub):
                referee.check(sub.audience, message)
                if message["type"] == "update":
                    updates[i].append(message["version"])

    check_all()
    commands = await table.play_randomly(
        random.Random(2024), until=lambda _: False, after_each=check_all
    )
    assert actor.state.match.is_over
    assert actor.state.match.result is not None
    rounds = actor.state.match.round_number
    assert rounds >= 2
    assert commands > 50
    # Every version reached every subscriber, once, in order.
    for i in range(len(subscribers)):
        assert updates[i] == list(range(first_version + 1, actor.version + 1))
    # The scan saw what it should: own tiles, and every round's end with both hands.
    assert referee.own_tiles_seen[Seat.FIRST] > 0
    assert referee.own_tiles_seen[Seat.SECOND] > 0
    assert referee.rounds_ended_seen == {
        Audience.FIRST: rounds,
        Audience.SECOND: rounds,
        Audience.SPECTATOR: 3 * rounds,
    }


def without_presence(snapshot: JSON) -> JSON:
    """A snapshot without its presence part (who is online, how many watch), which the
    ``presence`` message right after it brings up to date."""
    return {k: v for k, v in snapshot.items() if k not in ("players", "spectators")}


async def test_reconnect_gets_exactly_the_missed_events(tables: Tables) -> None:
    table = await tables.open(fake_time_settings(fixed_deck_seed=3), time_source=FakeTime())
    actor = table.actor
    await table.start_round()
    live = {
        Audience.FIRST: table.subscribe(ANN, actor.version),
        Audience.SPECTATOR: table.subscribe(None, actor.version),
    }
    for sub in live.values():
        messages(sub)
    since = actor.version
    await table.play_randomly(random.Random(9), until=lambda s: s.version == since + 6)
    missed = {
        audience: [e for m in messages(sub) if m["type"] == "update" for e in m["events"]]
        for audience, sub in live.items()
    }
    clock = actor.state.clock
    for sub in live.values():
        table.room.unsubscribe(sub)
    assert actor.state.clock == clock  # R7.6: disconnecting neither stops nor resets a clock
    assert actor.state.clock.running is not None
    watching = 0
    for audience, player in ((Audience.FIRST, ANN), (Audience.SPECTATOR, None)):
        back = messages(table.subscribe(player, since))
        watching += audience is Audience.SPECTATOR
        assert [m["type"] for m in back] == ["update", "presence"]
        update = back[0]
        assert update["version"] == since + 6
        assert update["events"] == missed[audience]
        assert {e["version"] for e in update["events"]} == set(range(since + 1, since + 7))
        assert without_presence(update["match"]) == without_presence(table.view(audience))
        assert back[1]["online"] == {"first": True, "second": False}
        assert back[1]["spectators"] == watching


async def test_reconnect_from_too_far_behind_gets_the_full_state(tables: Tables) -> None:
    table = await tables.open(
        fake_time_settings(fixed_deck_seed=3, resend_limit=3), time_source=FakeTime()
    )
    actor = table.actor
    watching = table.subscribe(BO)  # from the join on: every event the second seat was sent
    await table.start_round()
    await table.play_randomly(random.Random(9), until=lambda s: s.version >= 10)
    version = actor.version
    (joined, *updates) = [m for m in messages(watching) if m["type"] != "presence"]
    assert joined["type"] == "state"
    sent = joined["log"] + [e for m in updates for e in m["events"]]
    assert {e["version"] for e in sent} == set(range(1, version + 1))

    async def first_message(since: int) -> JSON:
        message = messages(table.subscribe(BO, since))[0]
        assert message["version"] == version
        assert without_presence(message["match"]) == without_presence(table.view(Audience.SECOND))
        return message

    kept = await first_message(version - 3)
    assert kept["type"] == "update"
    assert {e["version"] for e in kept["events"]} == {version - 2, version - 1, version}
    current = await first_message(version)
    assert current["type"] == "update"
    assert current["events"] == []
    for since in (version - 4, 0, -1, version + 1):
        resync = await first_message(since)
        assert resync["type"] == "state"
        assert "events" not in resync
        # The state's log is every event so far, as this seat was sent them (the move list).
        assert resync["log"] == sent
    assert actor.state.seats_of(BO.id) == [SECOND]


async def test_reconnect_with_a_resend_limit_of_zero_always_gets_the_full_state(
    tables: Tables,
) -> None:
    """``resend_limit=0`` is a valid setting (ServiceSettings accepts it): nothing is resent."""
    table = await tables.open(
        fake_time_settings(fixed_deck_seed=3, resend_limit=0), time_source=FakeTime(), join=False
    )
    actor = table.actor
    assert await table.service.join(actor.id, BO) is SECOND
    await table.start_round()
    assert actor.state.match.round_number == 1
    message = messages(table.subscribe(ANN, actor.version - 1))[0]
    assert message["type"] == "state"
    assert message["version"] == actor.version
    assert [e["type"] for e in message["log"]][:2] == ["seat_taken", "ready"]
    assert {e["version"] for e in message["log"]} == set(range(1, actor.version + 1))
