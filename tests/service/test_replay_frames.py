"""Replay frames (D4): the server re-runs an ended match for the viewer."""

from __future__ import annotations

import random

import pytest

from spectacular_bid.rules.notation import tile_text
from spectacular_bid.rules.tiles import TILES
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.web.replay_frames import replay_frames

from .helpers import FakeTime, Tables, fake_time_settings


async def test_d4_frames_follow_every_version_with_both_hands(tables: Tables) -> None:
    time = FakeTime()
    table = await tables.open(fake_time_settings(fixed_deck_seed=5), time_source=time)
    service, actor = table.service, table.actor
    with pytest.raises(Rejection) as live:
        await service.document(actor.id)
    assert live.value.code is ErrorCode.WRONG_PHASE  # never while the match is live (D4)

    await table.play_randomly(random.Random(11), until=lambda _: False)
    replay = replay_frames(await service.document(actor.id))

    frames = replay["frames"]
    assert [f["version"] for f in frames] == list(range(actor.version + 1))
    final = frames[-1]["view"]
    assert final["balances"] == {
        "first": actor.state.match.balances[0],
        "second": actor.state.match.balances[1],
    }
    result = actor.state.match.result
    assert result is not None
    assert final["result"]["reason"] == result.reason.value
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
        assert sorted(everything) == sorted(tile_text(t) for t in TILES)
        assert len(view["hands"]["first"]) == view["hand_counts"]["first"]
    plays = [f for f in frames if " play " in f["label"]]
    assert plays
    assert all(f["view"]["board"]["tiles"] for f in plays)
