"""What a seat knows and infers from its own events (bots/knowledge.py, bots/worlds.py):
R4.1/R4.2 (a seat that drew held nothing matching the open places, and a tile laid straight
after a draw is the drawn tile), R4.4 (a pass likewise) and R2.3 (after the opening nobody held a
higher double or tile)."""

from __future__ import annotations

import random

import pytest

from spectacular_bid.bots.knowledge import read
from spectacular_bid.bots.worlds import sample_hidden, slot_allowances
from spectacular_bid.rules.actions import Draw, Play
from spectacular_bid.rules.board import Place, Side
from spectacular_bid.rules.notation import parse_tile
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.tiles import DOUBLES, TILES, Tile, tiles_in

from .positions import Game, playing_position

FIRST, SECOND = Seat.FIRST, Seat.SECOND


def deck(first: str, second: str, boneyard: str) -> tuple[Tile, ...]:
    """Both hands and the start of the boneyard in tile notation; the rest in Appendix A order."""
    named = [parse_tile(t) for t in f"{first} {second} {boneyard}".split()]
    return (*named, *(t for t in TILES if t not in named))


SIX = parse_tile("6-6")


def drew_for_a_six() -> Game:
    """The first seat opens [6|6] (R2.3); the second holds no 6 and draws [2|5], [3|3], [3|4]
    (none shows a 6) and then [0|6], which it must lay at once (R4.2)."""
    game = Game()
    game.deal(
        deck(
            "6-6 0-1 0-2 0-3 0-4 0-5 1-1",
            "1-2 1-3 1-4 1-5 2-2 2-3 2-4",
            "2-5 3-3 3-4 0-6",
        )
    )
    game.apply(Play(FIRST, SIX))
    for _ in range(4):
        game.apply(Draw(SECOND))
    game.apply(Play(SECOND, parse_tile("0-6"), Place(SIX, Side.LINE_A)))
    return game


def shows_six(tile: Tile) -> bool:
    return 6 in (tile.low, tile.high)


def test_the_drawing_seat_held_no_tile_matching_the_open_six() -> None:
    game = drew_for_a_six()
    k = read(FIRST, game.seen[FIRST])
    # R4.2: the fourth draw was laid at once, so three draws stay hidden; 7 + 4 - 1 held.
    assert len(k.hidden_draws) == 3
    assert k.other_count == 10
    assert k.moments == [1 << 6]
    for allowed in slot_allowances(k):
        assert not any(shows_six(t) for t in tiles_in(allowed))
    rng = random.Random(1)
    for _ in range(50):
        other, boneyard = sample_hidden(k, rng)
        assert not any(shows_six(t) for t in other)
        assert sorted(t for t in boneyard if shows_six(t)) == [
            parse_tile(t) for t in ("1-6", "2-6", "3-6", "4-6", "5-6")
        ]


def test_the_drawing_seat_knows_its_own_draws() -> None:
    game = drew_for_a_six()
    k = read(SECOND, game.seen[SECOND])
    assert tiles_in(k.hand) == sorted(
        parse_tile(t)
        for t in ["1-2", "1-3", "1-4", "1-5", "2-2", "2-3", "2-4", "2-5", "3-3", "3-4"]
    )
    assert k.hidden_draws == []  # the first seat never drew
    assert k.boneyard_count == 10


def test_an_opening_without_doubles_rules_them_out_of_the_dealt_hand() -> None:
    # R2.3: [5|6] opened, so neither dealt hand held any double.
    game = Game()
    game.deal(deck("5-6 0-1 0-2 0-3 0-4 1-2 1-3", "4-6 0-5 1-4 2-3 2-4 1-5 2-5", ""))
    assert game.match.opening_tile == parse_tile("5-6")
    game.apply(Play(FIRST, parse_tile("5-6")))
    k = read(FIRST, game.seen[FIRST])
    assert tiles_in(k.opening_excluded) == list(DOUBLES)
    rng = random.Random(2)
    for _ in range(30):
        other, _ = sample_hidden(k, rng)
        assert not any(t.is_double for t in other)


def test_an_opening_double_rules_out_only_higher_doubles() -> None:
    game = Game()
    game.deal(deck("4-4 0-1 0-2 0-3 0-5 1-2 1-3", "0-4 0-6 1-4 2-3 2-4 1-5 2-5", ""))
    game.apply(Play(FIRST, parse_tile("4-4")))
    k = read(SECOND, game.seen[SECOND])
    assert tiles_in(k.opening_excluded) == [parse_tile("5-5"), parse_tile("6-6")]


@pytest.mark.parametrize("seed", range(25))
def test_the_real_hidden_hand_is_always_allowed(seed: int) -> None:
    # Every inference is sound: each tile the other seat really holds fits some slot.
    game = playing_position(seed, steps=10 + seed * 3)
    me = game.to_act
    k = read(me, game.seen[me])
    union = 0
    for allowed in slot_allowances(k):
        union |= allowed
    rnd = game.match.round
    assert rnd is not None
    assert len(slot_allowances(k)) == rnd.hand_count(me.other)
    for tile in rnd.hand(me.other):
        assert union >> tile & 1, f"{tile} is held but ruled out"
