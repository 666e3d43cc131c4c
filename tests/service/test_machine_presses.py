"""Start/Continue and Reveal presses (D3, R7.5, PROTOCOL.md "Client → server"), the version gate on
moves, and refusals that change nothing (R8.3), on the match machine alone.

A press is idempotent: it is never refused as stale, and a press already in effect — the same
seat again, or one made before the deal or hand-over it asked for — is acknowledged with no new
version. A move is made against a version and refused as stale against any other.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from rules.decks import domino_deck, domino_moves
from spectacular_bid.rules.actions import RoundDealt
from spectacular_bid.rules.notation import parse_place, parse_tile
from spectacular_bid.service.commands import (
    DealSeed,
    DrawTile,
    FlagDue,
    GraceDue,
    Input,
    JoinDue,
    LoopStalled,
    NeedsDeck,
    PlaceBid,
    PlayTile,
    PressedReveal,
    PressedStart,
    ResignMatch,
    Reveal,
    SaltedDeal,
    Start,
    Submit,
    with_deck,
)
from spectacular_bid.service.events import DeckCommitted, Ready, Revealed
from spectacular_bid.service.machine import step
from spectacular_bid.service.ports import MatchStatus
from spectacular_bid.service.refusals import ErrorCode, Rejection

from .machine_table import (
    ANN,
    BO,
    CY,
    DRAW_DECK,
    FIRST,
    SECOND,
    T0,
    Table,
    snapshot,
    unchanged,
)

SIX_SIX = PlayTile(parse_tile("6-6"))


def dealt() -> Table:
    """An invite match dealt from ``DRAW_DECK`` at version 3: the first seat opens [6|6]."""
    table = Table.invite()
    table.start_round()
    assert table.state.version == table.state.dealt_version == 3
    return table


def shared_dealt() -> Table:
    """A shared-device match dealt at version 1, in the hand-over to the first seat."""
    table = Table.shared()
    table.start_round()
    assert table.state.version == table.state.handover_version == 1
    assert table.state.handover is FIRST
    return table


# -- D3: Start presses -------------------------------------------------------------------------


def test_d3_both_presses_made_against_the_same_version_first_ready_then_deal() -> None:
    table = Table.invite()
    assert table.state.version == 1
    ann = table.submit(FIRST, Start(), version=1)
    bo = table.submit(SECOND, Start(), version=1)
    ready = table.feed(ann).entry
    assert ready is not None
    assert (ready.version, ready.seat, ready.command) == (2, FIRST, PressedStart(FIRST))
    assert ready.events == (Ready(FIRST),)
    assert table.state.ready == {FIRST}
    assert table.outcome(bo) == NeedsDeck()
    deal = table.feed(bo).entry
    assert deal is not None
    assert deal.version == 3
    assert deal.seat is SECOND
    assert isinstance(deal.command, SaltedDeal)
    assert deal.command.deck == DRAW_DECK
    assert isinstance(deal.events[0], RoundDealt)
    assert any(isinstance(e, DeckCommitted) for e in deal.events)
    state = table.state
    assert state.ready == frozenset()
    assert state.dealt_version == 3
    assert state.start_deadline_ms is None
    assert state.match.to_act is FIRST


def test_d3_on_a_shared_device_one_press_deals() -> None:
    table = Table.shared()
    assert table.state.status is MatchStatus.ACTIVE
    entry = table.send(FIRST, Start(), version=0).entry
    assert entry is not None
    assert isinstance(entry.command, SaltedDeal)
    assert table.state.dealt_version == 1


def test_a_second_press_of_a_ready_seat_is_acknowledged_with_no_change() -> None:
    table = Table.invite()
    table.send(FIRST, Start(), version=1)
    state = table.state
    for version in (1, 2):
        result = table.feed(table.submit(FIRST, Start(), version=version))
        assert result.entry is None
        assert result.reply is None
        assert result.state is state


def test_a_start_made_before_the_last_deal_is_already_in_effect() -> None:
    """A press made against version 1 or 2 that arrives after the deal at 3 is an ack; once the
    match is over it is refused like anything else."""
    table = Table.invite()
    ann_early = table.submit(FIRST, Start(), version=1)
    table.start_round()
    for version in (1, 2):
        assert table.feed(table.submit(SECOND, Start(), version=version)).entry is None
    assert table.feed(ann_early).entry is None
    table.send(FIRST, ResignMatch())
    assert table.refused(ann_early).code is ErrorCode.MATCH_OVER


def test_a_start_made_before_the_deal_does_not_count_as_the_next_continue() -> None:
    table = Table.invite(domino_deck())
    stale = table.submit(FIRST, Start(), version=1)
    table.start_round()
    table.play(domino_moves())
    assert table.state.match.is_round_over
    assert table.feed(stale).entry is None
    assert table.state.ready == frozenset()
    assert table.send(FIRST, Start()).entry is not None
    assert table.state.ready == {FIRST}


def test_a_start_against_the_current_version_while_a_round_is_played_is_refused() -> None:
    table = dealt()
    rejection = table.refused(table.submit(FIRST, Start()))
    assert rejection.code is ErrorCode.WRONG_PHASE


def test_d3_a_start_while_the_match_waits_for_its_second_player_is_refused() -> None:
    table = Table.invite(joined=False)
    rejection = table.refused(table.submit(ANN, Start(), version=0))
    assert rejection.code is ErrorCode.WRONG_PHASE


def test_a_start_that_would_deal_asks_for_a_deck_and_deals_from_the_one_given() -> None:
    table = Table.invite()
    table.send(FIRST, Start())
    press = table.submit(SECOND, Start())
    assert table.outcome(press) == NeedsDeck()
    seed = DealSeed(DRAW_DECK, "a-salt")
    resent = with_deck(press, seed)
    assert isinstance(resent, Submit)
    assert resent.deal == seed
    result = table.outcome(resent)
    assert not isinstance(result, Rejection | NeedsDeck)
    assert result.entry is not None
    assert result.entry.command == SaltedDeal(DRAW_DECK, "a-salt")
    assert result.state.secret == seed


def test_a_press_that_does_not_deal_needs_no_deck() -> None:
    """The first of two presses only registers ready: no deck is drawn for it (R2.1)."""
    table = Table.invite()
    result = table.outcome(table.submit(FIRST, Start()))
    assert not isinstance(result, NeedsDeck | Rejection)
    assert result.entry is not None
    assert result.entry.command == PressedStart(FIRST)


def test_with_deck_refuses_an_input_that_never_deals() -> None:
    with pytest.raises(ValueError, match="never deals"):
        with_deck(FlagDue(), DealSeed(DRAW_DECK, "s"))


# -- R7.5: Reveal on a shared device -------------------------------------------------------------


def test_r7_5_reveal_ends_the_hand_over_of_the_seat_to_act() -> None:
    table = shared_dealt()
    entry = table.send(FIRST, Reveal()).entry
    assert entry is not None
    assert (entry.seat, entry.command, entry.events) == (
        FIRST,
        PressedReveal(FIRST),
        (Revealed(FIRST),),
    )
    assert table.state.handover is None
    assert table.state.revealed is FIRST


def test_a_reveal_made_before_the_hand_over_began_is_already_in_effect() -> None:
    """A Reveal made against version 0 (before the deal that began this hand-over) is an ack;
    so is a second Reveal once the first took effect. The next hand-over begins at version 3:
    a Reveal made at 2 is an ack there too, and one made at 3 reveals."""
    table = shared_dealt()
    assert table.feed(table.submit(FIRST, Reveal(), version=0)).entry is None
    assert table.state.handover is FIRST
    table.send(FIRST, Reveal(), version=1)
    double_click = table.submit(FIRST, Reveal(), version=1)
    assert table.feed(double_click).entry is None
    assert table.feed(table.submit(FIRST, Reveal(), version=2)).entry is None
    table.play("6-6", reveal=False)
    assert table.state.handover is SECOND
    assert table.state.handover_version == 3
    assert table.feed(table.submit(SECOND, Reveal(), version=2)).entry is None
    assert table.state.handover is SECOND
    assert table.send(SECOND, Reveal(), version=3).entry is not None
    assert table.state.revealed is SECOND


def test_r7_5_only_the_seat_in_hand_over_can_reveal() -> None:
    table = shared_dealt()
    rejection = table.refused(table.submit(ANN, Reveal(), seat=SECOND))
    assert rejection.code is ErrorCode.NOT_YOUR_SEAT


def test_r7_5_a_reveal_with_no_hand_over_is_refused() -> None:
    shared = Table.shared()
    assert shared.refused(shared.submit(FIRST, Reveal())).code is ErrorCode.WRONG_PHASE
    online = dealt()
    assert online.refused(online.submit(FIRST, Reveal())).code is ErrorCode.WRONG_PHASE


def test_r7_5_moves_wait_for_the_reveal() -> None:
    table = shared_dealt()
    rejection = table.refused(table.submit(FIRST, SIX_SIX))
    assert rejection.code is ErrorCode.HANDOVER_PENDING


# -- moves are version-gated ---------------------------------------------------------------------


def test_r8_3_a_move_made_against_another_version_is_stale() -> None:
    table = dealt()
    for version in (2, 4):
        rejection = table.refused(table.submit(FIRST, SIX_SIX, version=version))
        assert rejection.code is ErrorCode.STALE_VERSION
    assert table.send(FIRST, SIX_SIX, version=3).entry is not None


def refusals() -> list[tuple[str, Callable[[Table], Input], ErrorCode]]:
    """Inputs refused in :func:`dealt`'s position (the first seat to open [6|6] at ``T0``)."""
    zero_one = PlayTile(parse_tile("0-1"))
    return [
        ("spectator", lambda t: t.submit(CY, SIX_SIX), ErrorCode.NOT_A_PLAYER),
        ("stale", lambda t: t.submit(FIRST, SIX_SIX, version=2), ErrorCode.STALE_VERSION),
        (
            "not your turn",
            lambda t: t.submit(SECOND, PlayTile(parse_tile("1-1"))),
            ErrorCode.NOT_YOUR_TURN,
        ),
        ("wrong opening", lambda t: t.submit(FIRST, zero_one), ErrorCode.ILLEGAL),
        (
            "a place on an empty board",
            lambda t: t.submit(FIRST, PlayTile(parse_tile("6-6"), parse_place("0-1:larger"))),
            ErrorCode.ILLEGAL,
        ),
        ("draw holding a play", lambda t: t.submit(FIRST, DrawTile()), ErrorCode.WRONG_PHASE),
        ("bid in play", lambda t: t.submit(FIRST, PlaceBid(15)), ErrorCode.WRONG_PHASE),
        ("another's seat", lambda t: t.submit(ANN, SIX_SIX, seat=SECOND), ErrorCode.NOT_YOUR_SEAT),
        ("start in play", lambda t: t.submit(BO, Start()), ErrorCode.WRONG_PHASE),
        ("reveal online", lambda t: t.submit(BO, Reveal()), ErrorCode.WRONG_PHASE),
        ("flag early", lambda t: FlagDue(), ErrorCode.WRONG_PHASE),
        ("grace in play", lambda t: GraceDue(DealSeed(DRAW_DECK, "s")), ErrorCode.WRONG_PHASE),
        ("join timer when joined", lambda t: JoinDue(), ErrorCode.WRONG_PHASE),
    ]


@pytest.mark.parametrize(
    ("make", "code"),
    [pytest.param(make, code, id=name) for name, make, code in refusals()],
)
def test_r8_3_a_refused_input_changes_nothing(
    make: Callable[[Table], Input], code: ErrorCode
) -> None:
    table = dealt()
    table.advance(4_000)
    state = table.state
    before = snapshot(state)
    match_before = state.match.copy()
    result = step(state, make(table), table.now_ms)
    assert isinstance(result, Rejection)
    assert result.code is code
    assert state.match == match_before
    assert unchanged(before, state)
    assert table.send(FIRST, SIX_SIX).entry is not None, "the position still plays on"


def test_r8_3_a_refused_input_on_a_shared_device_changes_nothing() -> None:
    table = shared_dealt()
    state = table.state
    before = snapshot(state)
    for command in (
        table.submit(ANN, SIX_SIX),
        table.submit(ANN, Reveal(), seat=SECOND),
        LoopStalled(),
        FlagDue(),
        table.submit(ANN, Start()),
    ):
        assert isinstance(step(state, command, T0 + 99_000), Rejection)
        assert unchanged(before, state)
