"""R8.3: an illegal request changes nothing and the sender gets a clear error.

Each case builds a real position, keeps ``before = match.copy()``, applies one illegal command
and checks the error class, its message, and that ``match == before``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, cast

import pytest

from spectacular_bid.rules.actions import (
    Accept,
    Action,
    Bid,
    Deal,
    Decline,
    Draw,
    Flag,
    Play,
    Played,
)
from spectacular_bid.rules.board import Place, Side
from spectacular_bid.rules.errors import (
    IllegalActionError,
    NotYourTurnError,
    RulesError,
    WrongPhaseError,
)
from spectacular_bid.rules.match import Match
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.tiles import TILES, Tile

from .decks import NEXT_DECK, after_block_round, dealt, deck, in_auction, play

FIRST, SECOND = Seat.FIRST, Seat.SECOND
T = Tile.of


def opening() -> Match:
    """Round 1 dealt: the first seat must open [6|6] (R2.3)."""
    return dealt(deck(first="6-6 0-1", second="5-6 0-2"))


def playing() -> Match:
    """[6|6] opened; the second seat holds [5|6] for either line side."""
    match = opening()
    play(match, "6-6")
    return match


def must_play() -> Match:
    """The second seat (no 6) drew [1|4] then [3|6], which it must now play (R4.2)."""
    match = dealt(deck(first="6-6", second="0-1 0-2 0-3 1-2 1-3 2-3 0-4", boneyard="1-4 3-6"))
    play(match, "6-6 draw draw")
    return match


def auction_opened() -> Match:
    """The first seat (non-jockey, 115) to make the auction's first decision."""
    return in_auction()


def jockey_opens() -> Match:
    """The first seat declined: the jockey (second seat) opens with any tile of its own."""
    match = in_auction()
    match.apply(Decline(FIRST))
    return match


def auction_bid_15() -> Match:
    """The first seat bid 15; the jockey (second seat, 185) to act."""
    match = in_auction()
    match.apply(Bid(FIRST, 15))
    return match


def auction_bid_20() -> Match:
    """15 by the first seat, 20 by the jockey; the first seat to act again."""
    match = auction_bid_15()
    match.apply(Bid(SECOND, 20))
    return match


LINE_A = Place(T(6, 6), Side.LINE_A)


class Case(NamedTuple):
    position: Callable[[], Match]
    command: Action
    error: type[RulesError]
    message: str


