"""§4 Drawing, passing, the last tile, blocking (R4.1–R4.7) and D1, D2, D4."""

from __future__ import annotations

import pytest

from spectacular_bid.rules.actions import (
    AuctionOpened,
    Deal,
    Decline,
    Draw,
    Drew,
    Event,
    OpenerChosen,
    Passed,
    Play,
    Played,
    Resign,
    RoundDealt,
    RoundEnd,
    RoundEnded,
    TransferReason,
    Transferred,
)
from spectacular_bid.rules.board import Place, Side
from spectacular_bid.rules.errors import IllegalActionError
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.round import round_to_five
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import Tile
from spectacular_bid.rules.views import view_for

from .decks import (
    BLOCK_DECK,
    BLOCK_DRAWS,
    BLOCK_PLACEMENTS,
    NEXT_DECK,
    action,
    after_block_round,
    after_domino_round,
    dealt,
    deck,
    domino_deck,
    domino_moves,
    play,
    tiles,
)

FIRST, SECOND = Seat.FIRST, Seat.SECOND

SIX_SIX_A = Place(Tile.of(6, 6), Side.LINE_A)
SIX_SIX_B = Place(Tile.of(6, 6), Side.LINE_B)

DRAW_DECK = deck(
    first="6-6",
    second="0-1 0-2 0-3 1-2 1-3 2-3 0-4",
    boneyard="1-4 2-4 3-6",
)
"""The first seat opens [6|6]; the second holds no 6, and the boneyard starts [1|4], [2|4] (no
6), then [3|6]. The first seat is filled with [0|0] [0|5] [0|6] [1|1] [1|5] [1|6]."""


def second_seat_to_draw() -> Match:
    match = dealt(DRAW_DECK)
    match.apply(Play(FIRST, Tile.of(6, 6)))
    return match


def test_r4_1_d1_draws_one_tile_per_command_until_a_playable_one() -> None:
    match = second_seat_to_draw()
    rnd = match.round
    assert rnd is not None
    # D1: the engine never draws by itself; drawing is the only thing the seat may do.
    assert len(rnd.hand(SECOND)) == 7
    assert rnd.boneyard_count == 14
    assert match.legal_actions() == [Draw(SECOND)]
    assert match.apply(Draw(SECOND)) == [Drew(SECOND, Tile.of(1, 4), 13)]
    assert match.legal_actions() == [Draw(SECOND)]
    assert match.apply(Draw(SECOND)) == [Drew(SECOND, Tile.of(2, 4), 12)]
    assert match.apply(Draw(SECOND)) == [Drew(SECOND, Tile.of(3, 6), 11)]
    assert len(rnd.hand(SECOND)) == 10
    assert rnd.must_play == Tile.of(3, 6)


def test_r4_1_drawing_while_holding_a_playable_tile_is_illegal() -> None:
    match = second_seat_to_draw()
    play(match, "draw draw draw 3-6@6-6:lineB")
    assert match.to_act is FIRST  # holds [0|6], [1|6] for line A
    before = match.copy()
    with pytest.raises(IllegalActionError, match=r"playable tile.*R4\.1"):
        match.apply(Draw(FIRST))
    assert match == before
    assert Draw(FIRST) not in match.legal_actions()


def test_r4_2_a_drawn_playable_tile_must_be_placed_at_once_and_no_other() -> None:
    match = second_seat_to_draw()
    play(match, "draw draw draw")
    # only the drawn tile, at either open place of the seat's choice; no further draw
    assert match.legal_actions() == [
        Play(SECOND, Tile.of(3, 6), SIX_SIX_A),
        Play(SECOND, Tile.of(3, 6), SIX_SIX_B),
    ]
    before = match.copy()
    with pytest.raises(IllegalActionError, match=r"\[3\|6\] must be played"):
        match.apply(Draw(SECOND))
    assert match == before
    with pytest.raises(IllegalActionError):
        match.apply(Play(SECOND, Tile.of(1, 4), SIX_SIX_A))
    assert match == before
    events = match.apply(Play(SECOND, Tile.of(3, 6), SIX_SIX_B))
    assert events == [
        Played(SECOND, Tile.of(3, 6), SIX_SIX_B, 15, 15),
        Transferred(FIRST, SECOND, 15, TransferReason.AWARD, BySeat(135, 165)),
    ]
    rnd = match.round
    assert rnd is not None
    assert rnd.must_play is None
    assert match.to_act is FIRST


