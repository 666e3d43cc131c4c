"""The storage port's behaviour, the same on the in-memory reference store and on every SQL
backend: whatever goes in comes back out exactly, and refused writes change nothing."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from spectacular_bid.service.ports import MatchStatus, MatchStore, RoundRecord, StorageError
from spectacular_bid.store.repository import SqlStore

from .factories import WALL_MS, event, match, player, seed


async def test_players_round_trip(any_store: MatchStore) -> None:
    ann, bob = player("ann"), player("bob")
    await any_store.add_player(ann)
    await any_store.add_player(bob)
    assert await any_store.player_by_token_hash(ann.token_hash) == ann
    assert await any_store.player_by_token_hash("0" * 64) is None
    assert await any_store.players([bob.id, "p-nobody", ann.id]) == {bob.id: bob, ann.id: ann}
    assert list(await any_store.players([bob.id, ann.id])) == [bob.id, ann.id]
    assert await any_store.players([]) == {}


async def test_match_is_inserted_then_updated(any_store: MatchStore) -> None:
    await seed(any_store)
    waiting = match("m1", second=None, status=MatchStatus.WAITING)
    await any_store.save_match(waiting)
    assert await any_store.match("m1") == waiting
    finished = replace(
        waiting,
        second_player="p-bob",
        status=MatchStatus.FINISHED,
        winner="second",
        reason="balance",
        rated=True,
        ended_at_ms=WALL_MS + 60_000,
    )
    await any_store.save_match(finished)
    assert await any_store.match("m1") == finished
    assert await any_store.match("m-unknown") is None


async def test_events_round_trip_in_order(any_store: MatchStore) -> None:
    await seed(any_store, "m1", "m2")
    await any_store.append([event("m1", 1), event("m1", 2)])
    await any_store.append([event("m2", 1)])
    await any_store.append([event("m1", 3, command={"type": "deal", "deck": ["0-0", "6-6"]})])
    assert await any_store.events("m1") == [
        event("m1", 1),
        event("m1", 2),
        event("m1", 3, command={"type": "deal", "deck": ["0-0", "6-6"]}),
    ]
    assert [e.version for e in await any_store.events("m1", since_version=1)] == [2, 3]
    assert await any_store.events("m1", since_version=3) == []
    assert await any_store.events("m2") == [event("m2", 1)]
    assert await any_store.events("m-unknown") == []


async def test_empty_append_stores_nothing(any_store: MatchStore) -> None:
    await seed(any_store, "m1")
    await any_store.append([])
    assert await any_store.events("m1") == []


async def test_a_stored_version_is_refused_and_nothing_of_that_call_is_kept(
    any_store: MatchStore,
) -> None:
    await seed(any_store, "m1")
    await any_store.append([event("m1", 1), event("m1", 2)])
    with pytest.raises(StorageError, match="m1"):
        await any_store.append([event("m1", 2, command={"type": "other"}), event("m1", 3)])
    assert await any_store.events("m1") == [event("m1", 1), event("m1", 2)]
    await any_store.append([event("m1", 3)])
    assert [e.version for e in await any_store.events("m1")] == [1, 2, 3]


async def test_round_commitment_then_reveal(any_store: MatchStore) -> None:
    await seed(any_store, "m1")
    commitment = "a" * 64
    await any_store.save_round("m1", 1, commitment)
    await any_store.save_round("m1", 2, "b" * 64)
    assert await any_store.rounds("m1") == [
        RoundRecord("m1", 1, commitment),
        RoundRecord("m1", 2, "b" * 64),
    ]
    deck = ["0-0", "0-1", "6-6"]
    await any_store.save_round("m1", 1, commitment, salt="5a17", deck=deck)
    await any_store.save_round("m1", 1, commitment)  # None keeps what is stored
    assert (await any_store.rounds("m1"))[0] == RoundRecord("m1", 1, commitment, "5a17", deck)
    assert await any_store.rounds("m-unknown") == []


async def test_a_round_commitment_never_changes(any_store: MatchStore) -> None:
    await seed(any_store, "m1")
    await any_store.save_round("m1", 1, "a" * 64)
    with pytest.raises(StorageError, match=r"committed to a+, not c+"):
        await any_store.save_round("m1", 1, "c" * 64, salt="5a17", deck=["0-0"])
    assert await any_store.rounds("m1") == [RoundRecord("m1", 1, "a" * 64)]


async def test_a_version_with_its_round_row_and_final_header_is_stored_whole(
    any_store: MatchStore,
) -> None:
    await seed(any_store, "m1")
    await any_store.append([event("m1", 1)], rounds=[RoundRecord("m1", 1, "a" * 64)])
    assert await any_store.rounds("m1") == [RoundRecord("m1", 1, "a" * 64)]
    live = await any_store.match("m1")
    assert live is not None
    assert live.status is MatchStatus.ACTIVE
    ended = replace(live, status=MatchStatus.FINISHED, winner="first", reason="balance")
    reveal = RoundRecord("m1", 1, "a" * 64, salt="5a17", deck=["0-0", "6-6"])
    await any_store.append([event("m1", 2)], rounds=[reveal], match=ended)
    assert [e.version for e in await any_store.events("m1")] == [1, 2]
    assert await any_store.rounds("m1") == [reveal]
    assert await any_store.match("m1") == ended


async def test_a_refused_round_row_keeps_nothing_of_its_version(any_store: MatchStore) -> None:
    """The events, the round row and the header of one call are stored together or not at all
    (durability order): a changed commitment refuses the whole version."""
    await seed(any_store, "m1")
    await any_store.append([event("m1", 1)], rounds=[RoundRecord("m1", 1, "a" * 64)])
    live = await any_store.match("m1")
    assert live is not None
    ended = replace(live, status=MatchStatus.FINISHED, winner="first", reason="balance")
    forged = RoundRecord("m1", 1, "c" * 64, salt="5a17", deck=["0-0"])
    with pytest.raises(StorageError, match=r"committed to a+, not c+"):
        await any_store.append([event("m1", 2)], rounds=[forged], match=ended)
    assert [e.version for e in await any_store.events("m1")] == [1]
    assert await any_store.rounds("m1") == [RoundRecord("m1", 1, "a" * 64)]
    assert await any_store.match("m1") == live


async def test_round_rows_of_one_batch_are_saved_together(
    any_store: MatchStore, caplog: pytest.LogCaptureFixture
) -> None:
    """A round dealt and ended within one group commit, and several matches' rounds at once,
    are all saved in that commit (not write by write, after a failed one); a changed commitment
    in the same batch is refused to its own caller only."""
    await seed(any_store, "m1", "m2")
    deal = RoundRecord("m1", 1, "a" * 64)
    reveal = RoundRecord("m1", 1, "a" * 64, salt="5a17", deck=["0-0", "6-6"])
    other = RoundRecord("m2", 1, "b" * 64)
    batches = any_store.writer.batches if isinstance(any_store, SqlStore) else 0
    await asyncio.gather(
        any_store.append([event("m1", 1)], rounds=[deal]),
        any_store.append([event("m2", 1)], rounds=[other]),
        any_store.append([event("m1", 2)], rounds=[reveal]),
    )
    if isinstance(any_store, SqlStore):
        assert any_store.writer.batches == batches + 1  # one transaction for the three
    assert "isolating" not in caplog.text
    assert await any_store.rounds("m1") == [reveal]
    assert await any_store.rounds("m2") == [other]

    forged = RoundRecord("m2", 1, "c" * 64, salt="5a17", deck=["0-0"])
    results = await asyncio.gather(
        any_store.append([event("m1", 3)], rounds=[RoundRecord("m1", 2, "d" * 64)]),
        any_store.append([event("m2", 2)], rounds=[forged]),
        return_exceptions=True,
    )
    assert results[0] is None
    assert isinstance(results[1], StorageError)
    assert "committed to b" in str(results[1])
    assert await any_store.rounds("m1") == [reveal, RoundRecord("m1", 2, "d" * 64)]
    assert await any_store.rounds("m2") == [other]
    assert [e.version for e in await any_store.events("m2")] == [1]
