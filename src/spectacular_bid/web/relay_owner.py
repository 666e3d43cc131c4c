"""The owner's side of the relay (PROTOCOL.md "Several servers on one database"): what it serves to
sockets on other processes, and what it sends them.

A socket on another process **attaches** (with its process's key for it) and is counted in the
room's presence like a local one; its process renews the attachments of all its rooms here with
one **holds** every :data:`~spectacular_bid.web.remote_room.HOLD_S`, and an attachment not held for
:data:`STALE_MS` is dropped (the process died: its players are no longer online). Its commands,
chat lines, joins and reads come as requests and are run here exactly as a local socket's would
be; a command at its receipt by the process its socket is on (R7.7, ``web/relay.py``).

While a match has remote sockets, its room has a :class:`MatchFeed`, which sends every version
on the match's channel: the ``update`` message of each audience the remote sockets watch as,
made here as for a local socket (its events filtered here, R2.2 — a process that relays never
sees more than its sockets may), so no other process needs the match's state
(``web.version_texts``); then presence, rematch notices, chat lines and the match's close.
"""

from __future__ import annotations

from typing import Final

from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.audience import Audience
from spectacular_bid.service.chat import ChatLine, Phrase, shown_channels
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.periodic import Periodic
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.state import MatchState
from spectacular_bid.service.timesource import wall_ms
from spectacular_bid.web.chat_messages import ClientChat
from spectacular_bid.web.frames import VersionFrames
from spectacular_bid.web.json_text import compact
from spectacular_bid.web.messages import ClientPing, command_of, parse_client_message
from spectacular_bid.web.relay import (
    MATCH_CHANNEL,
    Body,
    Relay,
    Request,
    player_of,
    relayed_ms,
)
from spectacular_bid.web.room import Room, Rooms, audience_for
from spectacular_bid.web.version_texts import FORMAT, encode

STALE_MS: Final = 10_000
"""An attachment not held this long is dropped (three holds missed and then some)."""


class MatchFeed:
    """A room's messages to the sockets of its match on other processes."""

    def __init__(self, room: Room, relay: Relay) -> None:
        self.room = room
        self.relay = relay
        self.channel = MATCH_CHANNEL + room.actor.id
        self.held: dict[str, int] = {}
        """When each remote attachment was last held (attached, resynced or held), in ms."""
        self.earlier: set[str] = set()
        """The attachments of processes of an earlier release, which read each version as
        the JSON object they sent, not as ``web.version_texts``."""

    def attached(self, key: str, at_ms: int, reads: object) -> None:
        self.held[key] = at_ms
        if reads == FORMAT:
            self.earlier.discard(key)
        else:
            self.earlier.add(key)

    def forget(self, key: str) -> None:
        self.held.pop(key, None)
        self.earlier.discard(key)

    def version(self, state: MatchState, frames: VersionFrames, built: dict[Audience, str]) -> None:
        """Send the version to the remote sockets: each audience's ``update`` as ``built`` for
        the local sockets, or made now."""
        watched = {sub.audience: None for sub in self.room.remote.values()}
        if self.earlier:
            snapshots = {a.value: self.room.snapshot_text(a) for a in watched}
            sent = {"t": "v", "v": state.version, "f": list(frames.texts), "s": snapshots}
            self._send({**sent, "w": wall_ms()})
            return
        texts = []
        for audience in watched:
            text = built.get(audience)
            if text is None:
                text = built[audience] = self.room.update_text(state, audience, [frames])
            texts.append((audience.value, text))
        self.relay.bus.send(self.channel, encode(state.version, wall_ms(), texts))

    def message(self, text: str) -> None:
        self._send({"t": "m", "text": text})

    def chat(self, line: ChatLine, text: str) -> None:
        self._send({"t": "c", "ch": line.channel.value, "text": text})

    def closed(self) -> None:
        self._send({"t": "x"})

    def _send(self, body: Body) -> None:
        self.relay.bus.send(self.channel, compact(body))


