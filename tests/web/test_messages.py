"""The wire models: parsing client frames, and the server models against real frames (PROTOCOL.md
"The WebSocket")."""

from __future__ import annotations

import json
import random
import re
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from spectacular_bid.rules.actions import Event
from spectacular_bid.rules.board import Place, Side
from spectacular_bid.rules.notation import parse_tile
from spectacular_bid.rules.seats import Seat
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.commands import (
    AcceptBid,
    DeclineBid,
    DrawTile,
    PlaceBid,
    PlayerCommand,
    PlayTile,
    ResignMatch,
    Reveal,
    Start,
    move_of,
)
from spectacular_bid.service.events import ServiceEvent
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.ports import MatchMode, Player
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.web.chat_messages import ClientChat
from spectacular_bid.web.events import MatchEvent
from spectacular_bid.web.messages import (
    CLIENT_MESSAGES,
    ClientMessage,
    ClientPing,
    ServerMessage,
    ack_text,
    command_of,
    error_text,
    parse_client_message,
    pong_text,
    schema_text,
)
from spectacular_bid.web.room import Rooms, RoomSettings
from spectacular_bid.web.subscriber import Subscriber

DOCS = Path(__file__).resolve().parents[2] / "docs"
SERVICE_EVENTS = {"seat_taken", "ready", "revealed", "deck_committed", "deck_revealed"}


