"""Crash safety at start-up (D5), ended matches served from the store once out of memory, and
the store's lists and imports — on the in-memory store and every SQL backend."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import replace
from typing import Any

import pytest

from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.audience import Audience, audience_of
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.ports import MatchMode, MatchStatus, MatchStore, StorageError
from spectacular_bid.service.record_document import parse_document
from spectacular_bid.service.records import records_for_import
from spectacular_bid.service.refusals import Rejection
from spectacular_bid.service.replay import Rebuilt, verify
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.web.room import Rooms, RoomSettings
from waiting import until

from .inproc import end, play, resign, seated_match

SETTINGS = ServiceSettings(grace_ms=600_000, join_timeout_ms=600_000, lag_threshold_ms=60_000)
"""No timer fires during a test, and a loaded machine's pauses are no timing failure."""


def rooms_of(service: MatchService) -> Rooms:
    """The web layer's rooms: what a socket or ``GET /api/matches/{id}`` is sent."""
    settings = service.settings
    return Rooms(service.now_ms, RoomSettings(settings.resend_limit, settings.subscriber_queue))


def state_message(rooms: Rooms, match: MatchActor | Rebuilt, audience: Audience) -> Any:
    message = json.loads(rooms.state_text(match, audience))
    assert message["type"] == "state"
    return message


async def test_unfinished_matches_end_as_timing_failures_at_start(store: MatchStore) -> None:
    service = MatchService(store, SETTINGS)
    await service.start()
    active, players = await seated_match(service)
    await play(service, active, players, random.Random(4), until=lambda a: a.version >= 10)
    spectator = state_message(rooms_of(service), active, Audience.SPECTATOR)
    assert spectator["match"]["clock"]["running"] is not None
    waiting = await service.create_match(players[0], MatchMode.OPEN)
    kept = await store.events(active.id)
    await service.stop()  # the process stops: nothing ends its matches

    restarted = MatchService(store, SETTINGS)
    await restarted.start()
    try:
        for match_id in (active.id, waiting.id):
            header = await store.match(match_id)
            assert header is not None
            assert header.status is MatchStatus.ABORTED
            assert (header.winner, header.reason, header.rated) == (None, "timing_failure", False)
            assert header.ended_at_ms is not None
            assert header.first_player == players[0].id  # the players stay who they were
            verify(parse_document(await restarted.record(match_id)))
        events = await store.events(active.id)
        assert events[: len(kept)] == kept  # every recorded event kept, unchanged
        (final,) = events[len(kept) :]
        assert final.version == len(kept) + 1
        assert final.command == {"type": "abort", "reason": "timing_failure"}
        assert [e["type"] for e in final.events] == ["round_ended", "match_ended", "deck_revealed"]
        (waiting_final,) = await store.events(waiting.id)
        assert waiting_final.events == [
            {"type": "match_ended", "winner": None, "reason": "timing_failure"}
        ]
        (round_,) = await store.rounds(active.id)
        assert round_.salt is not None
        assert round_.deck is not None

        assert (await store.match(active.id)).second_player == players[1].id  # type: ignore[union-attr]
        ended = await restarted.find(active.id)
        assert isinstance(ended, Rebuilt)
        assert audience_of(ended.state.seats, players[0].id) is Audience.FIRST
        shown = state_message(rooms_of(restarted), ended, Audience.FIRST)
        assert shown["version"] == len(kept) + 1
        assert [e["version"] for e in shown["log"]][-1] == len(kept) + 1  # the move list
        view = shown["match"]
        assert view["audience"] == "first"
        assert view["status"] == "aborted"
        assert view["result"] == {"winner": None, "reason": "timing_failure"}
        assert view["deck_reveal"]["salt"] == round_.salt
        with pytest.raises(Rejection, match="not_found"):
            restarted.get(active.id)  # not a live actor: nothing can be played
    finally:
        await restarted.stop()

    again = MatchService(store, SETTINGS)
    await again.start()  # nothing left to end: nothing is appended twice
    await again.stop()
    assert len(await store.events(active.id)) == len(kept) + 1


async def test_an_ending_stored_before_its_header_is_completed_at_start(
    store: MatchStore,
) -> None:
    service = MatchService(store, SETTINGS)
    await service.start()
    actor, players = await seated_match(service)
    await play(service, actor, players, random.Random(2), until=lambda a: a.version >= 6)
    await end(service, actor, players[0])
    await service.stop()
    header = await store.match(actor.id)
    assert header is not None
    assert header.status is MatchStatus.FINISHED
    # A crash after the ending version was durable but before its header was saved.
    await store.save_match(
        replace(header, status=MatchStatus.ACTIVE, winner=None, reason=None, rated=False)
    )
    count = len(await store.events(actor.id))

    restarted = MatchService(store, SETTINGS)
    await restarted.start()
    await restarted.stop()
    events = await store.events(actor.id)
    assert len(events) == count  # nothing appended
    # The result is the record's; the end is the time of its last version.
    assert await store.match(actor.id) == replace(header, ended_at_ms=events[-1].wall_ms)


