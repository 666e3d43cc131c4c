"""Replay frames (issue 5 §11, D4): the server re-runs an ended match for the viewer."""

from __future__ import annotations

import random

import pytest

from spectacular_bid.rules.tiles import TILES
from spectacular_bid.service.intents import ErrorCode, Rejection

from .helpers import FakeTime, Tables, fake_time_settings


async def test_d4_frames_follow_every_version_with_both_hands(tables: Tables) -> None:
    time = FakeTime()
    table = await tables.open(fake_time_settings(fixed_deck_seed=5), time_source=time)
    service, actor = table.service, table.actor
    with pytest.raises(Rejection) as live:
        await service.replay_frames(actor.id)
    assert live.value.code is ErrorCode.WRONG_PHASE  # never while the match is live (D4)

    await table.play_randomly(random.Random(11), until=lambda a: False)
    replay = await service.replay_frames(actor.id)

    frames = replay["frames"]
    assert [f["version"] for f in frames] == list(range(actor.version + 1))
    final = frames[-1]["view"]
    assert final["balances"] == {
        "first": actor.match.balances[0],
        "second": actor.match.balances[1],
    }
    assert final["result"]["reason"] == actor.match.result.reason.value  # type: ignore[union-attr]
    dealt = [f for f in frames if f["view"]["phase"] in ("auction", "opening", "playing")]
    assert dealt, "the match had rounds"
    for frame in dealt:
        view = frame["view"]
        everything = (
            view["hands"]["first"]
            + view["hands"]["second"]
            + list(view["board"]["tiles"])
            + view["boneyard"]
        )
        # R2.1: hands, board and boneyard are always the 28 tiles, each once.
        assert sorted(everything) == sorted(t.notation() for t in TILES)
        assert len(view["hands"]["first"]) == view["hand_counts"]["first"]
    plays = [f for f in frames if " play " in f["label"]]
    assert plays
    assert all(f["view"]["board"]["tiles"] for f in plays)
