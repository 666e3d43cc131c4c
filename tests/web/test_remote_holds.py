"""Holding remote attachments (PROTOCOL.md "Several servers on one database"): a process with
sockets of matches that other processes run renews them all with **one** request to each owner every
``HOLD_S``, however many rooms it holds there; an owner that no longer has an attachment has its
socket closed, and one that does not answer twice, the bus up, has all its sockets here closed."""

from __future__ import annotations

from typing import Any

from spectacular_bid.service.audience import Audience
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.web.remote_room import RemoteRooms, RemoteSocket
from spectacular_bid.web.room import RoomSettings
from spectacular_bid.web.subscriber import Subscriber


class Up:
    is_up = True


class Owners:
    """The relay as the holding process sees it: every call is written down, and each owner
    answers from ``replies`` (a :class:`Rejection` is raised as a silent owner's would be)."""

    def __init__(self) -> None:
        self.bus = Up()
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        self.replies: dict[str, dict[str, Any] | Rejection] = {}

    async def call(self, server_id: str, op: str, body: dict[str, Any]) -> dict[str, Any]:
        self.calls.append((server_id, op, body))
        reply = self.replies[server_id]
        if isinstance(reply, Rejection):
            raise reply
        return reply


def attach(rooms: RemoteRooms, match_id: str, owner: str, key: str) -> Subscriber:
    room = rooms.room(match_id, owner)
    sub = Subscriber(Audience.SPECTATOR, None, 8)
    room.sockets[sub] = RemoteSocket(key, None, 8)
    return sub


async def test_one_hold_per_owner_for_all_its_rooms() -> None:
    owners = Owners()
    rooms = RemoteRooms(owners, RoomSettings())  # type: ignore[arg-type]
    a1 = attach(rooms, "m1", "A", "k1")
    a2 = attach(rooms, "m1", "A", "k2")
    a3 = attach(rooms, "m2", "A", "k3")
    b1 = attach(rooms, "m3", "B", "k4")
    owners.replies = {"A": {"gone": {"m2": ["k3"]}}, "B": {"gone": {}}}

    await rooms.hold_all()

    assert sorted((owner, op) for owner, op, _ in owners.calls) == [("A", "holds"), ("B", "holds")]
    asked = {owner: body["rooms"] for owner, _, body in owners.calls}
    assert asked == {"A": {"m1": ["k1", "k2"], "m2": ["k3"]}, "B": {"m3": ["k4"]}}
    assert a3.dropped, "the attachment the owner no longer has closes"
    assert [a1.dropped, a2.dropped, b1.dropped] == [False, False, False]


async def test_an_owner_silent_twice_has_its_sockets_here_closed() -> None:
    owners = Owners()
    rooms = RemoteRooms(owners, RoomSettings())  # type: ignore[arg-type]
    silent = [attach(rooms, "m1", "A", "k1"), attach(rooms, "m2", "A", "k2")]
    alive = attach(rooms, "m3", "B", "k3")
    owners.replies = {
        "A": Rejection(ErrorCode.SERVER_BUSY, "no answer", retry_after_s=2),
        "B": {"gone": {}},
    }

    await rooms.hold_all()
    assert not any(sub.dropped for sub in silent), "one missed hold concludes nothing"
    await rooms.hold_all()
    assert all(sub.dropped for sub in silent)
    assert not alive.dropped


async def test_an_owner_of_an_earlier_release_is_held_room_by_room() -> None:
    class EarlierOwner(Owners):
        async def call(self, server_id: str, op: str, body: dict[str, Any]) -> dict[str, Any]:
            self.calls.append((server_id, op, body))
            if op == "holds":
                raise Rejection(ErrorCode.UNKNOWN_TYPE, "no relay op 'holds'")
            return {"gone": ["k2"] if body["m"] == "m2" else []}

    owners = EarlierOwner()
    rooms = RemoteRooms(owners, RoomSettings())  # type: ignore[arg-type]
    kept = attach(rooms, "m1", "A", "k1")
    dropped = attach(rooms, "m2", "A", "k2")

    for _ in range(3):
        await rooms.hold_all()

    singles = [(op, body) for _, op, body in owners.calls if op == "hold"]
    assert singles[:2] == [
        ("hold", {"m": "m1", "keys": ["k1"]}),
        ("hold", {"m": "m2", "keys": ["k2"]}),
    ]
    assert dropped.dropped, "what the earlier owner no longer holds closes"
    assert not kept.dropped, "a deploy closes nothing the earlier owner still holds"
