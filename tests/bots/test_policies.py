"""The greedy choice (bots/policies.py): the largest award now (R3.4, R3.5), then the heavier
tile (R4.6: pips left in hand are what a block costs)."""

from __future__ import annotations

import random

from spectacular_bid.bots.policies import award_of, greedy_action, random_action
from spectacular_bid.rules.actions import Draw, Play, Played
from spectacular_bid.rules.board import Place, Side
from spectacular_bid.rules.match import Match
from spectacular_bid.rules.notation import parse_moves, parse_tile
from spectacular_bid.rules.phase import Phase
from spectacular_bid.rules.position import match_at, round_at
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.tiles import TILES

FIRST = Seat.FIRST


def after_one_four(hand: str) -> Match:
    """The board ``1-4`` (ends 4 and 1, Appendix B), the first seat to lay from ``hand``."""
    board = parse_moves("1-4")
    mine = [parse_tile(t) for t in hand.split()]
    rest = [t for t in TILES if t not in mine and t not in board.tiles]
    rnd = round_at(1, [mine, rest[:7]], rest[7:], board)
    return match_at(rnd, balances=(150, 150), phase=Phase.PLAYING, to_act=FIRST)


ONE_FOUR = parse_tile("1-4")


def test_greedy_lays_the_largest_award() -> None:
    # [1|6] on the smaller end leaves 4 + 6 = 10; [4|6] leaves 6 + 1, [1|5] 4 + 5, [4|4] 8 + 1.
    match = after_one_four("1-6 4-6 1-5 4-4")
    legal = match.legal_actions(FIRST)
    chosen = greedy_action(match, legal, random.Random(0))
    assert chosen == Play(FIRST, parse_tile("1-6"), Place(ONE_FOUR, Side.SMALLER))
    assert award_of(match, chosen) == 10
    assert all(award_of(match, a) == 0 for a in legal if a != chosen)  # type: ignore[arg-type]


def test_the_award_a_bot_ranks_by_is_the_award_laying_it_scores() -> None:
    # R3.5 is written once, in the rules; the bots' estimate must be what apply then awards.
    match = after_one_four("1-6 4-6 1-5 4-4 0-4 5-6 6-6")
    legal = match.legal_actions(FIRST)
    assert len(legal) > 1
    awards = set()
    for action in legal:
        assert isinstance(action, Play)
        played = match.copy().apply(action)[0]
        assert isinstance(played, Played)
        assert award_of(match, action) == played.award
        awards.add(played.award)
    assert awards > {0}  # some placement scores, so the comparison is not all zeros


def test_greedy_breaks_a_tie_by_the_heavier_tile() -> None:
    # No placement scores: [4|6] (10 pips) goes before [0|4] (4 pips) and [1|2] (3 pips).
    match = after_one_four("4-6 0-4 1-2")
    chosen = greedy_action(match, match.legal_actions(FIRST), random.Random(0))
    assert chosen == Play(FIRST, parse_tile("4-6"), Place(ONE_FOUR, Side.LARGER))


def test_greedy_draws_when_drawing_is_all_there_is() -> None:
    # R4.1: with nothing playable the only action is a draw.
    match = after_one_four("0-0 2-2 3-3")
    assert greedy_action(match, match.legal_actions(FIRST), random.Random(0)) == Draw(FIRST)


def test_random_picks_every_legal_action_in_time() -> None:
    match = after_one_four("1-6 4-6 1-5 4-4")
    legal = match.legal_actions(FIRST)
    rng = random.Random(1)
    picked = {random_action(match, legal, rng) for _ in range(200)}
    assert picked == set(legal)
