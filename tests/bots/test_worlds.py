"""A sampled world agrees with everything its seat saw (bots/worlds.py): the same own hand,
board, balances, counts and legal actions, and only unseen tiles hidden (R2.2, D4)."""

from __future__ import annotations

import random

import pytest

from spectacular_bid.bots.knowledge import read
from spectacular_bid.bots.worlds import sample_hidden, sample_opening, sample_world
from spectacular_bid.rules.phase import Phase

from .positions import random_position


@pytest.mark.parametrize("seed", range(30))
def test_a_world_agrees_with_everything_seen(seed: int) -> None:
    game = random_position(seed, steps=seed * 4)
    real = game.match
    me = game.to_act
    real_round = real.round
    assert real_round is not None
    k = read(me, game.seen[me])
    for world_seed in range(3):
        world = sample_world(k, random.Random(world_seed))
        rnd = world.round
        assert rnd is not None
        assert rnd.hand(me) == real_round.hand(me)
        assert rnd.board == real_round.board
        assert rnd.hand_count(me.other) == real_round.hand_count(me.other)
        assert rnd.boneyard_count == real_round.boneyard_count
        assert rnd.must_play == real_round.must_play
        assert rnd.passes == real_round.passes
        assert world.balances == real.balances
        assert world.phase is real.phase
        assert world.to_act == real.to_act
        assert world.legal_actions(me) == real.legal_actions(me)
        hidden = set(rnd.hand(me.other)) | set(rnd.boneyard_left())
        assert hidden == set(real_round.hand(me.other)) | set(real_round.boneyard_left())


def test_worlds_differ_in_the_hidden_tiles_only() -> None:
    game = random_position(3, steps=0)
    me = game.to_act
    k = read(me, game.seen[me])
    rng = random.Random(4)
    others = {tuple(sample_hidden(k, rng)[0]) for _ in range(20)}
    assert len(others) > 10


def test_an_auction_world_opens_for_either_seat() -> None:
    # R6.3: the auction's worth compares the same hidden tiles with either seat opening.
    for seed in range(200):
        game = random_position(seed, steps=40)
        if game.match.phase is Phase.AUCTION:
            break
    else:
        pytest.fail("no auction reached in 200 random matches")
    me = game.to_act
    k = read(me, game.seen[me])
    hidden = sample_hidden(k, random.Random(0))
    for opener in (me, me.other):
        world = sample_opening(k, opener, hidden)
        assert world.phase is Phase.OPENING
        assert world.to_act == opener
        assert len(world.legal_actions(opener)) == 7
