"""The match clock as the service runs it (§7, D2, D6): charged at the server's receive time,
started and stood by the actor, with a hand-moved time source so nothing sleeps."""

from __future__ import annotations

import random

from spectacular_bid.rules.actions import Bid, Decline, MatchEnd, MatchEnded, Play
from spectacular_bid.rules.match import Phase
from spectacular_bid.rules.notation import parse_tile
from spectacular_bid.rules.seats import BySeat
from spectacular_bid.service.audience import Audience
from spectacular_bid.service.commands import (
    AcceptBid,
    DeclineBid,
    DrawTile,
    PlaceBid,
    PlayTile,
    ResignMatch,
    Start,
)
from spectacular_bid.service.ports import MatchStatus
from spectacular_bid.service.refusals import ErrorCode

from .helpers import (
    DRAW_DECK,
    FIRST,
    SECOND,
    T0,
    FakeTime,
    Table,
    Tables,
    fake_time_settings,
    refused,
    repeat,
)

DELAY_MS = 10_000
BANK_MS = 120_000
SIX_SIX = parse_tile("6-6")
ZERO_SIX = parse_tile("0-6")


async def dealt(tables: Tables, *, accounts: bool = False, d7: bool = True) -> Table:
    """An invite match dealt from :data:`DRAW_DECK` at ``T0``: the first seat must open [6|6].
    Without ``d7``, a first decision runs to R7.7's deadline (D7 would end it sooner)."""
    table = await tables.open(
        fake_time_settings() if d7 else fake_time_settings(first_decision_grace_ms=None),
        time_source=FakeTime(),
        deck_source_for=repeat(DRAW_DECK),
        accounts=accounts,
    )
    await table.start_round()
    assert table.state.match.to_act is FIRST
    assert table.state.clock.running is FIRST
    assert table.state.clock.decision_started_ms == T0
    return table


async def test_r7_2_a_decision_within_the_delay_costs_no_bank(tables: Tables) -> None:
    table = await dealt(tables)
    table.advance(8_000)
    await table.act(FIRST, PlayTile(SIX_SIX))
    clock = table.state.clock
    assert clock.bank_ms == BySeat(BANK_MS, BANK_MS)
    assert clock.running is SECOND
    assert clock.decision_started_ms == T0 + 8_000
    assert clock.delay_ms == DELAY_MS
    record = (await table.store.events(table.actor.id))[-1]
    assert record.clock["bank_left_ms"] == {"first": BANK_MS, "second": BANK_MS}
    assert record.clock["deadline_ms"] == T0 + 8_000 + DELAY_MS + BANK_MS


async def test_r7_2_r7_7_a_decision_of_13_s_costs_3_s_charged_at_receipt(
    tables: Tables,
) -> None:
    """Received 13 s into the decision but processed at 20 s: the bank pays 3 s, not 10 s."""
    table = await dealt(tables)
    assert table.time is not None
    table.time.set(T0 + 20_000)
    await table.act(FIRST, PlayTile(SIX_SIX), received_ms=T0 + 13_000)
    clock = table.state.clock
    assert clock.bank_ms == BySeat(117_000, BANK_MS)
    assert clock.running is SECOND
    assert clock.decision_started_ms == T0 + 20_000
    assert clock.deadline_ms() == T0 + 20_000 + DELAY_MS + BANK_MS
    # Record format 2 keeps both times: the charge's (received) and the processing's.
    record = (await table.store.events(table.actor.id))[-1]
    assert (record.received_ms, record.mono_ms) == (T0 + 13_000, T0 + 20_000)