def test_r4_3_draws_and_the_placement_that_follows_are_one_decision() -> None:
    match = second_seat_to_draw()
    decision = match.decision
    for _ in range(3):
        match.apply(Draw(SECOND))
        assert match.decision == decision
        assert match.to_act is SECOND
    match.apply(Play(SECOND, Tile.of(3, 6), SIX_SIX_A))
    assert match.decision == decision + 1
    assert match.to_act is FIRST


def test_r4_4_no_pass_while_the_boneyard_holds_tiles() -> None:
    """Until the boneyard is empty an unplayable seat draws; no command passes and no pass is
    applied for it (the 13 first draws of the blocked round)."""
    match = dealt(BLOCK_DECK)
    play(match, BLOCK_PLACEMENTS)
    for _ in range(13):
        assert match.legal_actions() == [Draw(FIRST)]
        events = match.apply(Draw(FIRST))
        assert [type(e) for e in events] == [Drew]
    assert match.to_act is FIRST


def test_r4_4_r4_6_d2_real_block_with_forced_passes() -> None:
    """The hand-built blocked round (see decks.BLOCK_*): the last draw empties the boneyard, the
    first seat passes, the second seat's turn begins with nothing to place or draw so it passes
    at once (D2), and the round is blocked. 7 against 119: the holder of 7 receives 119 rounded
    to 120 (remainder 4 up), not 119 − 7."""
    match = dealt(BLOCK_DECK)
    events = play(match, BLOCK_PLACEMENTS)
    assert [e.ends_sum for e in events if isinstance(e, Played)] == [0, 1, 4, 0, 2, 5, 0, 3, 6, 0]
    assert match.balances == [145, 155]
    play(match, " ".join(["draw"] * 13))
    decision = match.decision

    events = match.apply(Draw(FIRST))

    assert events == [
        Drew(FIRST, Tile.of(6, 6), 0),
        Passed(FIRST),
        Passed(SECOND),
        RoundEnded(
            1,
            RoundEnd.BLOCK,
            BySeat(
                tiles("1-1 1-5 1-6 2-2 2-3 2-4 2-6 3-3 3-4 3-5 4-4 4-5 4-6 5-5 5-6 6-6"),
                tiles("1-2 1-3"),
            ),
            BySeat(119, 7),
            None,
        ),
        Transferred(FIRST, SECOND, 120, TransferReason.BLOCK, BySeat(25, 275)),
    ]
    assert match.phase is Phase.AWAITING_DEAL
    assert match.to_act is None
    assert match.jockey is None
    assert match.decision == decision + 1  # the second seat's turn began (and passed at once)


def test_r4_5_domino_ends_the_round_after_its_award_and_makes_the_jockey() -> None:
    """The second seat lays its last tile, [3|5], for 12 + 3 = 15; the first seat's [5|5]
    (10 pips) awards nothing to anyone."""
    match = dealt(domino_deck())
    moves = domino_moves().split()
    play(match, " ".join(moves[:-1]))
    assert match.balances == [130, 170]
    assert match.to_act is SECOND

    events = match.apply(action(match, moves[-1]))

    assert events == [
        Played(SECOND, Tile.of(3, 5), Place(Tile.of(0, 5), Side.LARGER), 15, 15),
        Transferred(FIRST, SECOND, 15, TransferReason.AWARD, BySeat(115, 185)),
        RoundEnded(1, RoundEnd.DOMINO, BySeat(tiles("5-5"), ()), BySeat(10, 0), SECOND),
    ]
    assert match.balances == [115, 185]
    assert match.jockey is SECOND
    assert match.phase is Phase.AWAITING_DEAL
    # the jockey's advantage: the next deal opens the auction with the non-jockey to act
    events = match.apply(Deal(NEXT_DECK))
    assert events[1:] == [AuctionOpened(SECOND)]
    assert match.to_act is FIRST


@pytest.mark.parametrize(
    ("total", "rounded"),
    [(0, 0), (4, 5), (6, 5), (16, 15), (17, 15), (18, 20), (19, 20), (20, 20), (119, 120)],
)
def test_r4_6_totals_round_to_the_nearest_five(total: int, rounded: int) -> None:
    """Remainders 1–2 down, 3–4 up."""
    assert round_to_five(total) == rounded


