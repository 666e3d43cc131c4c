"""The sockets of a match that another server process runs (PROTOCOL.md "Several servers on one
database").

A :class:`RemoteRoom` is this process's stand-in for the owner's room: it listens on the match's
channel and hands each of its sockets what the owner sent for that socket's audience. It holds
no state of the match — the owner sends each version's ``update`` message of every audience
watched here, finished (``web.version_texts``) — only, per socket, the last version it was
given. A version that does not follow it (a message lost on
the bus, the bus reconnected) makes that socket **resync**: it attaches again with ``since`` and
the owner sends the missed events from its resend window, or the full state (lila-ws). So a
message lost costs a resync, never an event: the versions themselves are in the owner's store.

While it has sockets the room renews their attachments at the owner every :data:`HOLD_S`, with
one request to each owner for all its rooms here; an owner that no longer answers (killed, its
lease taken over) or no longer knows them makes the sockets close with 1013, and their clients
reconnect: to the match's new state wherever it is.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from typing import Any, Final

from spectacular_bid.rules.notation import parse_seat
from spectacular_bid.rules.seats import Seat
from spectacular_bid.service.audience import Audience
from spectacular_bid.service.chat import Channel, ChatLine, Phrase
from spectacular_bid.service.periodic import Periodic, TaskHealth
from spectacular_bid.service.ports import Player
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.timesource import wall_ms
from spectacular_bid.web.frames import VersionFrames, events_text, update_message
from spectacular_bid.web.json_text import compact, parse
from spectacular_bid.web.messages import ClientCommand
from spectacular_bid.web.relay import MATCH_CHANNEL, Relay, player_json, received_wall_ms
from spectacular_bid.web.room import RoomSettings
from spectacular_bid.web.subscriber import Subscriber
from spectacular_bid.web.version_texts import FORMAT, MARK, VersionTexts, decode

log = logging.getLogger(__name__)

HOLD_S: Final = 2.0
HOLDS_MISSED: Final = 2
"""Holds in a row the owner did not answer, the bus up, before its sockets here close."""
RESYNC_TRIES: Final = 4
RESYNC_PAUSE_S: Final = 1.0


class RemoteSocket:
    """One local socket of the match, as the owner knows it (by ``key``)."""

    def __init__(self, key: str, player: Player | None, limit: int) -> None:
        self.key = key
        self.player = player
        self.sub: Subscriber | None = None
        self.version: int | None = None
        """The last version this socket was given; None while it (re)attaches."""
        self.pending: list[VersionTexts] = []
        """Versions that came while it (re)attached."""
        self.channels: frozenset[str] = frozenset()
        self.said: int | None = None
        """The match's chat lines when it attached, as the owner counted them (None from an
        owner of an earlier release, which does not say)."""
        self.limit = limit


class RemoteRoom:
    def __init__(self, rooms: RemoteRooms, match_id: str, owner: str) -> None:
        self.rooms = rooms
        self.relay = rooms.relay
        self.id = match_id
        self.owner = owner
        self.sockets: dict[Subscriber, RemoteSocket] = {}
        self._attaching: dict[str, RemoteSocket] = {}
        self.version = 0
        """The latest version seen of the match (for the errors sent to a socket)."""
        self._listening = False
        self._resyncs: set[asyncio.Task[None]] = set()
        self._unanswered = 0

    async def subscribe(
        self, player: Player | None, since: int | None, audience: Audience | None
    ) -> Subscriber:
        """Attach a socket at the owner; raise the owner's :class:`Rejection`."""
        if not self._listening:
            self._listening = True
            await self.relay.bus.listen(MATCH_CHANNEL + self.id, self._on_text)
        sock = RemoteSocket(secrets.token_hex(8), player, self.rooms.settings.queue_limit)
        self._attaching[sock.key] = sock
        try:
            reply = await self._attach(sock, since, audience)
        except BaseException:
            self._attaching.pop(sock.key, None)
            await self._maybe_stop()
            raise
        sub = Subscriber(Audience(reply["aud"]), player, sock.limit)
        sock.sub = sub
        del self._attaching[sock.key]
        self.sockets[sub] = sock
        self._attached(sock, reply)
        return sub

    async def _attach(
        self, sock: RemoteSocket, since: int | None, audience: Audience | None
    ) -> dict[str, Any]:
        body = {
            "m": self.id,
            "key": sock.key,
            "player": player_json(sock.player),
            "aud": audience.value if audience is not None else None,
            "since": since,
            "fmt": FORMAT,
        }
        return await self.relay.call(self.owner, "attach", body)

    def _attached(self, sock: RemoteSocket, reply: dict[str, Any]) -> None:
        assert sock.sub is not None
        sock.sub.offer(str(reply["text"]))
        sock.version = int(reply["v"])
        self.version = max(self.version, sock.version)
        sock.channels = frozenset(str(c) for c in reply["ch"])
        said = reply.get("said")
        sock.said = said if isinstance(said, int) else None
        pending, sock.pending = sock.pending, []
        for message in pending:
            self._give(sock, message)

    def said(self, sub: Subscriber) -> int | None:
        """How many chat lines the match had when ``sub`` attached (None: unknown)."""
        sock = self.sockets.get(sub)
        return sock.said if sock is not None else None

    def channels_of(self, sub: Subscriber) -> frozenset[Channel]:
        """The chat channels the owner said ``sub`` is shown (PROTOCOL.md "chat")."""
        sock = self.sockets.get(sub)
        return frozenset(Channel(c) for c in sock.channels) if sock is not None else frozenset()

    def unsubscribe(self, sub: Subscriber) -> None:
        sock = self.sockets.pop(sub, None)
        if sock is None:
            return
        self.relay.tell(self.owner, "detach", {"m": self.id, "key": sock.key})
        if not self.sockets and not self._attaching:
            self.rooms.forget(self)
            task = asyncio.create_task(self._maybe_stop())
            self._resyncs.add(task)
            task.add_done_callback(self._resyncs.discard)

    async def _maybe_stop(self) -> None:
        if self._listening and not self.sockets and not self._attaching:
            self._listening = False
            await self.relay.bus.unlisten(MATCH_CHANNEL + self.id)

    # -- what the owner sends -------------------------------------------------------------

    def _on_text(self, text: str) -> None:
        if text.startswith(MARK):
            self._on_version(decode(text))
            return
        message = parse(text)
        kind = message.get("t")
        if kind == "v":  # from an owner of an earlier release
            version = int(message["v"])
            frames = VersionFrames(version, tuple(message["f"]))
            texts = {
                audience: update_message(version, events_text([frames], Audience(audience)), snap)
                for audience, snap in message["s"].items()
            }
            self._on_version(VersionTexts(version, int(message["w"]), texts))
        elif kind == "m":
            for sub in self.sockets:
                sub.offer(str(message["text"]))
        elif kind == "c":
            for sub, sock in self.sockets.items():
                if message["ch"] in sock.channels:
                    sub.offer(str(message["text"]))
        elif kind == "x":
            self.close_all(restart=bool(message.get("r")))

    def _on_version(self, sent: VersionTexts) -> None:
        self.version = max(self.version, sent.version)
        self.rooms.relayed(wall_ms() - sent.sent_ms)
        for sock in [*self.sockets.values(), *self._attaching.values()]:
            self._give(sock, sent)

    def _give(self, sock: RemoteSocket, sent: VersionTexts) -> None:
        if sock.version is None or sock.sub is None:
            sock.pending.append(sent)
            return
        version = sent.version
        if version <= sock.version:
            return
        text = sent.texts.get(sock.sub.audience.value)
        if version != sock.version + 1 or text is None:
            self.resync(sock)
            return
        sock.sub.offer(text)
        sock.version = version

    def resync(self, sock: RemoteSocket) -> None:
        """Attach ``sock`` again from its last version: the owner resends what it missed."""
        if sock.version is None:
            return  # already resyncing
        since, sock.version = sock.version, None
        task = asyncio.create_task(self._resync(sock, since))
        self._resyncs.add(task)
        task.add_done_callback(self._resyncs.discard)

    async def _resync(self, sock: RemoteSocket, since: int) -> None:
        """Attach again, a few times: after Redis came back, the owner may take a moment to
        listen again. A socket the owner still refuses then is closed; its client reconnects."""
        assert sock.sub is not None
        for attempt in range(RESYNC_TRIES):
            try:
                reply = await self._attach(sock, since, sock.sub.audience)
            except Rejection as rejection:
                if attempt + 1 == RESYNC_TRIES or rejection.code is not ErrorCode.SERVER_BUSY:
                    log.info("match %s: a socket could not resync: %s", self.id, rejection)
                    sock.sub.close()
                    return
                await asyncio.sleep(RESYNC_PAUSE_S)
            else:
                self._attached(sock, reply)
                return

    def resync_all(self) -> None:
        for sock in self.sockets.values():
            self.resync(sock)

    def close_all(self, *, restart: bool = False) -> None:
        """The match left its owner's memory, or the owner is gone, or (``restart``) it moved
        to another owner: the clients reconnect."""
        for sub in list(self.sockets):
            if restart:
                sub.restart()
            else:
                sub.close()

    def held_keys(self) -> list[str]:
        return [sock.key for sock in self.sockets.values()]

    def unanswered(self) -> None:
        """The owner did not answer a hold. Twice in a row while the bus is up, it is gone
        (killed, its lease taken): the sockets close and reconnect to the match wherever it is
        now. While the bus is down nothing can be asked, and nothing is concluded."""
        self._unanswered += 1
        if self._unanswered >= HOLDS_MISSED and self.relay.bus.is_up:
            self.close_all()

    def answered(self, gone: set[str]) -> None:
        """The owner renewed the attachments; those it no longer has close."""
        self._unanswered = 0
        for sub, sock in list(self.sockets.items()):
            if sock.key in gone:
                sub.close()

    # -- what a socket asks ---------------------------------------------------------------

    async def submit(
        self, player_id: str | None, data: object, message: ClientCommand, received_ms: int
    ) -> int:
        """The command, relayed: ``data`` as the client sent it, parsed again at the owner, and
        this process's receipt, which is the server's (R7.7): what the relay then takes is not
        the player's (``web/relay.py``)."""
        rw = received_wall_ms(received_ms, self.relay.now_ms())
        body = {"m": self.id, "player_id": player_id, "data": data, "rw": rw}
        reply = await self.relay.call(self.owner, "submit", body)
        return int(reply["v"])

    async def say(
        self, speaker: Player | None, text: str | None, phrase: Phrase | None
    ) -> ChatLine | None:
        """The line, said at the owner, which shows it to every socket (these too)."""
        body = {
            "m": self.id,
            "player": player_json(speaker),
            "text": text,
            "phrase": phrase.value if phrase is not None else None,
        }
        await self.relay.call(self.owner, "say", body)
        return None

    def show(self, line: ChatLine) -> None:
        """Nothing: the owner showed it."""


