"""§2 Deal and opening (R2.1–R2.5)."""

from __future__ import annotations

import pytest

from spectacular_bid.rules.actions import (
    AuctionOpened,
    Deal,
    Draw,
    Drew,
    OpenerChosen,
    Play,
    Played,
    RoundDealt,
    TransferReason,
    Transferred,
)
from spectacular_bid.rules.errors import IllegalActionError
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import TILES, Tile
from spectacular_bid.rules.views import event_for, view_for

from .decks import (
    BLOCK_DECK,
    BLOCK_PLACEMENTS,
    NEXT_DECK,
    after_domino_round,
    dealt,
    deck,
    play,
    tiles,
)

FIRST, SECOND = Seat.FIRST, Seat.SECOND


def test_r2_1_deal_gives_seven_tiles_each_and_fourteen_in_the_boneyard() -> None:
    cards = deck(
        first="6-6 0-1 2-3 4-5 1-5 0-3 3-4",
        second="0-0 1-1 2-2 3-3 4-4 5-5 0-6",
        boneyard="5-6 1-2",
    )
    match = Match()
    events = match.apply(Deal(cards))
    assert events[0] == RoundDealt(
        1,
        BySeat(tiles("0-1 0-3 1-5 2-3 3-4 4-5 6-6"), tiles("0-0 0-6 1-1 2-2 3-3 4-4 5-5")),
        cards[14:],
        14,
    )
    rnd = match.round
    assert rnd is not None
    assert len(rnd.hand(FIRST)) == len(rnd.hand(SECOND)) == 7
    assert rnd.boneyard_count == 14
    assert rnd.boneyard_left()[:2] == tiles("5-6 1-2")
    assert sorted(rnd.hand(FIRST) + rnd.hand(SECOND) + list(rnd.boneyard_left())) == list(TILES)


def test_r2_1_every_boneyard_tile_is_drawable() -> None:
    """No sleeping tiles: the first seat of the blocked round draws all 14, one per command."""
    match = dealt(BLOCK_DECK)
    play(match, BLOCK_PLACEMENTS)
    rnd = match.round
    assert rnd is not None
    counts = []
    for _ in range(14):
        assert match.legal_actions() == [Draw(FIRST)]
        drew = match.apply(Draw(FIRST))[0]
        assert isinstance(drew, Drew)
        counts.append(drew.boneyard_count)
    assert counts == list(range(13, -1, -1))
    assert rnd.boneyard_count == 0
    assert len(rnd.hand(FIRST)) == 2 + 14


@pytest.mark.parametrize(
    "cards",
    [
        tuple(TILES[:27]),
        (*TILES[:27], TILES[0]),
        (*TILES[1:], TILES[1]),
    ],
    ids=["27-tiles", "28-with-a-repeat", "missing-0-0"],
)
def test_r2_1_a_deal_must_use_all_28_tiles_once(cards: tuple[Tile, ...]) -> None:
    match = Match()
    before = match.copy()
    with pytest.raises(IllegalActionError, match="deck"):
        match.apply(Deal(cards))
    assert match == before


def test_r2_2_each_hand_is_dealt_to_its_own_seat_only() -> None:
    """The engine keeps the hands apart per seat (a view strips the other one): the deal event
    holds one tuple per seat and the boneyard separately, and no tile is in two places."""
    cards = deck(first="6-6 0-1", second="5-5 0-2")
    match = Match()
    dealt_event = match.apply(Deal(cards))[0]
    assert isinstance(dealt_event, RoundDealt)
    assert set(dealt_event.hands.first or ()) == set(cards[:7])
    assert set(dealt_event.hands.second or ()) == set(cards[7:14])
    assert dealt_event.boneyard == cards[14:]
    rnd = match.round
    assert rnd is not None
    assert rnd.hands[FIRST] & rnd.hands[SECOND] == 0
    assert match.to_act is FIRST
    assert match.legal_actions(SECOND) == []


def test_r2_2_a_seat_sees_its_own_hand_and_never_the_other_one() -> None:
    """Through the views module, the one place hidden tiles are filtered."""
    cards = deck(first="6-6 0-1", second="5-5 0-2")
    match = Match()
    dealt_event = match.apply(Deal(cards))[0]
    assert isinstance(dealt_event, RoundDealt)
    for_second = event_for(SECOND, dealt_event)
    assert isinstance(for_second, RoundDealt)
    assert for_second.hands == BySeat(None, tuple(sorted(cards[7:14])))
    assert for_second.boneyard is None
    for_spectator = event_for(None, dealt_event)
    assert isinstance(for_spectator, RoundDealt)
    assert for_spectator.hands == BySeat(None, None)
    assert view_for(match, SECOND).hand == tuple(sorted(cards[7:14]))
    assert view_for(match, FIRST).hand == tuple(sorted(cards[:7]))
    assert view_for(match, None).hand is None
    assert view_for(match, SECOND).hand_counts == BySeat(7, 7)
    drew = Drew(FIRST, Tile.of(3, 4), 13)
    assert event_for(SECOND, drew) == Drew(FIRST, None, 13)
    assert event_for(FIRST, drew) == drew


