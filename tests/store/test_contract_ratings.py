"""Ratings, results and a player's matches through the storage port (PROTOCOL.md "Players: profiles,
ratings and archives"), the same on the in-memory reference store and every SQL backend: a rated
ending rates both players as
:func:`~spectacular_bid.service.match_ratings.rate` says, from their ratings as stored then, in
the same transaction as its events, so a refused ending rates no one."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import replace

import pytest

from spectacular_bid.service.match_ratings import rate
from spectacular_bid.service.ports import (
    MatchRecord,
    MatchStatus,
    MatchStore,
    PlayerRecord,
    RatedResult,
    RatingChange,
    SessionRecord,
    StorageError,
)
from spectacular_bid.service.ratings import RATING_PERIOD_MS, Rating
from spectacular_bid.store.repository import SqlStore

from .factories import WALL_MS, event, match, player

ENDED = [MatchStatus.FINISHED, MatchStatus.ABORTED]
ARGON = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"


def ended(
    match_id: str,
    at_ms: int,
    *,
    first: str = "p-ann",
    second: str = "p-bob",
    winner: str | None = "first",
    status: MatchStatus = MatchStatus.FINISHED,
) -> MatchRecord:
    """A header of a match between two accounts that ended at ``at_ms``."""
    return replace(
        match(match_id, first=first, second=second),
        status=status,
        winner=winner,
        reason="resignation" if winner else "abandoned",
        rated=winner is not None,
        ended_at_ms=at_ms,
        first_account=True,
        second_account=True,
    )


def result(header: MatchRecord) -> RatedResult:
    assert header.first_player is not None
    assert header.second_player is not None
    assert header.ended_at_ms is not None
    return RatedResult(
        header.id,
        header.first_player,
        header.second_player,
        header.winner == "first",
        header.ended_at_ms,
    )


async def end_rated(store: MatchStore, header: MatchRecord, version: int = 2) -> None:
    """Store a rated ending as the service does: the last version, the header and the result."""
    await store.append([event(header.id, version)], match=header, rated=result(header))


async def seeded(store: MatchStore, *names: str) -> dict[str, PlayerRecord]:
    """The players, and for each of ``m1``…``m9`` an active match of Ann and Bob at version 1."""
    players = {name: player(name) for name in names}
    for made in players.values():
        await store.add_player(made)
    for number in range(1, 10):
        await store.save_match(match(f"m{number}"))
        await store.append([event(f"m{number}", 1)])
    return players


async def stored(store: MatchStore, player_id: str) -> PlayerRecord:
    return (await store.players([player_id]))[player_id]


async def test_a_rated_ending_rates_both_players_as_rate_says(any_store: MatchStore) -> None:
    await seeded(any_store, "ann", "bob")
    header = ended("m1", WALL_MS + 60_000)
    await end_rated(any_store, header)
    ann_change, bob_change = rate(result(header), (None, None), (None, None))
    assert ann_change.before == bob_change.before == Rating()
    assert ann_change.after.value > 1500 > bob_change.after.value
    ann, bob = await stored(any_store, "p-ann"), await stored(any_store, "p-bob")
    assert (ann.rating, ann.rated_at_ms) == (ann_change.after, WALL_MS + 60_000)
    assert (bob.rating, bob.rated_at_ms) == (bob_change.after, WALL_MS + 60_000)
    assert await any_store.rating_changes("p-ann", 10) == [ann_change]
    assert await any_store.rating_changes("p-bob", 10) == [bob_change]
    assert await any_store.match("m1") == header

    # Three idle days later: the next match starts from the stored ratings, aged.
    later = ended("m2", WALL_MS + 3 * RATING_PERIOD_MS + 60_000, winner="second")
    await end_rated(any_store, later)
    again = rate(result(later), (ann.rating, ann.rated_at_ms), (bob.rating, bob.rated_at_ms))
    assert again[0].before.deviation > ann_change.after.deviation  # aged
    assert await any_store.rating_changes("p-ann", 10) == [ann_change, again[0]]
    assert (await stored(any_store, "p-bob")).rating == again[1].after


async def test_two_endings_in_one_batch_rate_one_after_the_other(any_store: MatchStore) -> None:
    await seeded(any_store, "ann", "bob", "cid")
    first = ended("m1", WALL_MS + 60_000)
    second = ended("m2", WALL_MS + 61_000, first="p-cid", second="p-ann")
    batches = any_store.writer.batches if isinstance(any_store, SqlStore) else 0
    await asyncio.gather(end_rated(any_store, first), end_rated(any_store, second))
    if isinstance(any_store, SqlStore):
        assert any_store.writer.batches == batches + 1  # one transaction for both
    one = rate(result(first), (None, None), (None, None))
    two = rate(result(second), (None, None), (one[0].after, first.ended_at_ms))
    assert await any_store.rating_changes("p-ann", 10) == [one[0], two[1]]
    assert (await stored(any_store, "p-ann")).rating == two[1].after
    assert (await stored(any_store, "p-bob")).rating == one[1].after
    assert (await stored(any_store, "p-cid")).rating == two[0].after


async def test_an_ending_whose_events_are_refused_rates_no_one(any_store: MatchStore) -> None:
    await seeded(any_store, "ann", "bob")
    header = ended("m1", WALL_MS + 60_000)
    with pytest.raises(StorageError):
        await end_rated(any_store, header, version=1)  # version 1 is stored: a duplicate
    assert await any_store.rating_changes("p-ann", 10) == []
    assert (await stored(any_store, "p-ann")).rating is None
    assert (await stored(any_store, "p-bob")).rated_at_ms is None
    assert await any_store.match("m1") == match("m1")


async def test_a_refused_ending_in_a_batch_leaves_the_others_rated(any_store: MatchStore) -> None:
    """The batch fails, is isolated write by write, and the refused write's rating goes with
    its savepoint while the others are rated in queue order."""
    await seeded(any_store, "ann", "bob")
    one, bad, three = (ended(f"m{n}", WALL_MS + n * 1_000) for n in (1, 2, 3))
    outcomes = await asyncio.gather(
        end_rated(any_store, one),
        end_rated(any_store, bad, version=1),
        end_rated(any_store, three),
        return_exceptions=True,
    )
    assert outcomes[0] is None
    assert outcomes[2] is None
    assert isinstance(outcomes[1], StorageError)
    first = rate(result(one), (None, None), (None, None))
    third = rate(
        result(three), (first[0].after, one.ended_at_ms), (first[1].after, one.ended_at_ms)
    )
    assert await any_store.rating_changes("p-bob", 10) == [first[1], third[1]]
    assert (await stored(any_store, "p-ann")).rating == third[0].after
    assert (await any_store.match("m2")) == match("m2")


async def test_a_player_is_not_rated_against_itself(any_store: MatchStore) -> None:
    await seeded(any_store, "ann", "bob")
    shared = ended("m1", WALL_MS + 60_000, second="p-ann")
    with pytest.raises(StorageError):
        await end_rated(any_store, shared)
    assert await any_store.rating_changes("p-ann", 10) == []
    assert await any_store.events("m1") == [event("m1", 1)]


async def test_a_player_never_rated_reads_no_rating_on_every_read(any_store: MatchStore) -> None:
    players = await seeded(any_store, "ann", "bob", "cid")
    await any_store.claim_account("p-cid", "cid", ARGON, "r" * 64, _session("p-cid"))
    await end_rated(any_store, ended("m1", WALL_MS + 60_000))
    cid = await any_store.player_by_name_key("cid")
    assert cid is not None
    assert (cid.rating, cid.rated_at_ms) == (None, None)
    assert await any_store.player_by_token_hash("r" * 64) == cid
    assert (await stored(any_store, "p-cid")) == cid
    assert await any_store.rating_changes("p-cid", 10) == []
    ann = await any_store.player_by_token_hash(players["ann"].token_hash)
    assert ann is not None
    assert ann.rating is not None
    assert ann == await stored(any_store, "p-ann")


async def test_a_rated_account_keeps_its_rating_through_every_read(any_store: MatchStore) -> None:
    await seeded(any_store, "ann", "bob")
    await end_rated(any_store, ended("m1", WALL_MS + 60_000))
    await any_store.claim_account("p-ann", "ann", ARGON, "r" * 64, _session("p-ann"))
    await any_store.set_password("p-ann", ARGON + "x", keep=None)
    ann = await any_store.player_by_name_key("ann")
    expected, _ = rate(result(ended("m1", WALL_MS + 60_000)), (None, None), (None, None))
    assert ann is not None
    assert (ann.rating, ann.rated_at_ms) == (expected.after, WALL_MS + 60_000)
    assert await any_store.player_by_token_hash("r" * 64) == ann


async def test_a_player_added_with_a_rating_keeps_it(any_store: MatchStore) -> None:
    rated = replace(player("ann"), rating=Rating(1712.25, 61.5, 0.0599), rated_at_ms=WALL_MS)
    await any_store.add_player(rated)
    assert await any_store.players([rated.id]) == {rated.id: rated}


async def test_account_flags_round_trip(any_store: MatchStore) -> None:
    await seeded(any_store, "ann", "bob")
    live = replace(match("m1"), first_account=True)
    await any_store.save_match(live)
    assert await any_store.match("m1") == live
    assert live in await any_store.unfinished_matches()
    over = replace(ended("m1", WALL_MS + 60_000), first_account=False)
    await any_store.append([event("m1", 2)], match=over)
    assert await any_store.match("m1") == over
    assert await any_store.ended_matches(ENDED, 10) == [over]


async def test_a_players_ended_matches_page_by_page(any_store: MatchStore) -> None:
    await seeded(any_store, "ann", "bob", "cid")
    headers = [
        ended("m1", WALL_MS + 1_000),
        ended("m2", WALL_MS + 2_000, first="p-cid", second="p-bob"),
        ended("m3", WALL_MS + 3_000, first="p-bob", second="p-cid", winner=None),
        ended("m4", WALL_MS + 3_000, first="p-cid", second="p-ann"),  # same end as m3
        ended("m5", WALL_MS + 5_000, status=MatchStatus.ABORTED, winner=None),
        replace(match("m6", first="p-cid", second=None), status=MatchStatus.WAITING),
    ]
    for header in headers:
        await any_store.save_match(header)
    assert [m.id for m in await any_store.ended_matches(ENDED, 10, player="p-cid")] == [
        "m4",
        "m3",
        "m2",
    ]
    page = await any_store.ended_matches(ENDED, 2, player="p-cid")
    assert page == [headers[3], headers[2]]
    cursor = (WALL_MS + 3_000, "m3")
    assert await any_store.ended_matches(ENDED, 2, cursor, player="p-cid") == [headers[1]]
    assert [m.id for m in await any_store.ended_matches(ENDED, 10, player="p-ann")] == [
        "m5",
        "m4",
        "m1",
    ]
    finished = await any_store.ended_matches([MatchStatus.FINISHED], 10, player="p-ann")
    assert [m.id for m in finished] == ["m4", "m1"]
    assert await any_store.ended_matches(ENDED, 10, player="p-nobody") == []


async def test_results_count_the_winning_and_losing_seats(any_store: MatchStore) -> None:
    await seeded(any_store, "ann", "bob", "cid")
    for header in (
        ended("m1", WALL_MS + 1),  # Ann wins from the first seat
        ended("m2", WALL_MS + 2, first="p-bob", second="p-ann", winner="second"),  # wins
        ended("m3", WALL_MS + 3, first="p-cid", second="p-ann"),  # Ann loses
        ended("m4", WALL_MS + 4, first="p-ann", second="p-ann"),  # shared device: neither
        ended("m5", WALL_MS + 5, status=MatchStatus.ABORTED, winner=None),  # neither
        ended("m6", WALL_MS + 6, first="p-bob", second="p-cid", winner="second"),  # not hers
    ):
        await any_store.save_match(header)
    assert await any_store.results("p-ann") == (2, 1)
    assert await any_store.results("p-bob") == (0, 3)
    assert await any_store.results("p-cid") == (2, 0)
    assert await any_store.results("p-nobody") == (0, 0)


async def test_rating_changes_are_the_latest_oldest_first(any_store: MatchStore) -> None:
    await seeded(any_store, "ann", "bob")
    changes: list[RatingChange] = []
    for number in range(1, 5):
        header = ended(f"m{number}", WALL_MS + number * 60_000, winner="first")
        await end_rated(any_store, header)
        changes.extend(await any_store.rating_changes("p-ann", 1))
    assert [c.match_id for c in changes] == ["m1", "m2", "m3", "m4"]
    assert await any_store.rating_changes("p-ann", 10) == changes
    assert await any_store.rating_changes("p-ann", 2) == changes[2:]
    assert [c.after.value for c in changes] == sorted(c.after.value for c in changes)
    assert all(a.after == b.before for a, b in itertools.pairwise(changes))


def _session(player_id: str) -> SessionRecord:
    return SessionRecord(f"s-{player_id}".ljust(64, "0"), player_id, WALL_MS, WALL_MS)