class RemoteRooms:
    """This process's remote rooms, by match id, and the task that holds their sockets."""

    def __init__(
        self,
        relay: Relay,
        settings: RoomSettings,
        relayed: Callable[[int], None] = lambda delay_ms: None,
        tasks: TaskHealth | None = None,
    ) -> None:
        self.relay = relay
        self.settings = settings
        self.relayed = relayed
        """Told each version's delay from its owner's publication to here (``/metrics``)."""
        self._rooms: dict[str, RemoteRoom] = {}
        self._holder = Periodic(  # whatever one renewal raises, the next runs
            "relay-hold", HOLD_S, self.hold_all, tasks if tasks is not None else TaskHealth()
        )

    def room(self, match_id: str, owner: str) -> RemoteRoom:
        room = self._rooms.get(match_id)
        if room is None or room.owner != owner:
            room = self._rooms[match_id] = RemoteRoom(self, match_id, owner)
        return room

    async def join(self, owner: str, match_id: str, player: Player) -> Seat:
        """``POST /api/matches/{id}/join`` of a match ``owner`` runs, relayed there."""
        body = {"m": match_id, "player": player_json(player)}
        reply = await self.relay.call(owner, "join", body)
        return parse_seat(str(reply["seat"]))

    async def view(self, owner: str, match_id: str, player: Player | None) -> str:
        """``GET /api/matches/{id}`` of a match ``owner`` runs: its state as ``player`` sees
        it, encoded there."""
        reply = await self.relay.call(owner, "view", {"m": match_id, "player": player_json(player)})
        return str(reply["text"])

    def get(self, match_id: str) -> RemoteRoom | None:
        return self._rooms.get(match_id)

    def forget(self, room: RemoteRoom) -> None:
        if self._rooms.get(room.id) is room:
            del self._rooms[room.id]

    def start(self) -> None:
        self.relay.bus.on_reconnect(self.resync_all)
        self._holder.start()

    async def close(self) -> None:
        await self._holder.stop()
        for room in list(self._rooms.values()):
            room.close_all()

    def resync_all(self) -> None:
        for room in list(self._rooms.values()):
            room.resync_all()

    def restart_all(self) -> None:
        """Close every relayed socket here so its client reconnects: this process registered
        again under a new id after losing its lease, and the owners knew its sockets by the
        old one."""
        for room in list(self._rooms.values()):
            room.close_all(restart=True)

    def ended_here(self, match_ids: list[str]) -> None:
        """This process ended these matches of a dead peer (D5): their sockets
        on every process close with 1013 now, and their clients reconnect to the ended match."""
        for match_id in match_ids:
            self.relay.bus.send(MATCH_CHANNEL + match_id, compact({"t": "x"}))
            room = self._rooms.get(match_id)
            if room is not None:
                room.close_all()

    async def hold_all(self) -> None:
        """Renew every socket's attachment, with one request to each owner for all its rooms
        here: at 2,000 matches over two processes, a request per room made a thousand relay
        calls a second, more than the players' commands (``specbid bench server``)."""
        if not self.relay.bus.is_up:
            return
        by_owner: dict[str, dict[str, list[str]]] = {}
        for room in self._rooms.values():
            keys = room.held_keys()
            if keys:
                by_owner.setdefault(room.owner, {})[room.id] = keys
        await asyncio.gather(
            *(self._hold_at(owner, held) for owner, held in by_owner.items()),
            return_exceptions=True,
        )

    async def _hold_at(self, owner: str, held: dict[str, list[str]]) -> None:
        try:
            reply = await self.relay.call(owner, "holds", {"rooms": held})
        except Rejection as rejection:
            if rejection.code is ErrorCode.UNKNOWN_TYPE:
                await self._hold_each(owner, held)  # an owner of an earlier release, mid-deploy
                return
            gone: dict[str, list[str]] | None = None
        else:
            gone = reply.get("gone", {})
        for match_id in held:
            self._answered(owner, match_id, None if gone is None else gone.get(match_id, []))

    async def _hold_each(self, owner: str, held: dict[str, list[str]]) -> None:
        """Hold room by room, as an owner that does not know ``holds`` asks: a deploy must not
        close the sockets of the matches an older process still runs."""
        for match_id, keys in held.items():
            try:
                reply = await self.relay.call(owner, "hold", {"m": match_id, "keys": keys})
            except Rejection:
                self._answered(owner, match_id, None)
            else:
                self._answered(owner, match_id, reply.get("gone", []))

    def _answered(self, owner: str, match_id: str, gone: list[str] | None) -> None:
        """What ``owner`` said of a room's attachments: None, nothing (it did not answer)."""
        room = self._rooms.get(match_id)
        if room is None or room.owner != owner:
            return
        if gone is None:
            room.unanswered()
        else:
            room.answered(set(gone))
