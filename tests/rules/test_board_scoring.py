"""§3 Joining and counting the ends (R3.1–R3.7), with the worked positions of Appendix B, on the
board alone and through a match."""

from __future__ import annotations

import pytest

from spectacular_bid.rules.actions import (
    Deal,
    Decline,
    OpenerChosen,
    Play,
    Played,
    TransferReason,
    Transferred,
)
from spectacular_bid.rules.board import Board, Joint, Place, Side, award_for
from spectacular_bid.rules.errors import IllegalActionError
from spectacular_bid.rules.match import Phase
from spectacular_bid.rules.notation import parse_moves, parse_placement
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import TILES, Tile

from .decks import action, after_domino_round, dealt, deck, play

FIRST, SECOND = Seat.FIRST, Seat.SECOND


def t(text: str) -> Tile:
    a, b = text.split("-")
    return Tile.of(int(a), int(b))


def push(board: Board, move: str) -> int:
    """Lay one placement written in Appendix A notation; return the award (R3.5)."""
    tile, at = parse_placement(move)
    return board.place(tile, at)


def p(tile: str, side: Side) -> Place:
    return Place(t(tile), side)


LONG = (
    "1-4 1-1@1-4:smaller 4-4@1-4:larger 3-4@4-4:lineB 1-2@1-1:lineB 1-5@1-1:branchA "
    "5-5@1-5:larger 0-5@5-5:lineB 1-3@1-1:branchB"
)
"""Appendix B's long sequence."""


@pytest.mark.parametrize(
    ("moves", "description"),
    [
        (
            "1-4",
            "Tiles: [1|4]. Spinners: none. Joints: none. Open places: [1|4] (larger end, 4); "
            "[1|4] (smaller end, 1). Scoring ends: [1|4]: 4; [1|4]: 1. Sum: 4 + 1 = 5. Award: 5.",
        ),
        (
            "1-4 1-1@1-4:smaller",
            "Tiles: [1|4], [1|1]. Spinners: [1|1]. Joints: [1|4] (smaller end) – [1|1] (line A). "
            "Open places: [1|1] (line B, 1); [1|4] (larger end, 4). Scoring ends: [1|1]: 2; "
            "[1|4]: 4. Sum: 2 + 4 = 6. Award: 0.",
        ),
        (
            "3-6 6-6@3-6:larger",
            "Tiles: [3|6], [6|6]. Spinners: [6|6]. Joints: [3|6] (larger end) – [6|6] (line A). "
            "Open places: [3|6] (smaller end, 3); [6|6] (line B, 6). Scoring ends: [3|6]: 3; "
            "[6|6]: 12. Sum: 3 + 12 = 15. Award: 15.",
        ),
        (
            "0-0",
            "Tiles: [0|0]. Spinners: [0|0]. Joints: none. Open places: [0|0] (line A, 0); "
            "[0|0] (line B, 0). Scoring ends: [0|0]: 0. Sum: 0 = 0. Award: 0.",
        ),
        (
            "2-2",
            "Tiles: [2|2]. Spinners: [2|2]. Joints: none. Open places: [2|2] (line A, 2); "
            "[2|2] (line B, 2). Scoring ends: [2|2]: 4. Sum: 4 = 4. Award: 0.",
        ),
        (
            LONG,
            "Tiles: [1|4], [1|1], [4|4], [3|4], [1|2], [1|5], [5|5], [0|5], [1|3]. "
            "Spinners: [1|1]. Joints: [1|4] (smaller end) – [1|1] (line A); [1|4] (larger end) – "
            "[4|4] (line A); [4|4] (line B) – [3|4] (larger end); [1|1] (line B) – [1|2] "
            "(smaller end); [1|1] (branch A) – [1|5] (smaller end); [1|5] (larger end) – [5|5] "
            "(line A); [5|5] (line B) – [0|5] (larger end); [1|1] (branch B) – [1|3] "
            "(smaller end). Open places: [0|5] (smaller end, 0); [1|2] (larger end, 2); [1|3] "
            "(larger end, 3); [3|4] (smaller end, 3). Scoring ends: [0|5]: 0; [1|2]: 2; "
            "[1|3]: 3; [3|4]: 3. Sum: 0 + 2 + 3 + 3 = 8. Award: 0.",
        ),
    ],
    ids=["1-4", "spinner-on-non-double-opening", "3-6-6-6", "0-0", "2-2", "long-sequence"],
)
def test_r3_appendix_b_board_descriptions(moves: str, description: str) -> None:
    assert parse_moves(moves).describe() == description


