"""The guests' token cache stays bounded (a long-running server must not keep every
guest it ever saw), and a guest dropped from it is still found in the store."""

from __future__ import annotations

import pytest

from spectacular_bid.service.guests import Guests
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.ports import PlayerRecord


async def test_the_cache_keeps_the_most_recently_seen_guests() -> None:
    guests = Guests(InMemoryStore(), cache_limit=3)
    made = [await guests.create(f"p{i}", 0) for i in range(5)]
    assert len(guests) == 3
    first, first_token = made[0]
    assert await guests.resolve(first_token) == first  # dropped, read from the store again
    assert len(guests) == 3
    for player, token in made:
        assert await guests.resolve(token) == player
    assert len(guests) == 3
    assert await guests.resolve("no such token") is None
    assert len(guests) == 3


async def test_a_guest_in_use_stays_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    store = InMemoryStore()
    guests = Guests(store, cache_limit=2)
    ann, ann_token = await guests.create("Ann", 0)
    await guests.create("Bo", 0)
    assert await guests.resolve(ann_token) == ann  # Ann is now the most recent
    await guests.create("Cy", 0)  # drops Bo, not Ann
    lookups = []
    original = store.player_by_token_hash

    async def counted(digest: str) -> PlayerRecord | None:
        lookups.append(digest)
        return await original(digest)

    monkeypatch.setattr(store, "player_by_token_hash", counted)
    assert await guests.resolve(ann_token) == ann
    assert lookups == []


def test_a_cache_needs_room() -> None:
    with pytest.raises(ValueError, match="cache_limit"):
        Guests(InMemoryStore(), cache_limit=0)
