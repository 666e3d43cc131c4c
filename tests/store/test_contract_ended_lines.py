"""The lobby's finished list through the storage port, the same on the in-memory reference store
and every SQL backend: ended matches with their seats' players, newest first, paged by the
archive's cursor, and the rating changes stored with a page of them."""

from __future__ import annotations

from dataclasses import replace

from spectacular_bid.service.match_ratings import rate
from spectacular_bid.service.ports import MatchStatus, MatchStore, SeatedMatch

from .factories import WALL_MS, event, match, player
from .test_contract_ratings import end_rated, ended, result


async def test_ended_matches_come_with_their_players_newest_first(any_store: MatchStore) -> None:
    for name in ("ann", "bob"):
        await any_store.add_player(player(name))
    live = match("live")
    alone = replace(
        match("alone", second=None),
        status=MatchStatus.ABORTED,
        reason="join_timeout",
        ended_at_ms=WALL_MS + 2_000,
    )
    won = ended("won", WALL_MS + 3_000)
    tie_a, tie_b = ended("tie-a", WALL_MS + 1_000), ended("tie-b", WALL_MS + 1_000)
    for header in (live, alone, won, tie_a, tie_b):
        await any_store.save_match(header)
        await any_store.append([event(header.id, 1)])
    await end_rated(any_store, won)

    now = await any_store.players(["p-ann", "p-bob"])
    rated_ann, rated_bob = now["p-ann"], now["p-bob"]
    assert rated_ann.rating is not None  # the players as stored now, rated by "won"
    page = await any_store.ended_with_players(10)
    assert page == [
        SeatedMatch(won, rated_ann, rated_bob),
        SeatedMatch(alone, rated_ann, None),
        SeatedMatch(tie_b, rated_ann, rated_bob),
        SeatedMatch(tie_a, rated_ann, rated_bob),
    ]
    first_two = await any_store.ended_with_players(2)
    assert [s.match.id for s in first_two] == ["won", "alone"]
    after = await any_store.ended_with_players(2, (WALL_MS + 1_000, "tie-b"))
    assert [s.match.id for s in after] == ["tie-a"]  # strictly before the cursor, tie by id
    assert await any_store.ended_with_players(2, (WALL_MS + 1_000, "tie-a")) == []
    assert [m.id for m in await any_store.ended_matches([*MatchStatus][2:], 10)] == [
        s.match.id for s in page
    ]  # the archive's order


async def test_a_pages_rating_changes_are_those_of_its_rated_matches(
    any_store: MatchStore,
) -> None:
    for name in ("ann", "bob"):
        await any_store.add_player(player(name))
    rated, casual = ended("rated", WALL_MS + 1_000), ended("casual", WALL_MS + 2_000)
    casual = replace(casual, rated=False)
    for header in (rated, casual):
        await any_store.save_match(match(header.id))
        await any_store.append([event(header.id, 1)])
    await end_rated(any_store, rated)
    await any_store.append([event(casual.id, 2)], match=casual)
    moved = rate(result(rated), (None, None), (None, None))
    found = await any_store.rating_changes_of(["rated", "casual", "unknown"])
    assert sorted(found, key=lambda c: c.player_id) == sorted(moved, key=lambda c: c.player_id)
    assert await any_store.rating_changes_of(["casual"]) == []
    assert await any_store.rating_changes_of([]) == []