def test_r2_3_highest_double_opens_when_doubles_are_split_between_hands() -> None:
    cards = deck(
        first="5-5 1-1 0-1 0-2 0-3 2-3 1-4",
        second="4-4 3-3 6-6 0-4 0-5 1-2 2-4",
    )
    match = Match()
    events = match.apply(Deal(cards))
    assert events[1:] == [OpenerChosen(SECOND, Tile.of(6, 6))]
    assert match.legal_actions() == [Play(SECOND, Tile.of(6, 6))]
    with pytest.raises(IllegalActionError, match=r"must be \[6\|6\]"):
        match.apply(Play(SECOND, Tile.of(4, 4)))


def test_r2_3_highest_double_opens_even_against_more_doubles_in_the_other_hand() -> None:
    cards = deck(
        first="5-5 0-1 0-2 0-3 2-3 1-4 1-3",
        second="0-0 1-1 2-2 3-3 4-4 0-4 0-5",
    )
    match = dealt(cards)
    assert match.opening_tile == Tile.of(5, 5)
    assert match.to_act is FIRST
    assert match.legal_actions() == [Play(FIRST, Tile.of(5, 5))]


@pytest.mark.parametrize(
    ("first", "second", "opener"),
    [
        ("3-5 0-1 0-2 0-3 1-2 1-3 0-4", "2-6 0-5 1-4 2-3 1-5 0-6 2-4", SECOND),
        ("2-6 0-5 1-4 2-3 1-5 0-6 2-4", "3-5 0-1 0-2 0-3 1-2 1-3 0-4", FIRST),
    ],
    ids=["2-6-with-second", "2-6-with-first"],
)
def test_r2_3_without_doubles_largest_pip_sum_opens_and_2_6_beats_3_5(
    first: str, second: str, opener: Seat
) -> None:
    """Neither hand holds a double; [2|6] and [3|5] both have 8 pips, the most in either hand;
    the larger half breaks the tie, whichever seat holds it."""
    match = Match()
    events = match.apply(Deal(deck(first=first, second=second)))
    assert events[1:] == [OpenerChosen(opener, Tile.of(2, 6))]
    assert match.legal_actions() == [Play(opener, Tile.of(2, 6))]
    events = match.apply(Play(opener, Tile.of(2, 6)))
    assert events == [Played(opener, Tile.of(2, 6), None, 8, 0)]


def test_r2_3_without_doubles_a_larger_sum_beats_a_larger_half() -> None:
    """[4|5] (9 pips) opens ahead of [0|6] and [2|6]."""
    match = dealt(deck(first="0-6 2-6 0-1 0-2 0-3 1-2 1-3", second="4-5 0-4 0-5 1-4 2-3 1-5 2-4"))
    assert match.opening_tile == Tile.of(4, 5)
    assert match.to_act is SECOND


def test_r2_4_after_a_domino_the_auction_decides_the_opening() -> None:
    match = after_domino_round()
    assert match.jockey is SECOND
    events = match.apply(Deal(NEXT_DECK))
    assert len(events) == 2
    assert isinstance(events[0], RoundDealt)
    assert events[1] == AuctionOpened(SECOND)
    assert match.phase is Phase.AUCTION
    assert match.to_act is FIRST
    # [0|0]…[0|6] are the first seat's, [1|1] and [2|2] the second's: no R2.3 opener is set.
    assert match.opening_tile is None


def test_r2_5_opening_tile_is_scored_then_the_turn_passes() -> None:
    match = dealt(deck(first="5-5 0-1", second="1-2 0-2"))
    decision = match.decision
    events = match.apply(Play(FIRST, Tile.of(5, 5)))
    assert events == [
        Played(FIRST, Tile.of(5, 5), None, 10, 10),
        Transferred(SECOND, FIRST, 10, TransferReason.AWARD, BySeat(160, 140)),
    ]
    assert match.phase is Phase.PLAYING
    assert match.to_act is SECOND
    assert match.decision == decision + 1
