"""A version's ``update`` messages as the owner sends them to other processes (PROTOCOL.md "Several
servers on one database"): read back exactly, whatever they hold; anything else is refused; and a
process of an earlier release, which reads only the JSON object, is still sent that."""

from __future__ import annotations

import orjson
import pytest

from spectacular_bid.service.audience import Audience
from spectacular_bid.web.frames import VersionFrames, update_message
from spectacular_bid.web.relay_owner import MatchFeed
from spectacular_bid.web.remote_room import RemoteRooms, RemoteSocket
from spectacular_bid.web.room import RoomSettings
from spectacular_bid.web.subscriber import Subscriber
from spectacular_bid.web.version_texts import FORMAT, MARK, VersionTexts, decode, encode

FIRST_TEXT = '{"type":"update","version":7,"events":[],"match":{"name":"Äö ✓ 🂡\\n\\"q\\""}}'
SPECTATOR_TEXT = '{"type":"update","version":7,"events":[{"v":1}],"match":{}}\n'


def test_the_texts_come_back_exactly() -> None:
    sent = encode(7, 1_700_000_000_123, [("first", FIRST_TEXT), ("spectator", SPECTATOR_TEXT)])
    assert sent.startswith(MARK)
    assert decode(sent) == VersionTexts(
        7, 1_700_000_000_123, {"first": FIRST_TEXT, "spectator": SPECTATOR_TEXT}
    )
    assert decode(encode(8, 1, [])) == VersionTexts(8, 1, {})


@pytest.mark.parametrize(
    "message",
    [
        '{"t":"v","v":7}',
        "V7 1 first:3",  # no header line end
        "V7 1 first:3\nabcd",  # longer than said
        "V7 1 first:5\nabc",  # shorter than said
        "V7 first:3\nabc",  # a field missing
        "Vx 1 first:3\nabc",
    ],
)
def test_anything_else_is_refused(message: str) -> None:
    with pytest.raises(ValueError, match=r"."):
        decode(message)


class Bus:
    is_up = True

    async def listen(self, channel: str, reader: object) -> None:
        pass


class Relay:
    bus = Bus()


def _taken(sub: Subscriber) -> list[str | None]:
    taken = []
    while not sub.queue.empty():
        taken.append(sub.queue.get_nowait())
    return taken


def _watching(audience: Audience) -> tuple[RemoteRooms, Subscriber]:
    rooms = RemoteRooms(Relay(), RoomSettings())  # type: ignore[arg-type]
    room = rooms.room("m1", "A")
    sub = Subscriber(audience, None, 8)
    sock = RemoteSocket("k1", None, 8)
    sock.sub, sock.version = sub, 6
    room.sockets[sub] = sock
    return rooms, sub


def test_a_socket_is_given_its_audiences_text_as_sent() -> None:
    rooms, sub = _watching(Audience.SPECTATOR)
    room = rooms.get("m1")
    assert room is not None
    room._on_text(encode(7, 1, [("first", FIRST_TEXT), ("spectator", SPECTATOR_TEXT)]))
    assert _taken(sub) == [SPECTATOR_TEXT]


def test_a_version_from_an_owner_of_an_earlier_release_is_read_too() -> None:
    """The JSON object an earlier owner sends: the events of each audience and the snapshots;
    the ``update`` is put together here."""
    rooms, sub = _watching(Audience.SECOND)
    room = rooms.get("m1")
    assert room is not None
    events = ('{"version":7,"type":"drew","tile":"3-4"}', '{"version":7,"type":"drew"}', "")
    legacy = (
        '{"t":"v","v":7,"f":["{\\"version\\":7,\\"type\\":\\"drew\\",\\"tile\\":\\"3-4\\"}",'
        '"{\\"version\\":7,\\"type\\":\\"drew\\"}",""],"s":{"second":"{\\"a\\":1}"},"w":5}'
    )
    room._on_text(legacy)
    assert _taken(sub) == [update_message(7, events[1], '{"a":1}')]


class OwnerRoom:
    """What a feed reads of its room: the remote sockets, and each audience's texts."""

    def __init__(self) -> None:
        self.remote = {
            "k1": Subscriber(Audience.SECOND, None, 0),
            "k2": Subscriber(Audience.SPECTATOR, None, 0),
        }
        self.made: list[Audience] = []
        self.actor = State()

    def update_text(self, state: object, audience: Audience, frames: object) -> str:
        self.made.append(audience)
        return f"update for {audience.value}"

    def snapshot_text(self, audience: Audience) -> str:
        return f'{{"snapshot":"{audience.value}"}}'


class Sent:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []
        self.bus = self

    def send(self, channel: str, text: str) -> None:
        self.sent.append((channel, text))


class State:
    id = "m1"
    version = 7


def test_the_owner_sends_texts_unless_an_earlier_release_is_attached() -> None:
    room, relay = OwnerRoom(), Sent()
    feed = MatchFeed(room, relay)  # type: ignore[arg-type]
    feed.attached("k1", 1, FORMAT)
    feed.attached("k2", 1, FORMAT)
    frames = VersionFrames(7, ("a", "b", "c"))
    built = {Audience.SECOND: "made for a local socket"}

    feed.version(State(), frames, built)  # type: ignore[arg-type]
    ((_, text),) = relay.sent
    assert decode(text).texts == {
        "second": "made for a local socket",
        "spectator": "update for spectator",
    }
    assert room.made == [Audience.SPECTATOR]  # the local socket's text was not made again

    feed.attached("k2", 2, None)  # the spectator's process is of an earlier release
    feed.version(State(), frames, {})  # type: ignore[arg-type]
    legacy = orjson.loads(relay.sent[-1][1])
    assert (legacy["t"], legacy["v"], legacy["f"]) == ("v", 7, ["a", "b", "c"])
    assert legacy["s"] == {
        "second": '{"snapshot":"second"}',
        "spectator": '{"snapshot":"spectator"}',
    }

    feed.forget("k2")
    feed.version(State(), frames, {})  # type: ignore[arg-type]
    assert decode(relay.sent[-1][1]).version == 7
