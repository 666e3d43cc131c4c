"""The determinized search's stopping rule (bots/search.py): a clear leader ends the search
early, a close or noisy race does not."""

from __future__ import annotations

from spectacular_bid.bots.search import is_settled


def test_a_leader_far_ahead_on_every_world_is_settled() -> None:
    best = [10.0, 12.0, 11.0, 9.0, 10.0, 13.0, 10.0, 12.0]
    other = [v - 8.0 + (i % 3) for i, v in enumerate(best)]
    assert is_settled([other, best])


def test_a_close_race_is_not_settled() -> None:
    first = [10.0, -5.0, 20.0, 0.0, 5.0, 15.0, -10.0, 5.0]
    second = [5.0, 0.0, 15.0, 5.0, 0.0, 20.0, -5.0, 0.0]
    assert not is_settled([first, second])


def test_one_world_settles_nothing() -> None:
    assert not is_settled([[100.0], [-100.0]])


def test_every_rival_must_be_left_behind() -> None:
    best = [10.0, 11.0, 10.0, 12.0]
    far = [0.0, 1.0, 0.0, 1.0]
    near = [10.0, 10.0, 11.0, 11.0]
    assert not is_settled([best, far, near])
    assert is_settled([best, far])