@pytest.mark.parametrize(
    ("step", "ends", "award", "open_places"),
    [
        (3, [("1-1", 2), ("4-4", 8)], 10, [p("1-1", Side.LINE_B), p("4-4", Side.LINE_B)]),
        (4, [("1-1", 2), ("3-4", 3)], 5, [p("1-1", Side.LINE_B), p("3-4", Side.SMALLER)]),
        (
            5,
            [("1-2", 2), ("3-4", 3)],
            5,
            [
                p("1-1", Side.BRANCH_A),
                p("1-1", Side.BRANCH_B),
                p("1-2", Side.LARGER),
                p("3-4", Side.SMALLER),
            ],
        ),
        (6, [("1-2", 2), ("1-5", 5), ("3-4", 3)], 10, None),
        (7, [("1-2", 2), ("3-4", 3), ("5-5", 10)], 15, None),
        (8, [("0-5", 0), ("1-2", 2), ("3-4", 3)], 5, None),
    ],
    ids=["4-4", "3-4", "1-2", "1-5", "5-5", "0-5"],
)
def test_r3_4_appendix_b_long_sequence_step_by_step(
    step: int, ends: list[tuple[str, int]], award: int, open_places: list[Place] | None
) -> None:
    board = parse_moves(" ".join(LONG.split()[:step]))
    assert board.scoring_ends() == [(t(tile), value) for tile, value in ends]
    assert board.ends_sum == sum(value for _, value in ends)
    assert board.award == award
    if open_places is not None:
        assert board.open_places() == open_places


def test_r3_1_a_tile_joins_only_an_open_place_showing_one_of_its_halves() -> None:
    board = parse_moves("1-4")
    assert board.places_for(t("4-6")) == [p("1-4", Side.LARGER)]
    assert board.places_for(t("0-1")) == [p("1-4", Side.SMALLER)]
    assert board.places_for(t("1-4")) == [p("1-4", Side.LARGER), p("1-4", Side.SMALLER)]
    assert board.places_for(t("2-3")) == []
    with pytest.raises(IllegalActionError, match=r"does not match"):
        board.place(t("2-3"), p("1-4", Side.LARGER))
    assert board == parse_moves("1-4")


def test_r3_2_only_the_first_double_played_is_a_spinner() -> None:
    board = parse_moves("1-4 1-1@1-4:smaller")
    assert board.spinner == t("1-1")
    push(board, "4-4@1-4:larger")
    assert board.spinner == t("1-1")
    # The second double has line B only: no branches, ever.
    assert [pl for pl in board.open_places() if pl.tile == t("4-4")] == [p("4-4", Side.LINE_B)]
    push(board, "3-4@4-4:lineB")
    assert [pl for pl in board.open_places() if pl.tile == t("4-4")] == []


def test_r3_2_the_spinner_branches_open_only_when_both_line_sides_are_filled() -> None:
    board = parse_moves("2-2")
    assert board.open_places() == [p("2-2", Side.LINE_A), p("2-2", Side.LINE_B)]
    push(board, "2-5@2-2:lineA")
    assert board.open_places() == [p("2-2", Side.LINE_B), p("2-5", Side.LARGER)]
    with pytest.raises(IllegalActionError, match="not an open place"):
        push(board, "2-3@2-2:branchA")
    push(board, "2-3@2-2:lineB")
    assert board.open_places() == [
        p("2-2", Side.BRANCH_A),
        p("2-2", Side.BRANCH_B),
        p("2-3", Side.LARGER),
        p("2-5", Side.LARGER),
    ]


