"""A slow socket never slows a match (PROTOCOL.md "Limits and close codes"): its bounded queue
overflows, it is dropped, and everyone else carries on."""

from __future__ import annotations

import json
import random

from spectacular_bid.rules.seats import BySeat
from spectacular_bid.service.audience import Audience

from .helpers import ANN, BO, FakeTime, Tables, drain, fake_time_settings, messages

LIMIT = 5


async def test_a_subscriber_that_never_reads_is_dropped_and_the_match_goes_on(
    tables: Tables,
) -> None:
    table = await tables.open(
        fake_time_settings(fixed_deck_seed=5, subscriber_queue=LIMIT), time_source=FakeTime()
    )
    actor = table.actor
    await table.start_round()
    slow = table.subscribe(None)  # queued: its state, the presence broadcast
    players = [table.subscribe(ANN), table.subscribe(BO)]
    assert slow.queue.qsize() == 4  # and the two players' presence broadcasts
    assert not slow.dropped
    for sub in players:
        messages(sub)
    rng = random.Random(4)
    start = actor.version

    async def one_command() -> None:
        version = actor.version
        await table.play_randomly(rng, until=lambda s: s.version > version)
        for sub in players:
            assert [m["version"] for m in messages(sub)] == [actor.version]

    await one_command()
    assert slow.queue.qsize() == LIMIT
    assert not slow.dropped
    await one_command()  # the sixth message finds the queue full
    assert slow.dropped
    assert slow.queue.qsize() == LIMIT + 1
    for _ in range(20):
        await one_command()
    assert actor.version == start + 22
    assert all(not sub.dropped for sub in players)
    assert table.room.presence().online == BySeat(True, True)
    kept = drain(slow)
    assert kept[-1] is None  # the socket's sender is told to stop
    assert len(kept) == LIMIT + 1
    texts = [m for m in kept[:-1] if m is not None]
    versions = [json.loads(m)["version"] for m in texts]
    assert versions == [start, start, start, start, start + 1]
    assert slow.audience is Audience.SPECTATOR