def type_name(cls: type) -> str:
    """An event's wire ``type``: its class name in snake case (``RoundDealt``: ``round_dealt``)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


def test_the_checked_in_schema_is_up_to_date() -> None:
    checked_in = (DOCS / "protocol.schema.json").read_text(encoding="utf-8")
    assert checked_in == schema_text(), "regenerate: specbid schema -o docs/protocol.schema.json"


def test_every_event_type_has_a_model() -> None:
    engine = {type_name(cls) for cls in typing.get_args(Event)}
    assert {type_name(cls) for cls in typing.get_args(ServiceEvent)} == SERVICE_EVENTS
    members = typing.get_args(typing.get_args(MatchEvent)[0])
    modelled = {typing.get_args(m.model_fields["type"].annotation)[0] for m in members}
    assert modelled == engine | SERVICE_EVENTS


@pytest.mark.parametrize(("kind", "model"), CLIENT_MESSAGES.items())
def test_every_client_type_is_in_the_union(kind: str, model: type) -> None:
    extra: dict[str, dict[str, object]] = {
        "play": {"tile": "1-4"},
        "bid": {"amount": 15},
        "chat": {"text": "hi"},
    }
    versionless = ("ping", "chat")  # neither is a command: no version to be stale against
    frame: dict[str, object] = (
        {"type": kind} if kind in versionless else {"type": kind, "version": 0}
    )
    frame |= extra.get(kind, {})
    assert isinstance(ClientMessage.model_validate(frame).root, model)


# -- parsing client frames ------------------------------------------------------------------


def rejection(data: object) -> Rejection:
    with pytest.raises(Rejection) as caught:
        parse_client_message(data)
    return caught.value


ONE_FOUR = parse_tile("1-4")


@pytest.mark.parametrize(
    ("data", "command", "version", "seat"),
    [
        ({"type": "play", "version": 3, "tile": "1-4", "at": None}, PlayTile(ONE_FOUR), 3, None),
        (
            {"type": "play", "version": 4, "tile": "1-1", "at": "1-4:smaller", "id": "a"},
            PlayTile(parse_tile("1-1"), Place(ONE_FOUR, Side.SMALLER)),
            4,
            None,
        ),
        ({"type": "draw", "version": 0}, DrawTile(), 0, None),
        ({"type": "bid", "version": 9, "amount": 20}, PlaceBid(20), 9, None),
        ({"type": "accept", "version": 1}, AcceptBid(), 1, None),
        ({"type": "decline", "version": 1}, DeclineBid(), 1, None),
        ({"type": "resign", "version": 1, "seat": "second"}, ResignMatch(), 1, Seat.SECOND),
        ({"type": "start", "version": 0, "seat": "first"}, Start(), 0, Seat.FIRST),
        ({"type": "reveal", "version": 7}, Reveal(), 7, None),
    ],
)
def test_frames_become_commands(
    data: dict[str, Any], command: PlayerCommand, version: int, seat: Seat | None
) -> None:
    message = parse_client_message(data)
    assert not isinstance(message, ClientPing | ClientChat)
    assert command_of(message) == command
    assert (message.version, message.acting_seat()) == (version, seat)


def test_ping() -> None:
    assert parse_client_message({"type": "ping", "id": "p1"}) == ClientPing(type="ping", id="p1")


@pytest.mark.parametrize(
    ("data", "code", "fragment"),
    [
        ([1, 2], ErrorCode.BAD_MESSAGE, "JSON object, not list"),
        ({"version": 1}, ErrorCode.BAD_MESSAGE, "'type'"),
        ({"type": "teleport", "version": 1}, ErrorCode.UNKNOWN_TYPE, "'teleport'"),
        ({"type": "draw"}, ErrorCode.BAD_MESSAGE, "version: Field required"),
        ({"type": "draw", "version": "1"}, ErrorCode.BAD_MESSAGE, "version: Input should be"),
        ({"type": "draw", "version": True}, ErrorCode.BAD_MESSAGE, "version"),
        ({"type": "draw", "version": -1}, ErrorCode.BAD_MESSAGE, "version"),
        ({"type": "draw", "version": 1, "extra": 0}, ErrorCode.BAD_MESSAGE, "extra: Extra inputs"),
        ({"type": "draw", "version": 1, "seat": "third"}, ErrorCode.BAD_MESSAGE, "seat"),
        ({"type": "draw", "version": 1, "id": "x" * 65}, ErrorCode.BAD_MESSAGE, "id"),
        ({"type": "play", "version": 1, "tile": "7-7"}, ErrorCode.BAD_MESSAGE, "tile"),
        (
            {"type": "play", "version": 1, "tile": "1-4", "at": "1-4:up"},
            ErrorCode.BAD_MESSAGE,
            "at",
        ),
        ({"type": "bid", "version": 1, "amount": 15.0}, ErrorCode.BAD_MESSAGE, "amount"),
        ({"type": "ping", "version": 1}, ErrorCode.BAD_MESSAGE, "version: Extra inputs"),
    ],
)
def test_bad_frames_are_refused_with_a_reason(data: object, code: ErrorCode, fragment: str) -> None:
    refused = rejection(data)
    assert refused.code is code
    assert fragment in refused.message


# -- server frames against the models -------------------------------------------------------

SERVER = TypeAdapter(ServerMessage)


def test_the_web_layers_own_messages_validate() -> None:
    for text in (
        ack_text(3, "c1"),
        ack_text(3, None),
        error_text(3, Rejection(ErrorCode.STALE_VERSION, "old"), "c2"),
        error_text(0, Rejection(ErrorCode.NOT_FOUND, "no match"), None),
        pong_text(5, None, 123_456),
    ):
        SERVER.validate_json(text)


async def play_out(
    actor: MatchActor, players: list[Player], service: MatchService, seed: int
) -> None:
    """Random legal moves until the match ends (Start pressed by everyone when needed)."""
    rng = random.Random(seed)
    for _ in range(5_000):
        state = actor.state
        if not state.is_live:
            return
        now = service.now_ms()
        if state.handover is not None:
            await actor.submit(players[0].id, Reveal(), actor.version, now)
            continue
        seat = state.match.to_act
        if seat is None:
            for player in dict.fromkeys(players):
                if actor.state.match.to_act is None and actor.is_live:
                    await actor.submit(player.id, Start(), actor.version, now)
            continue
        action = rng.choice(state.match.legal_actions(seat))
        await actor.submit(players[seat].id, move_of(action), actor.version, now, seat)
    raise AssertionError("the match did not end")


def drain(subscriber: Subscriber) -> list[str]:
    frames = []
    while not subscriber.queue.empty():
        frame = subscriber.queue.get_nowait()
        assert frame is not None, "a test subscriber was dropped"
        frames.append(frame)
    return frames


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("mode", [MatchMode.INVITE, MatchMode.SHARED])
async def test_every_frame_of_whole_matches_validates(mode: MatchMode, seed: int) -> None:
    settings = ServiceSettings(fixed_deck_seed=seed, subscriber_queue=100_000)
    service = MatchService(InMemoryStore(), settings)
    await service.start()
    try:
        ann, _ = await service.guests.create("Ann", 0)
        bob, _ = await service.guests.create("Bob", 0)
        actor = await service.create_match(ann, mode)
        room = Rooms(
            service.now_ms, RoomSettings(settings.resend_limit, settings.subscriber_queue)
        ).room(actor)
        subscribers = [room.subscribe(None, None, None)]
        if mode is MatchMode.INVITE:
            subscribers.append(room.subscribe(ann, None, None))
            await service.join(actor.id, bob)
            subscribers.append(room.subscribe(bob, 0, None))
            players = [ann, bob]
        else:
            subscribers.append(room.subscribe(ann, None, None))
            players = [ann, ann]
        await play_out(actor, players, service, seed)
        seen: set[str] = set()
        for subscriber in subscribers:
            for frame in drain(subscriber):
                message = SERVER.validate_json(frame).root
                seen.add(message.type)
                for event in getattr(message, "events", []):
                    seen.add(event.type)
            assert json.loads(frame)["match"]["status"] in ("finished", "aborted")
        assert {"state", "update", "presence", "round_dealt", "played", "match_ended"} <= seen
        if mode is MatchMode.SHARED:
            assert "revealed" in seen
    finally:
        await service.stop()


async def test_a_version_everyone_sees_alike_keeps_one_text() -> None:
    # Memory per resend window (OPERATIONS.md "Under load and abuse"): equal texts are one object; a
    # version whose events differ by audience (a deal: each seat sees its own hand) keeps its texts
    # apart.
    from spectacular_bid.web.frames import version_frames

    service = MatchService(InMemoryStore(), ServiceSettings(fixed_deck_seed=4))
    await service.start()
    try:
        ann, _ = await service.guests.create("Ann", 0)
        bob, _ = await service.guests.create("Bob", 0)
        actor = await service.create_match(ann, MatchMode.INVITE)
        await service.join(actor.id, bob)
        await play_out(actor, [ann, bob], service, 4)
        shared = private = 0
        for entry in actor.take_log():
            first, second, spectator = version_frames(entry).texts
            if first == second == spectator:
                assert first is second is spectator
                shared += 1
            else:
                assert first != second
                private += 1
        assert shared > 0
        assert private > 0  # the deals: the generator reached both cases
    finally:
        await service.stop()