CASES: dict[str, Case] = {
    # wrong seat
    "play-by-the-seat-not-to-act": Case(
        playing, Play(FIRST, T(0, 6), LINE_A), NotYourTurnError, "not .*turn"
    ),
    "opening-by-the-wrong-seat": Case(opening, Play(SECOND, T(5, 6)), NotYourTurnError, "turn"),
    "bid-by-the-seat-not-to-act": Case(auction_opened, Bid(SECOND, 15), NotYourTurnError, "turn"),
    "accept-by-the-bidder": Case(auction_bid_15, Accept(FIRST), NotYourTurnError, "turn"),
    "draw-by-the-seat-not-to-act": Case(playing, Draw(FIRST), NotYourTurnError, "turn"),
    "flag-of-the-seat-not-to-act": Case(playing, Flag(FIRST), NotYourTurnError, "to act"),
    # wrong phase
    "play-before-the-first-deal": Case(Match, Play(FIRST, T(0, 1)), WrongPhaseError, "phase"),
    "draw-before-the-first-deal": Case(Match, Draw(FIRST), WrongPhaseError, "phase"),
    "bid-while-playing": Case(playing, Bid(SECOND, 15), WrongPhaseError, "phase"),
    "accept-in-the-opening": Case(opening, Accept(FIRST), WrongPhaseError, "phase"),
    "decline-while-playing": Case(playing, Decline(SECOND), WrongPhaseError, "phase"),
    "draw-in-the-opening": Case(opening, Draw(FIRST), WrongPhaseError, "phase"),
    "draw-in-the-auction": Case(auction_opened, Draw(FIRST), WrongPhaseError, "phase"),
    "play-in-the-auction": Case(auction_opened, Play(FIRST, T(0, 0)), WrongPhaseError, "phase"),
    "deal-mid-round": Case(playing, Deal(NEXT_DECK), WrongPhaseError, "cannot deal"),
    "play-between-rounds": Case(after_block_round, Play(SECOND, T(1, 2)), WrongPhaseError, "phase"),
    "flag-between-rounds": Case(after_block_round, Flag(FIRST), WrongPhaseError, "R7.5"),
    # tiles and places
    "tile-not-in-hand": Case(
        playing, Play(SECOND, T(0, 6), LINE_A), IllegalActionError, r"\[0\|6\] is not in your hand"
    ),
    "opening-tile-not-in-hand": Case(
        jockey_opens,
        Play(SECOND, T(0, 0)),
        IllegalActionError,
        "not in your hand",
    ),
    "non-matching-place": Case(
        playing, Play(SECOND, T(0, 2), LINE_A), IllegalActionError, r"does not match.*R3\.1"
    ),
    "place-not-open-branch-before-lines": Case(
        playing,
        Play(SECOND, T(5, 6), Place(T(6, 6), Side.BRANCH_A)),
        IllegalActionError,
        "not an open place",
    ),
    "place-on-a-tile-not-on-the-board": Case(
        playing,
        Play(SECOND, T(5, 6), Place(T(5, 5), Side.LINE_B)),
        IllegalActionError,
        "not an open place",
    ),
    "second-opening-tile": Case(
        playing, Play(SECOND, T(5, 6)), IllegalActionError, "needs an open place"
    ),
    "opening-with-a-place": Case(
        opening, Play(FIRST, T(6, 6), LINE_A), IllegalActionError, "takes no place"
    ),
    "opening-not-the-highest-double": Case(
        opening, Play(FIRST, T(0, 1)), IllegalActionError, r"must be \[6\|6\].*R2\.3"
    ),
    "play-with-a-non-tile": Case(
        playing, Play(SECOND, cast(Tile, 5), LINE_A), IllegalActionError, "not a tile: 5"
    ),
    "play-with-a-non-place": Case(
        playing,
        Play(SECOND, T(5, 6), cast(Place, "lineA")),
        IllegalActionError,
        "needs an open place",
    ),
    # drawing
    "draw-holding-a-playable-tile": Case(
        playing, Draw(SECOND), IllegalActionError, r"playable.*R4\.1"
    ),
    "draw-again-after-a-playable-draw": Case(
        must_play, Draw(SECOND), IllegalActionError, r"\[3\|6\] must be played"
    ),
    "other-tile-after-a-playable-draw": Case(
        must_play, Play(SECOND, T(1, 4), LINE_A), IllegalActionError, "does not match"
    ),
    # the auction
    "bid-not-a-multiple-of-5": Case(
        auction_opened, Bid(FIRST, 17), IllegalActionError, r"multiple of 5"
    ),
    "bid-below-15": Case(
        auction_opened, Bid(FIRST, 10), IllegalActionError, "lowest bid now is 15"
    ),
    "raise-equal-to-the-standing-bid": Case(
        auction_bid_15, Bid(SECOND, 15), IllegalActionError, "lowest bid now is 20"
    ),
    "raise-below-the-minimum": Case(
        auction_bid_20, Bid(FIRST, 20), IllegalActionError, "lowest bid now is 25"
    ),
    "bid-unaffordable-for-the-non-jockey": Case(
        auction_opened, Bid(FIRST, 120), IllegalActionError, r"exceeds your balance 115.*R6\.5"
    ),
    "bid-unaffordable-for-the-jockey": Case(
        auction_bid_15, Bid(SECOND, 205), IllegalActionError, "cost 190 exceeds your balance 185"
    ),
    "bid-not-a-number": Case(
        auction_opened, Bid(FIRST, cast(int, "15")), IllegalActionError, "whole number"
    ),
    "accept-without-a-bid": Case(
        auction_opened, Accept(FIRST), IllegalActionError, "no bid to accept"
    ),
    "decline-by-the-jockey": Case(
        auction_bid_15, Decline(SECOND), IllegalActionError, "only the non-jockey"
    ),
    "decline-by-the-jockey-out-of-turn": Case(
        auction_opened, Decline(SECOND), NotYourTurnError, "turn"
    ),
    "decline-after-the-first-decision": Case(
        auction_bid_20, Decline(FIRST), IllegalActionError, r"first decision.*R6\.3"
    ),
    # the deal
    "deal-a-short-deck": Case(
        after_block_round, Deal(TILES[:27]), IllegalActionError, "28 tiles, not 27"
    ),
    "deal-a-repeated-tile": Case(
        after_block_round, Deal((*TILES[:27], TILES[3])), IllegalActionError, "repeats"
    ),
}


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_r8_3_an_illegal_command_raises_and_changes_nothing(case: Case) -> None:
    match = case.position()
    before = match.copy()
    legal_before = match.legal_actions()
    assert not match.is_legal(case.command)
    with pytest.raises(case.error, match=case.message) as raised:
        match.apply(case.command)
    assert str(raised.value)
    assert match == before
    assert match.legal_actions() == legal_before


def test_r8_3_a_refused_command_leaves_the_match_playable() -> None:
    """After a string of refusals the legal move still applies and scores as usual."""
    match = playing()
    for case in CASES.values():
        if case.position is playing:
            with pytest.raises(case.error):
                match.apply(case.command)
    events = match.apply(Play(SECOND, T(5, 6), LINE_A))
    assert events == [Played(SECOND, T(5, 6), LINE_A, 12 + 5, 0)]
    assert match.to_act is FIRST