async def test_r7_3_draws_inside_a_turn_keep_the_decision_and_its_delay(tables: Tables) -> None:
    table = await dealt(tables)
    actor = table.actor
    table.advance(1_000)
    await table.act(FIRST, PlayTile(SIX_SIX))
    decision = actor.state.match.decision
    assert actor.state.clock.decision_started_ms == T0 + 1_000
    for drawn in (1, 2, 3, 4):
        table.advance(2_000)
        await table.act(SECOND, DrawTile())
        assert actor.state.match.round is not None
        assert actor.state.match.round.drawn == drawn
        assert actor.state.match.decision == decision
        assert actor.state.clock.running is SECOND
        assert actor.state.clock.decision_started_ms == T0 + 1_000
        assert actor.state.clock.delay_ms == DELAY_MS
    assert table.view(Audience.SECOND)["clock"]["delay_left_ms"] == 2_000
    # The drawn [0|6] must be played (R4.2); 13 s after the turn began, 3 s come off the bank.
    assert actor.state.match.round is not None
    assert actor.state.match.round.must_play == ZERO_SIX
    table.advance(5_000)
    play = actor.state.match.legal_actions()[0]
    assert isinstance(play, Play)
    assert play.tile == ZERO_SIX
    await table.do(play)
    assert actor.state.clock.bank_ms == BySeat(BANK_MS, 117_000)
    assert actor.state.clock.running is FIRST
    assert actor.state.clock.decision_started_ms == T0 + 14_000


async def in_auction(tables: Tables) -> Table:
    """A match played with random legal moves (each within the delay) to its first auction."""
    table = await tables.open(fake_time_settings(fixed_deck_seed=7), time_source=FakeTime())
    await table.play_randomly(
        random.Random(3), until=lambda state: state.match.phase is Phase.AUCTION
    )
    actor = table.actor
    assert actor.state.match.phase is Phase.AUCTION
    assert actor.state.match.jockey is not None
    assert actor.state.match.to_act is actor.state.match.jockey.other
    assert actor.state.clock.bank_ms == BySeat(BANK_MS, BANK_MS)
    return table


async def test_r7_4_bids_switch_the_clock_and_an_accept_starts_the_opener(
    tables: Tables,
) -> None:
    table = await in_auction(tables)
    actor = table.actor
    jockey = actor.state.match.jockey
    assert jockey is not None
    bidder = jockey.other
    assert actor.state.clock.running is bidder
    assert Bid(bidder, 15) in actor.state.match.legal_actions()

    table.advance(12_000)
    await table.act(bidder, PlaceBid(15))
    assert actor.state.clock.running is jockey
    assert actor.state.clock.decision_started_ms == table.now()
    assert actor.state.clock.delay_ms == DELAY_MS
    assert actor.state.clock.bank_ms[bidder] == BANK_MS - 2_000

    assert Bid(jockey, 20) in actor.state.match.legal_actions()
    table.advance(11_000)
    await table.act(jockey, PlaceBid(20))
    assert actor.state.clock.running is bidder
    assert actor.state.clock.decision_started_ms == table.now()
    assert actor.state.clock.bank_ms[jockey] == BANK_MS - 1_000

    table.advance(4_000)
    await table.act(bidder, AcceptBid())
    assert actor.state.match.phase is Phase.OPENING
    assert actor.state.match.to_act is jockey
    assert actor.state.clock.running is jockey
    assert actor.state.clock.decision_started_ms == table.now()
    assert actor.state.clock.delay_ms == DELAY_MS
    assert actor.state.clock.bank_ms[bidder] == BANK_MS - 2_000
    assert actor.state.clock.bank_ms[jockey] == BANK_MS - 1_000


async def test_r7_4_a_decline_starts_the_clock_of_the_jockey_who_opens(tables: Tables) -> None:
    table = await in_auction(tables)
    actor = table.actor
    jockey = actor.state.match.jockey
    assert jockey is not None
    assert Decline(jockey.other) in actor.state.match.legal_actions()
    table.advance(3_000)
    await table.act(jockey.other, DeclineBid())
    assert actor.state.match.phase is Phase.OPENING
    assert actor.state.match.to_act is jockey
    assert actor.state.clock.running is jockey
    assert actor.state.clock.decision_started_ms == table.now()
    assert actor.state.clock.delay_ms == DELAY_MS
    assert actor.state.clock.bank_ms == BySeat(BANK_MS, BANK_MS)


def standing(table: Table) -> None:
    """R7.5: no clock runs, no deadline, and the display shows no delay."""
    assert table.state.clock.running is None
    reading = table.view(Audience.SPECTATOR)["clock"]
    assert reading["running"] is None
    assert reading["deadline_ms"] is None
    assert reading["delay_left_ms"] == 0


