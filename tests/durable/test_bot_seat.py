"""The computer's seat played through the match service (PROTOCOL.md "POST /api/matches"), on every
store.

A person in the first seat plays random legal commands through the actor; the computer answers
in the second seat through the same service. Every level plays a whole match; the bot is never
refused (it never acts out of turn or illegally), the events it decided from are exactly what a
socket of its seat is sent (its move list), and they pass the hidden-tile scan (R2.2, D4).
"""

from __future__ import annotations

import asyncio
import json
import random
import time

import pytest

from live.sight import SightCheck, revealed_decks
from spectacular_bid.rules.match import Phase
from spectacular_bid.rules.seats import Seat
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.audience import Audience
from spectacular_bid.service.codec import event_json
from spectacular_bid.service.commands import PlayerCommand, ResignMatch, Start, move_of
from spectacular_bid.service.computer import computer, level_of
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.ports import MatchMode, MatchStatus, MatchStore, Player
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.settings import BotSettings, ServiceSettings
from spectacular_bid.web.frames import log_text

DECK_SEED = 11
SETTINGS = ServiceSettings(
    grace_ms=600_000,
    join_timeout_ms=600_000,
    lag_threshold_ms=60_000,
    fixed_deck_seed=DECK_SEED,
    bots=BotSettings(min_delay_ms=0, budget_scale=0.05, matches_per_worker=2),
)
"""No timer fires during a test; the bots answer at once and think a twentieth of their time."""
DECISIONS = (Phase.AUCTION, Phase.OPENING, Phase.PLAYING)


async def play_the_bot(
    service: MatchService,
    actor: MatchActor,
    person: Player,
    rng: random.Random,
    until_version: int | None = None,
) -> int:
    """The person's random legal commands until the match ends (or reaches ``until_version``);
    returns how many it sent."""
    sent = 0
    deadline = time.monotonic() + 120
    while actor.state.is_live and (until_version is None or actor.version < until_version):
        assert time.monotonic() < deadline, f"the match stalled at version {actor.version}"
        state = actor.state
        command: PlayerCommand
        if state.match.phase is Phase.AWAITING_DEAL and Seat.FIRST not in state.ready:
            command = Start()
        elif state.match.phase in DECISIONS and state.match.to_act is Seat.FIRST:
            command = move_of(rng.choice(state.match.legal_actions()))
        else:
            await asyncio.sleep(0.002)
            continue
        await actor.submit(person.id, command, actor.version, service.now_ms())
        sent += 1
    return sent


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
async def test_a_match_against_each_level_ends_with_a_result(store: MatchStore, level: int) -> None:
    service = MatchService(store, SETTINGS)
    await service.start()
    try:
        ann, _ = await service.guests.create("Ann", service.wall_ms())
        actor = await service.create_match(ann, MatchMode.BOT, level=level)
        bot = service.bots.of(actor.id)
        assert bot is not None
        assert bot.player == computer(level)
        assert actor.state.seats == (ann, computer(level))
        assert actor.state.status.value == "active"  # the computer joined at once

        await play_the_bot(service, actor, ann, random.Random(level))
        assert actor.state.status is MatchStatus.FINISHED
        result = actor.state.match.result
        assert result is not None
        assert result.winner is not None
        assert bot.sent > 0
        assert bot.refused == 0

        log = actor.take_log()
        seat_log = json.loads(f"[{log_text(log, Audience.SECOND)}]")
        service_kinds = {"seat_taken", "ready", "revealed", "deck_committed", "deck_revealed"}
        engine_part = [
            {k: v for k, v in e.items() if k != "version"}
            for e in seat_log
            if e["type"] not in service_kinds
        ]
        assert [event_json(e) for e in bot.seen] == engine_part  # its seat's view, no more
        frame = {"type": "update", "events": seat_log}
        decks = revealed_decks([frame], DECK_SEED)
        assert SightCheck("second", decks).check_all([frame]) == 1

        document = await service.record(actor.id)
        copy_id, verified = await service.import_record(document)  # it exports and verifies
        assert verified.versions == len(document["versions"])
        copy = await store.match(copy_id)
        assert copy is not None
        assert copy.mode is MatchMode.BOT

        header = await store.match(actor.id)
        assert header is not None
        assert header.mode is MatchMode.BOT
        assert header.rated is False  # never rated against the computer
        assert level_of(header.second_player) == level
    finally:
        await service.stop()


async def test_bot_matches_past_the_workers_share_are_refused(store: MatchStore) -> None:
    service = MatchService(store, SETTINGS)
    await service.start()
    try:
        ann, _ = await service.guests.create("Ann", service.wall_ms())
        first = await service.create_match(ann, MatchMode.BOT, level=1)
        await service.create_match(ann, MatchMode.BOT, level=2)
        live = service.live_count()
        with pytest.raises(Rejection) as refused:
            await service.create_match(ann, MatchMode.BOT, level=3)
        assert refused.value.code is ErrorCode.SERVER_BUSY
        assert service.live_count() == live  # nothing was made
        await first.submit(ann.id, ResignMatch(), first.version, service.now_ms())
        await service.create_match(ann, MatchMode.BOT, level=3)  # a finished one frees a place
    finally:
        await service.stop()


async def test_a_level_goes_with_a_bot_match_only(store: MatchStore) -> None:
    service = MatchService(store, SETTINGS)
    await service.start()
    try:
        ann, _ = await service.guests.create("Ann", service.wall_ms())
        with pytest.raises(ValueError, match="level"):
            await service.create_match(ann, MatchMode.BOT)
        with pytest.raises(ValueError, match="level"):
            await service.create_match(ann, MatchMode.INVITE, level=2)
        with pytest.raises(ValueError, match="level"):
            await service.create_match(ann, MatchMode.BOT, level=6)
        assert service.live_count() == 0
    finally:
        await service.stop()


async def test_a_computer_resumed_mid_match_catches_up_and_plays_on(store: MatchStore) -> None:
    """A hand-over (PROTOCOL.md "Several servers on one database"): the server a bot match is handed
    to seats a new computer, which reads every version so far as its seat saw it and plays on from
    there."""
    service = MatchService(store, SETTINGS)
    await service.start()
    try:
        ann, _ = await service.guests.create("Ann", service.wall_ms())
        actor = await service.create_match(ann, MatchMode.BOT, level=2)
        first = service.bots.of(actor.id)
        assert first is not None
        rng = random.Random(4)
        await play_the_bot(service, actor, ann, rng, until_version=12)
        await first.stop()
        actor.unlisten(first)
        seen_before = list(first.seen)

        log = actor.take_log()
        resumed = service.bots.resume(actor, log)
        assert resumed is not None
        assert resumed is not first
        assert resumed.seen == seen_before  # the same view, read from the versions so far
        await play_the_bot(service, actor, ann, rng)
        assert actor.state.status is MatchStatus.FINISHED
        assert resumed.refused == 0
    finally:
        await service.stop()