def replay_until_last(cards: tuple[Tile, ...], moves: str) -> tuple[Match, str]:
    match = dealt(cards)
    *head, last = moves.split()
    play(match, " ".join(head))
    return match, last


BLOCK_4_18_DECK = deck(
    first="0-6 3-5 0-2 2-4 2-6 2-5 4-4",
    second="5-5 3-3 5-6 1-1 0-5 6-6 1-4",
    boneyard="2-3 0-3 0-0 3-6 3-4 2-2 4-6 4-5 0-4 1-6 1-2 1-5 0-1 1-3",
)
BLOCK_4_18_MOVES = (
    "6-6 0-6@6-6:lineA 5-6@6-6:lineB 2-5@5-6:smaller 0-5@0-6:smaller 2-6@6-6:branchA "
    "5-5@0-5:larger 0-2@2-6:smaller draw 2-3@2-5:smaller 3-5@2-3:larger draw 0-3@0-2:smaller "
    "draw draw 3-6@0-3:larger draw draw draw 4-6@6-6:branchB 4-4@4-6:smaller 1-4@4-4:lineB "
    "draw 4-5@5-5:lineB 1-1@1-4:smaller 2-4@4-5:smaller 2-2@2-4:smaller draw draw "
    "1-6@1-1:lineB draw 1-2@2-2:lineB draw 1-5@1-2:smaller draw draw"
)
"""A recorded random round, traced by hand: awards 5 (second), 15 (first: 10 + 5 + 0),
25 (second: 10 + 5 + 6 + 4), 15 (first: 2 + 5 + 6 + 2), so 150–150 before the block. The open
ends finally show 5, 5, 6, 6 and no tile with a 5 or a 6 is left in a hand or the boneyard."""


def test_r4_6_block_totals_4_and_18_the_holder_of_4_receives_20() -> None:
    match, last = replay_until_last(BLOCK_4_18_DECK, BLOCK_4_18_MOVES)
    assert match.balances == [150, 150]
    events = match.apply(action(match, last))
    assert events == [
        Drew(SECOND, Tile.of(1, 3), 0),
        Passed(SECOND),
        Passed(FIRST),
        RoundEnded(
            1,
            RoundEnd.BLOCK,
            BySeat(tiles("0-0 0-4"), tiles("0-1 1-3 3-3 3-4")),
            BySeat(4, 18),
            None,
        ),
        Transferred(SECOND, FIRST, 20, TransferReason.BLOCK, BySeat(170, 130)),
    ]


BLOCK_17_DECK = deck(
    first="1-4 1-6 1-1 5-5 1-3 1-5 0-4",
    second="0-2 2-4 2-6 4-5 5-6 0-1 2-2",
    boneyard="3-4 3-5 4-4 3-6 2-3 1-2 4-6 0-6 3-3 6-6 0-3 0-0 0-5 2-5",
)
BLOCK_17_MOVES = (
    "5-5 4-5@5-5:lineA 1-4@4-5:smaller 0-1@1-4:smaller 1-5@5-5:lineB 5-6@5-5:branchA "
    "1-3@1-5:smaller 2-6@5-6:larger 0-4@0-1:smaller 2-4@2-6:smaller draw 3-4@1-3:larger draw "
    "3-5@5-5:branchB draw 4-4@3-4:larger draw 3-6@3-5:smaller 1-6@3-6:larger draw draw "
    "1-2@1-6:smaller draw 4-6@4-4:lineB 0-2@1-2:larger draw 0-6@0-2:smaller draw draw "
    "6-6@0-6:larger draw draw draw draw"
)
"""A recorded random round ending with totals 17 (first seat) and 15 (second seat)."""


def test_r4_6_block_total_17_rounds_down_to_15() -> None:
    match, last = replay_until_last(BLOCK_17_DECK, BLOCK_17_MOVES)
    before = list(match.balances)
    events = match.apply(action(match, last))
    assert events[-4:] == [
        Passed(FIRST),
        Passed(SECOND),
        RoundEnded(
            1,
            RoundEnd.BLOCK,
            BySeat(tiles("0-0 0-3 0-5 1-1 2-5"), tiles("2-2 2-3 3-3")),
            BySeat(17, 15),
            None,
        ),
        Transferred(
            FIRST, SECOND, 15, TransferReason.BLOCK, BySeat(before[0] - 15, before[1] + 15)
        ),
    ]