class OwnerSide:
    """The ops this process serves for the matches it owns."""

    def __init__(self, relay: Relay, service: MatchService, rooms: Rooms) -> None:
        self.relay = relay
        self.service = service
        self.rooms = rooms
        self._sweeper = Periodic(  # whatever one sweep raises, the next runs
            "relay-sweep", STALE_MS / 4000, self._sweep, service.tasks
        )
        for op, handler in (
            ("attach", self.attach),
            ("detach", self.detach),
            ("hold", self.hold),
            ("holds", self.holds),
            ("submit", self.submit),
            ("say", self.say),
            ("join", self.join),
            ("view", self.view),
        ):
            relay.serve(op, handler)

    def start(self) -> None:
        self._sweeper.start()

    async def close(self) -> None:
        await self._sweeper.stop()

    async def _actor(self, request: Request) -> MatchActor:
        match = await self.service.find(str(request["m"]))
        if not isinstance(match, MatchActor):
            raise Rejection(
                ErrorCode.SERVER_BUSY,
                "the match has just ended here; reconnect to read it",
                retry_after_s=1,
            )
        return match

    def _feed(self, room: Room) -> MatchFeed:
        if not isinstance(room.feed, MatchFeed):
            room.feed = MatchFeed(room, self.relay)
        return room.feed

    async def attach(self, request: Request) -> Body:
        actor = await self._actor(request)
        room = self.rooms.room(actor)
        player = player_of(request.get("player"))
        asked = request.get("aud")
        audience = room.attach_remote(
            str(request["key"]), player, Audience(asked) if asked else None
        )
        self._feed(room).attached(str(request["key"]), int(request["at"]), request.get("fmt"))
        since = request.get("since")
        channels = shown_channels(actor.state, player.id if player else None, audience)
        return {
            "v": actor.version,
            "aud": audience.value,
            "text": room.first_text(audience, since if isinstance(since, int) else None),
            "ch": sorted(c.value for c in channels),
            "said": self.service.chat.said(actor.id),
        }

    async def detach(self, request: Request) -> Body:
        room = self.rooms.get(str(request["m"]))
        if room is not None:
            room.detach_remote(str(request["key"]))
            feed = room.feed
            if isinstance(feed, MatchFeed):
                feed.forget(str(request["key"]))
                if not room.remote:
                    room.feed = None
        return {}

    async def hold(self, request: Request) -> Body:
        """Renew a process's attachments to one room (as a release before the batched
        :meth:`holds` asks); ``gone`` lists those this room no longer has."""
        keys = [str(k) for k in request.get("keys", [])]
        return {"gone": self._held(str(request["m"]), keys, int(request["at"]))}

    async def holds(self, request: Request) -> Body:
        """Renew a process's attachments to every room it holds here; ``gone`` lists, by match,
        those no longer attached."""
        at = int(request["at"])
        rooms = request.get("rooms")
        gone: dict[str, list[str]] = {}
        for match_id, keys in rooms.items() if isinstance(rooms, dict) else ():
            lost = self._held(str(match_id), [str(k) for k in keys], at)
            if lost:
                gone[str(match_id)] = lost
        return {"gone": gone}

    def _held(self, match_id: str, keys: list[str], at: int) -> list[str]:
        room = self.rooms.get(match_id)
        if room is None or not isinstance(room.feed, MatchFeed):
            return keys
        held = room.feed.held
        for key in keys:
            if key in held:
                held[key] = at
        return [k for k in keys if k not in held]

    async def submit(self, request: Request) -> Body:
        actor = await self._actor(request)
        message = parse_client_message(request.get("data"))
        if isinstance(message, ClientPing | ClientChat):
            raise Rejection(ErrorCode.BAD_MESSAGE, "only commands are relayed as commands")
        player_id = request.get("player_id")
        relayed = relayed_ms(request)
        version = await actor.submit(
            str(player_id) if player_id is not None else None,
            command_of(message),
            message.version,
            int(request["at"]) - (relayed or 0),  # its receipt by the server (R7.7)
            message.acting_seat(),
            relayed,
        )
        return {"v": version}

    async def say(self, request: Request) -> Body:
        actor = await self._actor(request)
        phrase = request.get("phrase")
        text = request.get("text")
        line = await self.service.say(
            actor.id,
            player_of(request.get("player")),
            str(text) if text is not None else None,
            Phrase(phrase) if phrase is not None else None,
        )
        self.rooms.room(actor).chat(line)
        return {"v": actor.version}

    async def join(self, request: Request) -> Body:
        player = player_of(request.get("player"))
        if player is None:
            raise Rejection(ErrorCode.UNAUTHORIZED, "a join needs a player")
        seat = await self.service.join(str(request["m"]), player)
        return {"seat": str(seat)}

    async def view(self, request: Request) -> Body:
        actor = await self._actor(request)
        audience = audience_for(actor.state, player_of(request.get("player")), None)
        return {"text": self.rooms.state_text(actor, audience)}

    async def _sweep(self) -> None:
        now = self.service.now_ms()
        for room in self.rooms.with_feeds():
            feed = room.feed
            assert isinstance(feed, MatchFeed)
            for key in [k for k, at in feed.held.items() if now - at > STALE_MS]:
                feed.forget(key)
                room.detach_remote(key)