def test_r3_3_doubles_join_with_line_a_and_non_doubles_with_the_matching_half() -> None:
    board = parse_moves("1-4 1-1@1-4:smaller 4-4@1-4:larger 3-4@4-4:lineB 1-2@1-1:lineB")
    assert board.joints() == [
        Joint(p("1-4", Side.SMALLER), p("1-1", Side.LINE_A)),
        Joint(p("1-4", Side.LARGER), p("4-4", Side.LINE_A)),
        Joint(p("4-4", Side.LINE_B), p("3-4", Side.LARGER)),
        Joint(p("1-1", Side.LINE_B), p("1-2", Side.SMALLER)),
    ]
    # the other end of a joined non-double stays open
    assert p("3-4", Side.SMALLER) in board.open_places()
    assert p("1-2", Side.LARGER) in board.open_places()


def test_r3_4_an_opening_spinner_counts_both_halves_until_both_lines_are_filled() -> None:
    board = parse_moves("2-2")
    assert board.ends_sum == 4
    push(board, "2-5@2-2:lineA")
    assert board.scoring_ends() == [(t("2-2"), 4), (t("2-5"), 5)]
    assert board.ends_sum == 9
    push(board, "2-3@2-2:lineB")
    # both line sides filled: the spinner counts nothing, its open branches count zero
    assert board.scoring_ends() == [(t("2-3"), 3), (t("2-5"), 5)]
    assert board.ends_sum == 8
    push(board, "2-6@2-2:branchA")
    assert board.ends_sum == 3 + 5 + 6


def test_r3_4_a_double_at_the_end_of_a_branch_counts_both_halves_and_is_no_spinner() -> None:
    board = parse_moves(" ".join(LONG.split()[:6]))
    assert board.ends_sum == 10
    push(board, "5-5@1-5:larger")
    assert board.spinner == t("1-1")
    assert board.scoring_ends() == [(t("1-2"), 2), (t("3-4"), 3), (t("5-5"), 10)]
    assert board.award == 15
    assert [pl for pl in board.open_places() if pl.tile == t("5-5")] == [p("5-5", Side.LINE_B)]
    push(board, "0-5@5-5:lineB")
    assert board.scoring_ends() == [(t("0-5"), 0), (t("1-2"), 2), (t("3-4"), 3)]


def test_r3_5_zero_sum_of_a_0_0_opening_transfers_nothing() -> None:
    match = dealt(deck(first="0-0 1-2 1-3 1-4 2-3 2-4 3-4", second="0-1 0-2 0-3 1-5 2-5 3-5 4-5"))
    assert match.opening_tile == t("0-0")
    events = match.apply(Play(FIRST, t("0-0")))
    assert events == [Played(FIRST, t("0-0"), None, 0, 0)]
    assert match.balances == [150, 150]


@pytest.mark.parametrize(
    ("moves", "ends_sum"),
    [("2-2", 4), ("1-4 1-1@1-4:smaller", 6), ("3-6 6-6@3-6:larger 3-4@3-6:smaller", 16)],
)
def test_r3_5_sums_that_are_not_multiples_of_5_award_nothing(moves: str, ends_sum: int) -> None:
    board = parse_moves(moves)
    assert board.ends_sum == ends_sum
    assert board.award == 0


@pytest.mark.parametrize(
    ("ends_sum", "award"),
    [(0, 0), (1, 0), (4, 0), (5, 5), (6, 0), (10, 10), (14, 0), (15, 15), (16, 0), (20, 20)],
)
def test_r3_5_award_for_a_sum_is_the_sum_when_a_positive_multiple_of_5(
    ends_sum: int, award: int
) -> None:
    assert award_for(ends_sum) == award


