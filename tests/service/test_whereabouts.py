"""Where a socket's or a request's match is (PROTOCOL.md "Several servers on one database"): at
hand, ended in the store, or live on a peer, with as few queries as that takes."""

from __future__ import annotations

import pytest

from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.commands import ResignMatch
from spectacular_bid.service.guests import token_hash
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.ports import MatchMode, MatchRecord, PlayerRecord
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.replay import Rebuilt
from spectacular_bid.service.whereabouts import Elsewhere, locate
from waiting import until

from .helpers import ANN, BO, fake_time_settings

PEER = "peer-host:4242"


class SharedStore(InMemoryStore):
    """One process's store as a peer shares it: ``on_peer`` are live on ``PEER``; the queries
    that reach the database are counted."""

    def __init__(self) -> None:
        super().__init__()
        self.on_peer: set[str] = set()
        self.queries: list[str] = []

    async def owner_of(self, match_id: str) -> str | None:
        self.queries.append(f"owner_of {match_id}")
        return PEER if match_id in self.on_peer else None

    async def match(self, match_id: str) -> MatchRecord | None:
        self.queries.append(f"match {match_id}")
        return await super().match(match_id)


@pytest.fixture
async def service() -> MatchService:
    store = SharedStore()
    for player in (ANN, BO):
        await store.add_player(PlayerRecord(player.id, player.name, token_hash(player.id), 0))
    return MatchService(store, fake_time_settings(), finished_ttl_ms=0)


def _queries(service: MatchService) -> list[str]:
    store = service.store
    assert isinstance(store, SharedStore)
    found, store.queries = store.queries, []
    return found


async def test_a_match_live_on_a_peer_costs_one_query(service: MatchService) -> None:
    store = service.store
    assert isinstance(store, SharedStore)
    store.on_peer.add("m-peer")
    try:
        assert await locate(service, "m-peer") == Elsewhere(PEER)
        assert _queries(service) == ["owner_of m-peer"]
        with pytest.raises(Rejection) as refused:  # a process that does not relay
            await locate(service, "m-peer", relaying=False)
        assert refused.value.code is ErrorCode.NOT_FOUND
    finally:
        await service.stop()


async def test_a_match_at_hand_costs_none_and_an_ended_one_is_read_once(
    service: MatchService,
) -> None:
    try:
        live = await service.create_match(ANN, MatchMode.INVITE)
        assert await locate(service, live.id) is live
        assert _queries(service) == []

        await service.join(live.id, BO)
        await live.submit(ANN.id, ResignMatch(), live.version, service.now_ms())
        await until(lambda: not service.holds(live.id))  # evicted at once (TTL 0)
        _queries(service)
        ended = await locate(service, live.id)
        assert isinstance(ended, Rebuilt)
        assert not isinstance(ended, MatchActor)
        assert _queries(service) == [f"owner_of {live.id}", f"match {live.id}"]
        assert await locate(service, live.id) is ended
        assert _queries(service) == []
    finally:
        await service.stop()


async def test_an_unknown_match_is_not_found(service: MatchService) -> None:
    try:
        with pytest.raises(Rejection) as refused:
            await locate(service, "m-nowhere")
        assert refused.value.code is ErrorCode.NOT_FOUND
    finally:
        await service.stop()
