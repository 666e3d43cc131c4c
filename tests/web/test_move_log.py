"""The room's move list (memory under a long soak): every audience reads exactly the
events it read when the log was kept whole, across the compressed chunks and the open tail, in
a fraction of the memory; and a room made late still has every version from before it."""

from __future__ import annotations

import pytest

from spectacular_bid.service.audience import Audience
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.ports import MatchMode
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.web.frames import log_text, version_frames
from spectacular_bid.web.move_log import CHUNK, MoveLog
from spectacular_bid.web.room import Rooms

from .test_messages import play_out


@pytest.mark.parametrize("mode", [MatchMode.INVITE, MatchMode.SHARED])
@pytest.mark.parametrize("seed", [8, 9, 11, 12])
async def test_every_audience_reads_the_whole_log_as_before(mode: MatchMode, seed: int) -> None:
    service = MatchService(InMemoryStore(), ServiceSettings(fixed_deck_seed=seed))
    await service.start()
    try:
        ann, _ = await service.guests.create("Ann", 0)
        bob, _ = await service.guests.create("Bob", 0)
        actor = await service.create_match(ann, mode)
        if mode is MatchMode.INVITE:
            await service.join(actor.id, bob)
        await play_out(actor, [ann, bob] if mode is MatchMode.INVITE else [ann, ann], service, seed)
        entries = actor.take_log()
        assert len(entries) > 2 * CHUNK, "the match must span several chunks"
        assert actor.take_log() == []  # taken once: the actor keeps it no more
        moves = MoveLog()
        for count, entry in enumerate(entries, 1):
            moves.add(version_frames(entry))
            if count in (1, CHUNK - 1, CHUNK, CHUNK + 1, len(entries)):
                for audience in Audience:
                    assert moves.text(audience) == log_text(entries[:count], audience)
        assert len(moves) == len(entries)
        whole = sum(len(log_text(entries, a)) for a in (Audience.FIRST, Audience.SECOND))
        whole += len(log_text(entries, Audience.SPECTATOR))
        kept = sum(len(b) for chunk in moves._chunks for b in chunk)
        assert kept < whole / 5
    finally:
        await service.stop()


async def test_a_room_made_late_has_every_version_and_the_actor_then_keeps_none() -> None:
    service = MatchService(InMemoryStore(), ServiceSettings(fixed_deck_seed=5))
    await service.start()
    try:
        ann, _ = await service.guests.create("Ann", 0)
        bob, _ = await service.guests.create("Bob", 0)
        actor = await service.create_match(ann, MatchMode.INVITE)
        await service.join(actor.id, bob)
        await play_out(actor, [ann, bob], service, 5)
        rooms = Rooms(service.now_ms)
        stored = await service.store.events(actor.id)
        room = rooms.room(actor)
        assert len(room.moves) == len(stored) == actor.version
        assert actor.take_log() == []
        state = rooms.state_text(actor, Audience.SPECTATOR)
        assert state.count('"version":') > actor.version  # every logged event, and the state's
    finally:
        await service.stop()