@pytest.mark.parametrize(
    "moves", ["", "1-4", "1-4 1-1@1-4:smaller", "3-6 6-6@3-6:larger 3-4@3-6:smaller", "5-5"]
)
def test_r3_5_award_after_a_placement_is_what_laying_it_awards(moves: str) -> None:
    # The bots rank placements by this without laying them; it must agree with laying each one.
    board = parse_moves(moves)
    checked = 0
    for tile in (tile for tile in TILES if tile not in board.tiles):
        places = board.places_for(tile)
        for code in [place.code for place in places] if board.tiles else [-1]:
            laid = board.copy()
            laid.lay(tile, code)
            assert board.award_after(tile, code) == laid.award == award_for(laid.ends_sum)
            checked += 1
    assert checked > 0


# -- Appendix B's long sequence through a match ----------------------------------------------

APPENDIX_B_DECK = deck(first="1-1 3-4 1-5 0-5", second="1-4 4-4 1-2 5-5 1-3")
"""Round 2 after the domino round (jockey: second seat, 115–185): the first seat declines and the
second opens [1|4] although it holds [4|4] and [5|5] (R6.3: any tile)."""


def appendix_b_match() -> tuple[list[list[Played | Transferred]], list[int]]:
    match = after_domino_round()
    match.apply(Deal(APPENDIX_B_DECK))
    events = match.apply(Decline(FIRST))
    assert events[-1] == OpenerChosen(SECOND, None)
    steps: list[list[Played | Transferred]] = []
    movers: list[int] = []
    for move in LONG.split():
        mover = match.to_act
        assert mover is not None
        movers.append(mover)
        got = match.apply(action(match, move))
        steps.append([e for e in got if isinstance(e, Played | Transferred)])
        assert match.to_act is mover.other  # R3.6, even after a double or a score
        assert match.phase is Phase.PLAYING
    return steps, movers


def test_r3_4_r3_5_r3_6_appendix_b_long_sequence_in_a_match() -> None:
    steps, movers = appendix_b_match()
    assert movers == [SECOND, FIRST] * 4 + [SECOND]
    sums = [next(e.ends_sum for e in step if isinstance(e, Played)) for step in steps]
    assert sums == [5, 6, 10, 5, 5, 10, 15, 5, 8]
    transfers = [
        (e.payee, e.amount, e.balances)
        for step in steps
        for e in step
        if isinstance(e, Transferred)
    ]
    assert transfers == [
        (SECOND, 5, BySeat(110, 190)),  # [1|4] opens: 4 + 1
        (SECOND, 10, BySeat(100, 200)),  # [4|4]: 2 + 8
        (FIRST, 5, BySeat(105, 195)),  # [3|4]: 2 + 3
        (SECOND, 5, BySeat(100, 200)),  # [1|2]: 2 + 3
        (FIRST, 10, BySeat(110, 190)),  # [1|5]: 2 + 5 + 3
        (SECOND, 15, BySeat(95, 205)),  # [5|5]: 2 + 3 + 10
        (FIRST, 5, BySeat(100, 200)),  # [0|5]: 0 + 2 + 3
    ]
    assert all(
        e.reason is TransferReason.AWARD for s in steps for e in s if isinstance(e, Transferred)
    )


def test_r3_7_spinner_branches_are_open_places_but_not_scoring_ends() -> None:
    match = after_domino_round()
    match.apply(Deal(APPENDIX_B_DECK))
    match.apply(Decline(FIRST))
    play(match, "1-4 1-1@1-4:smaller 4-4@1-4:larger 3-4@4-4:lineB 1-2@1-1:lineB")
    rnd = match.round
    assert rnd is not None
    board = rnd.board
    assert p("1-1", Side.BRANCH_A) in board.open_places()
    assert t("1-1") not in [tile for tile, _ in board.scoring_ends()]
    assert board.ends_sum == 5
    # the first seat may join [1|5] at either branch, where it counts 5 more
    assert match.to_act is FIRST
    assert Play(FIRST, t("1-5"), p("1-1", Side.BRANCH_A)) in match.legal_actions()
    assert Play(FIRST, t("1-5"), p("1-1", Side.BRANCH_B)) in match.legal_actions()
