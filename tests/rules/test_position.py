"""A match built at an explicit position (rules/position.py) and ``Board.sum_after``: what a
searching bot needs, checked against the dealt engine itself (R2.1, R3.4, R4.1–R4.6)."""

from __future__ import annotations

import random

import pytest

from spectacular_bid.rules.actions import Deal, Play
from spectacular_bid.rules.board import Board
from spectacular_bid.rules.errors import IllegalActionError
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.position import match_at, round_at
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.tiles import TILES

from .decks import NEXT_DECK


def _random_midround(seed: int) -> Match:
    """A dealt match after a random number of random legal actions, still in its first round."""
    rng = random.Random(seed)
    deck = list(TILES)
    rng.shuffle(deck)
    match = Match()
    match.apply(Deal(tuple(deck)))
    for _ in range(rng.randrange(0, 30)):
        nxt = match.copy()
        nxt.apply(rng.choice(match.legal_actions()))
        if nxt.phase is not Phase.PLAYING:
            break
        match = nxt
    return match


def _rebuilt(match: Match) -> Match:
    rnd = match.round
    assert rnd is not None
    assert match.to_act is not None
    position = round_at(
        rnd.number,
        [rnd.hand(Seat.FIRST), rnd.hand(Seat.SECOND)],
        rnd.boneyard_left(),
        rnd.board,
        must_play=rnd.must_play,
        passes=rnd.passes,
    )
    return match_at(
        position,
        balances=(match.balances[0], match.balances[1]),
        phase=match.phase,
        to_act=match.to_act,
        jockey=match.jockey,
        opening_tile=match.opening_tile,
    )


@pytest.mark.parametrize("seed", range(40))
def test_a_rebuilt_position_plays_on_like_the_dealt_match(seed: int) -> None:
    # The same random line from both: the same legal actions and the same events each time,
    # through draws (R4.1, R4.2), passes (R4.4) and the round's end (R4.5, R4.6).
    dealt = _random_midround(seed)
    rebuilt = _rebuilt(dealt)
    rng = random.Random(seed)
    while dealt.phase is Phase.PLAYING:
        legal = dealt.legal_actions()
        assert rebuilt.legal_actions() == legal
        chosen = rng.choice(legal)
        assert rebuilt.apply(chosen) == dealt.apply(chosen)
    assert rebuilt.balances == dealt.balances
    assert rebuilt.phase is dealt.phase


def test_sum_after_is_what_lay_gives() -> None:
    # R3.4 counted once per tile laid, across many random layouts with spinners and branches.
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        board = Board()
        tiles = list(TILES)
        rng.shuffle(tiles)
        board.lay(tiles[0], -1)
        for tile in tiles[1:]:
            fits = [p.code for p in board.places_for(tile)]
            if not fits:
                continue
            code = rng.choice(fits)
            expected = board.copy().lay(tile, code)
            assert board.sum_after(tile, code) == expected
            board.lay(tile, code)
            checked += 1
    assert checked > 1000


def test_sum_after_the_opening_double_counts_both_halves() -> None:
    # Appendix B: [2|2] opening sums 4; [1|4] opening sums 5.
    assert Board().sum_after(TILES[14], -1) == Board().copy().lay(TILES[14], -1)
    one_four = next(t for t in TILES if t.low == 1 and t.high == 4)
    assert Board().sum_after(one_four, -1) == 5


def test_position_rejects_a_tile_twice() -> None:
    hands = [NEXT_DECK[0:7], NEXT_DECK[6:14]]
    with pytest.raises(IllegalActionError, match=r"\[0\|6\] appears twice"):
        round_at(1, hands, NEXT_DECK[14:], Board())


def test_position_rejects_a_missing_tile() -> None:
    hands = [NEXT_DECK[0:7], NEXT_DECK[7:14]]
    with pytest.raises(IllegalActionError, match=r"lacks \[6\|6\]"):
        round_at(1, hands, NEXT_DECK[14:27], Board())


def test_position_rejects_balances_that_are_not_300() -> None:
    rnd = round_at(1, [NEXT_DECK[0:7], NEXT_DECK[7:14]], NEXT_DECK[14:], Board())
    with pytest.raises(IllegalActionError, match=r"\(100, 150\)"):
        match_at(rnd, balances=(100, 150), phase=Phase.OPENING, to_act=Seat.FIRST)


def test_position_rejects_an_opening_on_a_laid_board() -> None:
    board = Board()
    board.lay(NEXT_DECK[0], -1)
    rnd = round_at(1, [NEXT_DECK[1:7], NEXT_DECK[7:14]], NEXT_DECK[14:], board)
    with pytest.raises(IllegalActionError, match="opening"):
        match_at(rnd, balances=(150, 150), phase=Phase.OPENING, to_act=Seat.FIRST)


def test_an_opening_position_lays_any_tile() -> None:
    # R6.3: after an auction the opener may lay any tile of its hand.
    rnd = round_at(2, [NEXT_DECK[0:7], NEXT_DECK[7:14]], NEXT_DECK[14:], Board())
    match = match_at(rnd, balances=(140, 160), phase=Phase.OPENING, to_act=Seat.SECOND)
    legal = match.legal_actions(Seat.SECOND)
    assert legal == [Play(Seat.SECOND, t) for t in sorted(NEXT_DECK[7:14])]
