"""The count of live matches that admission reads (PROTOCOL.md "When the server is busy"): kept as
matches start, end, leave memory or go to a peer, not counted over every actor at each request."""

from __future__ import annotations

from spectacular_bid.service.commands import ResignMatch
from spectacular_bid.service.guests import token_hash
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.ports import MatchMode, PlayerRecord
from waiting import until

from .helpers import ANN, BO, FIRST, Tables, fake_time_settings


async def test_a_match_counts_from_its_creation_until_it_ends(tables: Tables) -> None:
    table = await tables.open(fake_time_settings())
    service = table.service
    assert service.live_count() == 1
    other = await service.create_match(ANN, MatchMode.OPEN)
    assert service.live_count() == 2

    await table.act(FIRST, ResignMatch())

    assert not table.actor.is_live
    assert service.holds(table.actor.id)  # still in memory, no longer live
    assert service.live_count() == 1
    await service.let_go([other.id])  # handed to a peer
    assert service.live_count() == 0


async def test_an_evicted_match_is_not_counted_and_nothing_is_counted_twice() -> None:
    store = InMemoryStore()
    for player in (ANN, BO):
        await store.add_player(PlayerRecord(player.id, player.name, token_hash(player.id), 0))
    service = MatchService(store, fake_time_settings(), finished_ttl_ms=0)
    try:
        ended = await service.create_match(ANN, MatchMode.INVITE)
        waiting = await service.create_match(ANN, MatchMode.INVITE)
        await service.join(ended.id, BO)
        await ended.submit(ANN.id, ResignMatch(), ended.version, service.now_ms())
        await until(lambda: not service.holds(ended.id))  # evicted at once (TTL 0)
        assert service.live_count() == 1
        await ended.close()
        assert service.live_count() == 1
        assert service.holds(waiting.id)
    finally:
        await service.stop()