async def test_r7_5_clocks_stand_before_start_and_between_rounds(tables: Tables) -> None:
    table = await tables.open(
        fake_time_settings(), time_source=FakeTime(), deck_source_for=repeat(DRAW_DECK)
    )
    actor = table.actor
    assert actor.state.match.phase is Phase.AWAITING_DEAL
    standing(table)
    table.advance(50_000)
    await table.act(FIRST, Start())
    assert actor.state.match.phase is Phase.AWAITING_DEAL
    standing(table)
    table.advance(50_000)
    await table.act(SECOND, Start())
    assert actor.state.clock.running is FIRST
    assert actor.state.clock.decision_started_ms == T0 + 100_000
    assert actor.state.clock.bank_ms == BySeat(BANK_MS, BANK_MS)

    await table.play_randomly(random.Random(5), until=lambda a: a.match.is_round_over)
    assert actor.state.match.phase is Phase.AWAITING_DEAL
    assert actor.state.match.round_number == 1
    standing(table)
    banks = actor.state.clock.bank_ms
    table.advance(60_000)
    assert table.view(Audience.FIRST)["clock"]["bank_left_ms"] == {
        "first": banks.first,
        "second": banks.second,
    }
    await table.act(FIRST, Start())
    standing(table)
    table.advance(60_000)
    await table.act(SECOND, Start())
    assert actor.state.match.round_number == 2
    opener = actor.state.match.to_act
    assert opener is not None
    assert actor.state.clock.running is opener
    assert actor.state.clock.decision_started_ms == table.now()
    assert actor.state.clock.delay_ms == DELAY_MS
    assert actor.state.clock.bank_ms == banks


async def test_d6_a_command_received_one_ms_before_the_deadline_is_accepted(
    tables: Tables,
) -> None:
    table = await dealt(tables, d7=False)
    actor = table.actor
    assert table.time is not None
    deadline = T0 + DELAY_MS + BANK_MS
    assert actor.state.clock.deadline_ms() == deadline
    table.time.set(deadline + 5_000)  # processed late: what counts is when it reached us
    version = await table.act(FIRST, PlayTile(SIX_SIX), received_ms=deadline - 1)
    assert version == actor.version
    assert actor.state.match.result is None
    assert actor.state.match.to_act is SECOND
    assert actor.state.clock.bank_ms == BySeat(1, BANK_MS)
    assert actor.state.clock.running is SECOND


async def test_d6_a_command_received_at_the_deadline_is_a_loss_on_time(tables: Tables) -> None:
    table = await dealt(tables, accounts=True, d7=False)
    actor = table.actor
    assert table.time is not None
    table.advance(2_000)
    await table.act(FIRST, PlayTile(SIX_SIX))
    deadline = T0 + 2_000 + DELAY_MS + BANK_MS
    assert actor.state.clock.deadline_ms() == deadline
    version = actor.version
    table.time.set(deadline)
    rejection = await refused(table.act(SECOND, DrawTile(), received_ms=deadline))
    assert rejection.code is ErrorCode.TIME_EXPIRED
    assert actor.state.match.result == MatchEnded(FIRST, MatchEnd.TIME)
    assert actor.state.status is MatchStatus.FINISHED
    assert actor.version == version + 1
    assert actor.state.match.round is not None
    assert actor.state.match.round.drawn == 0  # the late draw did not happen
    assert actor.state.clock.running is None
    assert actor.state.clock.bank_ms == BySeat(BANK_MS, 0)
    record = (await table.store.events(actor.id))[-1]
    assert record.version == version + 1
    assert record.command == {"type": "flag", "seat": "second"}
    ended = [e for e in record.events if e["type"] == "match_ended"]
    assert ended == [{"type": "match_ended", "winner": "first", "reason": "time"}]
    header = await table.store.match(actor.id)
    assert header is not None
    assert (header.status, header.winner, header.reason, header.rated) == (
        MatchStatus.FINISHED,
        "first",
        "time",
        True,  # a loss on time between two accounts: rated
    )
    late = await refused(table.act(FIRST, ResignMatch()))
    assert late.code is ErrorCode.MATCH_OVER
