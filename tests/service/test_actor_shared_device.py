"""A shared device (hot-seat): both seats on one device, a private hand-over between them during
which the clocks stand and no hand is shown (R7.5, PROTOCOL.md "The shared device"), and one Start
press (D3)."""

from __future__ import annotations

import random

from spectacular_bid.rules.match import Phase
from spectacular_bid.rules.notation import parse_tile, tile_text
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.service.audience import Audience, audience_of
from spectacular_bid.service.commands import DrawTile, PlayTile, ResignMatch, Reveal, Start
from spectacular_bid.service.ports import MatchMode, MatchStatus
from spectacular_bid.service.refusals import ErrorCode

from .helpers import (
    ANN,
    BO,
    DRAW_DECK,
    FIRST,
    SECOND,
    FakeTime,
    Table,
    Tables,
    fake_time_settings,
    messages,
    refused,
    repeat,
)

DELAY_MS = 10_000
BANK_MS = 120_000
HANDOVER_MS = 30_000
"""Longer than a delay: if the hand-over were charged, a bank would show it."""


async def shared(tables: Tables) -> Table:
    table = await tables.open(
        fake_time_settings(fixed_deck_seed=21),
        time_source=FakeTime(),
        mode=MatchMode.SHARED,
        deck_source_for=repeat(DRAW_DECK),
    )
    assert table.state.status is MatchStatus.ACTIVE
    assert table.state.seats == (ANN, ANN)
    return table


def assert_handover_to(table: Table, seat: Seat) -> None:
    actor = table.actor
    assert actor.state.handover is seat
    assert actor.state.clock.running is None
    device = table.view(Audience.DEVICE)
    assert device["handover"] == str(seat)
    assert device["hand"] is None
    assert device["legal"] is None
    assert device["must_play"] is None
    assert device["opening_tile"] is None
    assert device["clock"]["running"] is None


async def test_d3_one_press_on_a_shared_device_deals(tables: Tables) -> None:
    table = await shared(tables)
    actor = table.actor
    await table.submit(ANN, Start())
    assert actor.state.match.round_number == 1
    assert actor.state.ready == set()
    record = (await table.store.events(actor.id))[-1]
    assert record.command["type"] == "deal"


async def test_r5_2_a_shared_device_match_is_never_rated(tables: Tables) -> None:
    """One device, one player: a resignation (R5.2) decides it, but it is unrated
    (service/rated.py: only online matches between two players are)."""
    table = await shared(tables)
    await table.submit(ANN, Start())
    await table.submit(ANN, ResignMatch(), seat=SECOND)  # allowed during the hand-over (R5.2)
    header = await table.store.match(table.actor.id)
    assert header is not None
    assert (header.status, header.winner, header.reason, header.rated) == (
        MatchStatus.FINISHED,
        "first",
        "resignation",
        False,
    )


async def test_r7_5_the_hand_over_stands_the_clocks_until_reveal(tables: Tables) -> None:
    table = await shared(tables)
    actor = table.actor
    assert audience_of(actor.state.seats, ANN.id) is Audience.DEVICE
    device = table.subscribe(ANN)
    assert device.audience is Audience.DEVICE
    await table.submit(ANN, Start())
    assert_handover_to(table, FIRST)  # even the first decision waits for its player
    dealt = messages(device)[-1]
    dealt_event = next(e for e in dealt["events"] if e["type"] == "round_dealt")
    assert dealt_event["hands"] == {"first": None, "second": None}

    before = actor.state.match.copy()
    early = await refused(table.submit(ANN, PlayTile(parse_tile("6-6"))))
    assert early.code is ErrorCode.HANDOVER_PENDING
    assert actor.state.match == before
    wrong = await refused(table.submit(ANN, Reveal(), seat=SECOND))
    assert wrong.code is ErrorCode.NOT_YOUR_SEAT
    assert actor.state.handover is FIRST

    table.advance(HANDOVER_MS)
    await table.submit(ANN, Reveal())
    assert actor.state.handover is None
    assert actor.state.clock.running is FIRST
    assert actor.state.clock.decision_started_ms == table.now()
    assert actor.state.clock.delay_ms == DELAY_MS
    shown = table.view(Audience.DEVICE)
    assert shown["hand"] == ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "6-6"]
    assert shown["opening_tile"] == "6-6"
    assert shown["legal"]["opening"] is True

    table.advance(3_000)
    await table.submit(ANN, PlayTile(parse_tile("6-6")))
    assert_handover_to(table, SECOND)
    assert actor.state.clock.bank_ms == BySeat(BANK_MS, BANK_MS)
    table.advance(HANDOVER_MS)
    await table.submit(ANN, Reveal(), seat=SECOND)
    assert actor.state.clock.running is SECOND
    assert actor.state.clock.decision_started_ms == table.now()
    assert table.view(Audience.DEVICE)["hand"] == [
        "1-1",
        "1-2",
        "1-3",
        "1-4",
        "1-5",
        "2-2",
        "2-3",
    ]
    # Draws keep the turn on this seat: no hand-over inside a turn (R4.3).
    await table.submit(ANN, DrawTile())
    assert actor.state.handover is None
    assert actor.state.clock.running is SECOND


async def test_r7_5_every_pass_of_the_move_to_the_other_seat_pauses_for_reveal(
    tables: Tables,
) -> None:
    table = await tables.open(
        fake_time_settings(fixed_deck_seed=21), time_source=FakeTime(), mode=MatchMode.SHARED
    )
    actor = table.actor
    rng = random.Random(8)
    handovers = 0
    acted: Seat | None = None
    await table.submit(ANN, Start())
    while (
        actor.state.match.round_number == 1 and actor.state.match.phase is not Phase.AWAITING_DEAL
    ):
        if actor.state.handover is not None:
            seat = actor.state.handover
            assert seat is actor.state.match.to_act
            assert_handover_to(table, seat)
            hand = actor.state.match.round.hand(seat) if actor.state.match.round else []
            early = await refused(table.submit(ANN, PlayTile(hand[0])))
            assert early.code is ErrorCode.HANDOVER_PENDING
            handovers += 1
            table.advance(HANDOVER_MS)
            await table.submit(ANN, Reveal())
            assert actor.state.clock.running is seat
            assert actor.state.clock.decision_started_ms == table.now()
            assert actor.state.clock.delay_ms == DELAY_MS
            assert table.view(Audience.DEVICE)["hand"] == [tile_text(t) for t in hand]
            acted = seat
            continue
        to_act = actor.state.match.to_act
        assert to_act is not None
        assert to_act is acted  # the revealed seat acts; nobody else's hand is on the screen
        table.advance(500)  # even fourteen draws and a play stay within one delay
        await table.do(rng.choice(actor.state.match.legal_actions()))
        after = actor.state.match.to_act
        if after is not None and after is not to_act:
            assert actor.state.handover is after
        else:
            assert actor.state.handover is None
    assert handovers > 10
    assert actor.state.match.result is None
    # Thirty seconds at every hand-over, half a second a command: only delays were used.
    assert actor.state.clock.bank_ms == BySeat(BANK_MS, BANK_MS)
    assert actor.state.seats_of(BO.id) == []