BLOCK_6_6_DECK = deck(
    first="0-3 0-5 3-6 4-6 1-2 1-3 3-4",
    second="0-6 1-6 6-6 2-2 5-5 0-4 3-3",
    boneyard="4-4 1-1 1-4 2-4 1-5 2-6 0-1 2-5 4-5 0-0 2-3 5-6 3-5 0-2",
)
BLOCK_6_6_MOVES = (
    "6-6 4-6@6-6:lineA 0-4@4-6:smaller 0-3@0-4:smaller 3-3@0-3:larger 3-6@6-6:lineB "
    "1-6@6-6:branchA 3-4@3-3:lineB 0-6@6-6:branchB 1-3@1-6:smaller draw 4-4@3-4:larger "
    "0-5@0-6:smaller 5-5@0-5:larger draw draw 1-4@4-4:lineB draw draw 1-5@1-4:smaller draw "
    "draw draw 2-5@1-5:larger 2-4@2-5:smaller draw 4-5@2-4:larger draw draw 2-3@3-6:smaller "
    "2-6@2-3:smaller draw 5-6@4-5:larger draw 3-5@5-5:lineB draw"
)
"""A recorded random round ending with totals 6 and 6."""


def test_r4_6_block_with_equal_totals_6_and_6_transfers_nothing() -> None:
    match, last = replay_until_last(BLOCK_6_6_DECK, BLOCK_6_6_MOVES)
    before = list(match.balances)
    events = match.apply(action(match, last))
    assert events[-3:] == [
        Passed(SECOND),
        Passed(FIRST),
        RoundEnded(
            1,
            RoundEnd.BLOCK,
            BySeat(tiles("0-1 1-1 1-2"), tiles("0-0 0-2 2-2")),
            BySeat(6, 6),
            None,
        ),
    ]
    assert not any(isinstance(e, Transferred) for e in events)
    assert match.balances == before


PASS_DECK = deck(
    first="3-5 0-5 0-4 2-4 0-3 1-4 1-6",
    second="0-6 2-6 1-3 1-2 2-3 3-4 2-5",
    boneyard="2-2 4-6 1-5 1-1 3-3 0-1 4-5 5-5 6-6 4-4 0-0 0-2 5-6 3-6",
)
PASS_MOVES = (
    "2-6 2-4@2-6:smaller 0-6@2-6:larger 0-4@2-4:larger draw draw draw draw draw draw "
    "0-1@0-6:smaller 1-6@0-1:larger 4-6@1-6:larger 0-3@0-4:smaller 2-3@0-3:larger "
    "1-4@4-6:smaller 1-2@2-3:smaller draw draw draw draw draw draw draw draw 1-5@1-2:smaller "
    "3-5@1-5:larger 1-3@3-5:smaller 1-1@1-4:smaller"
)
"""A recorded random round with no double in either hand: [2|6] opens (R2.3). The first seat
empties the boneyard and passes; then it passes twice more while the second seat plays on."""


def test_d2_forced_pass_is_applied_when_the_turn_begins_and_play_goes_on() -> None:
    match = dealt(PASS_DECK)
    assert match.opening_tile == Tile.of(2, 6)
    assert match.to_act is SECOND
    moves = PASS_MOVES.split()
    play(match, " ".join(moves[:-2]))
    assert match.to_act is SECOND
    decision = match.decision

    events = match.apply(action(match, moves[-2]))

    # the first seat can neither place nor draw: it passes at once, no command, and the
    # second seat is to act again; a pass followed by a placement is no block (R4.6)
    assert events == [
        Played(SECOND, Tile.of(1, 3), Place(Tile.of(3, 5), Side.SMALLER), 2, 0),
        Passed(FIRST),
    ]
    assert match.to_act is SECOND
    assert match.phase is Phase.PLAYING
    assert match.decision == decision + 2

    events = match.apply(action(match, moves[-1]))
    assert events == [
        Played(SECOND, Tile.of(1, 1), Place(Tile.of(1, 4), Side.SMALLER), 3, 0),
        Passed(FIRST),
        Passed(SECOND),
        RoundEnded(
            1,
            RoundEnd.BLOCK,
            BySeat(
                tiles("0-0 0-2 0-5 3-6 4-4 4-5 5-5 5-6 6-6"),
                tiles("2-2 2-5 3-3 3-4"),
            ),
            BySeat(66, 24),
            None,
        ),
        Transferred(FIRST, SECOND, 65, TransferReason.BLOCK, BySeat(95, 205)),
    ]