async def test_a_finished_match_leaves_memory_and_is_served_from_the_store(
    store: MatchStore,
) -> None:
    service = MatchService(store, SETTINGS, finished_ttl_ms=50)
    await service.start()
    try:
        actor, players = await seated_match(service)
        await play(service, actor, players, random.Random(8), until=lambda a: a.version >= 8)
        rooms = rooms_of(service)
        watching = rooms.room(actor).subscribe(players[1], None, None)
        await end(service, actor, players[1])
        audiences = (Audience.FIRST, Audience.SECOND, Audience.SPECTATOR)
        live = {a: state_message(rooms, actor, a) for a in audiences}
        await until(lambda: not service.holds(actor.id), what="the finished actor left memory")
        with pytest.raises(Rejection):
            service.get(actor.id)
        # Its socket is told to reconnect (None), and nothing comes after that.
        while await asyncio.wait_for(watching.queue.get(), 30) is not None:
            pass
        assert watching.queue.empty()

        ended = await service.find(actor.id)
        assert isinstance(ended, Rebuilt)
        assert ended.version == actor.version
        assert ended.state.seats == actor.state.seats
        assert await service.find(actor.id) is ended  # kept for the next reader
        for audience in audiences:
            again = state_message(rooms, ended, audience)
            before = live[audience]
            assert again["version"] == before["version"] == actor.version
            assert again["log"] == before["log"], audience  # the same move list
            rebuilt, shown = again["match"], before["match"]
            assert rebuilt.pop("clock").items() >= {"running": None, "deadline_ms": None}.items()
            shown.pop("clock")
            shown["players"]["second"]["online"] = False  # nobody is connected to the store
            assert rebuilt == shown, audience
    finally:
        await service.stop()


async def test_ended_matches_are_listed_newest_first_page_by_page(store: MatchStore) -> None:
    clock = iter(range(1_800_000_000_000, 1_900_000_000_000, 1_000))
    service = MatchService(store, SETTINGS, wall_ms=lambda: next(clock))
    await service.start()
    try:
        ended = []
        for _ in range(5):
            actor, players = await seated_match(service, accounts=True)  # two accounts: rated
            await resign(service, actor, players[0])
            ended.append(actor.id)
        live, _ = await seated_match(service)
        pages: list[list[str]] = []
        cursor = None
        while True:
            page = await service.ended_matches(limit=2, before=cursor)
            if not page:
                break
            pages.append([m.id for m in page])
            cursor = page[-1].cursor
        assert [len(p) for p in pages] == [2, 2, 1]
        assert [i for p in pages for i in p] == ended[::-1]
        line = (await service.ended_matches(limit=1))[0]
        assert (line.status, line.winner, line.reason, line.rated) == (
            "finished",
            "second",
            "resignation",
            True,
        )
        assert (line.first, line.second, line.imported) == ("Ann", "Bo", False)
        assert await service.ended_matches([MatchStatus.ABORTED]) == []
        assert live.id not in {m.id for m in await service.ended_matches(limit=100)}
        with pytest.raises(ValueError, match="only ended matches"):
            await service.ended_matches([MatchStatus.ACTIVE])
    finally:
        await service.stop()


async def test_an_import_is_stored_whole_or_not_at_all(store: MatchStore) -> None:
    service = MatchService(store, SETTINGS)
    await service.start()
    try:
        actor, players = await seated_match(service)
        await play(service, actor, players, random.Random(6), until=lambda a: a.version >= 20)
        await end(service, actor, players[0])
        document = await service.record(actor.id)

        imported_id, verified = await service.import_record(document)
        assert imported_id != actor.id  # the id is taken here: a fresh one
        assert verified.versions == len(document["versions"])
        copy = parse_document(await service.record(imported_id))
        assert copy.versions == document["versions"]
        assert copy.match["imported"] is True
        assert copy.match["rated"] is False
        verify(copy)

        rows = records_for_import(parse_document(document), "broken", 0)
        twice = [*rows.rounds, rows.rounds[0]]  # a repeated round: the store refuses it
        with pytest.raises(StorageError):
            await store.import_match(rows.players, rows.match, twice, rows.events)
        assert await store.match("broken") is None
        assert await store.events("broken") == []
        assert await store.players([p.id for p in rows.players]) == {}
        with pytest.raises(StorageError):
            await store.import_match(rows.players, rows.match, [], rows.events[::-1])
        assert await store.match("broken") is None
    finally:
        await service.stop()