def test_r4_7_after_a_block_the_next_round_opens_by_r2_3_without_jockey() -> None:
    match = after_block_round()
    assert match.jockey is None
    cards = deck(first="5-5 0-1", second="6-6 0-2")
    events: list[Event] = match.apply(Deal(cards))
    assert len(events) == 2
    assert isinstance(events[0], RoundDealt)
    assert events[1] == OpenerChosen(SECOND, Tile.of(6, 6))
    assert match.auction is None
    assert match.phase is Phase.OPENING
    assert match.legal_actions() == [Play(SECOND, Tile.of(6, 6))]
    assert match.balances == [25, 275]


def test_r4_7_a_block_clears_the_previous_jockey() -> None:
    """Round 1 is a domino (jockey: second seat, 115–185). In round 2 the first seat declines and
    the jockey opens [0|0] of the mirrored blocked round: the first seat scores [2|5]'s 5, the
    jockey draws all 14 and the round blocks, 7 against 119 (120 to the first seat). Round 3
    opens by R2.3: no jockey, no auction."""
    match = after_domino_round()
    mirrored = deck(first=BLOCK_DECK[7:14], second=BLOCK_DECK[:7], boneyard=BLOCK_DECK[14:])
    match.apply(Deal(mirrored))
    match.apply(Decline(FIRST))
    play(match, BLOCK_PLACEMENTS)
    assert match.balances == [120, 180]
    events = play(match, BLOCK_DRAWS)
    assert events[-2:] == [
        RoundEnded(
            2,
            RoundEnd.BLOCK,
            BySeat(
                tiles("1-2 1-3"),
                tiles("1-1 1-5 1-6 2-2 2-3 2-4 2-6 3-3 3-4 3-5 4-4 4-5 4-6 5-5 5-6 6-6"),
            ),
            BySeat(7, 119),
            None,
        ),
        Transferred(SECOND, FIRST, 120, TransferReason.BLOCK, BySeat(240, 60)),
    ]
    assert match.jockey is None

    events = match.apply(Deal(deck(first="5-5 0-1", second="6-6 0-2")))

    assert events[1:] == [OpenerChosen(SECOND, Tile.of(6, 6))]
    assert match.auction is None
    assert match.legal_actions() == [Play(SECOND, Tile.of(6, 6))]


def test_d4_round_end_reveals_both_hands() -> None:
    """RoundEnded carries both hands whatever ended the round: a domino (the loser's tiles), a
    block, and a match ended mid-round (both full hands)."""
    match = dealt(domino_deck())
    ended = [e for e in play(match, domino_moves()) if isinstance(e, RoundEnded)]
    assert ended == [
        RoundEnded(1, RoundEnd.DOMINO, BySeat(tiles("5-5"), ()), BySeat(10, 0), SECOND)
    ]
    rnd = match.round
    assert rnd is not None
    assert rnd.hand(FIRST) == [Tile.of(5, 5)]
    last_round = view_for(match, None).last_round  # the spectator's view too
    assert last_round is not None
    assert last_round.hands == BySeat(tiles("5-5"), ())

    match = dealt(BLOCK_DECK)
    events = play(match, f"{BLOCK_PLACEMENTS} {BLOCK_DRAWS}")
    ended = [e for e in events if isinstance(e, RoundEnded)]
    assert [(len(e.hands.first), e.hands.second) for e in ended] == [(16, tiles("1-2 1-3"))]

    match = dealt(deck(first="6-6 0-1 0-2 0-3 0-4 0-5 0-6", second="1-1 1-2 1-3 1-4 1-5 1-6 2-2"))
    events = match.apply(Resign(SECOND))
    assert events[0] == RoundEnded(
        1,
        RoundEnd.MATCH_OVER,
        BySeat(tiles("0-1 0-2 0-3 0-4 0-5 0-6 6-6"), tiles("1-1 1-2 1-3 1-4 1-5 1-6 2-2")),
        BySeat(33, 31),
        None,
    )
