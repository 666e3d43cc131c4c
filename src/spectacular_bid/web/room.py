"""The sockets of one live match (lila-ws's room): what each audience is sent, the resend
window, and who is connected (PROTOCOL.md "Reconnecting").

A :class:`Room` listens to its match actor. For every stored version it encodes the events once
per audience (:func:`~spectacular_bid.web.frames.version_frames`), keeps them in a
:class:`~spectacular_bid.service.history.History` for sockets that come back, and offers each
socket its ``update``. The actor never waits for a socket: a socket that falls ``limit`` messages
behind is dropped, and its client reconnects with ``?since=`` and is resent what it missed, or a
full state.

Presence (who is connected) is kept as counts, updated as sockets come and go; the match's actor
is told when a player's first socket opens and its last closes, local or on another process
(the timers that wait for people, D3 and D8, follow it: ``service/presence.py``). It is sent at
most once per ``presence_delay_ms`` (PROTOCOL.md "Limits and close codes"): a crowd of ``n``
spectators arriving costs O(n) messages, not one message to every socket per arrival. Beyond
``spectator_crowd`` spectators a change in their number alone waits :data:`CROWD_PRESENCE_MS`; a
player coming or going is always sent after ``presence_delay_ms``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

from spectacular_bid.rules.seats import BySeat
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.audience import Audience, audience_of
from spectacular_bid.service.chat import ChatLine, shown_channels
from spectacular_bid.service.computer import level_of
from spectacular_bid.service.history import History
from spectacular_bid.service.ports import Player
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.replay import Rebuilt
from spectacular_bid.service.state import Entry, MatchState
from spectacular_bid.service.timesource import MsSource
from spectacular_bid.web.chat_messages import chat_text
from spectacular_bid.web.frames import (
    Presence,
    SnapshotCache,
    VersionFrames,
    events_text,
    log_text,
    presence_message,
    state_message,
    update_message,
    version_frames,
)
from spectacular_bid.web.move_log import MoveLog
from spectacular_bid.web.subscriber import Subscriber

CROWD_PRESENCE_MS: Final = 5_000
"""How long a change in a crowd's number alone waits before it is sent."""

NOBODY: Final = Presence(BySeat(False, False), 0)
"""The presence of an ended match read from its record: no socket is attached to it."""


def audience_for(state: MatchState, player: Player | None, audience: Audience | None) -> Audience:
    """The audience ``player`` watches as: the one asked for when it may (anyone may watch as
    a spectator), else their own; raise ``not_your_seat`` for another seat's."""
    allowed = audience_of(state.seats, player.id if player else None)
    if audience is None:
        return allowed
    if audience is not Audience.SPECTATOR and audience is not allowed:
        raise Rejection(ErrorCode.NOT_YOUR_SEAT, f"you cannot watch as {audience.value}")
    return audience


class RoomFeed(Protocol):
    """What a room's owner also sends to the sockets of this match on other server processes
    (``web/relay_owner.py``)."""

    def version(self, state: MatchState, frames: VersionFrames, built: dict[Audience, str]) -> None:
        """A new version; ``built`` holds the ``update`` messages made for the local sockets,
        by audience (and takes those the feed makes)."""
        ...

    def message(self, text: str) -> None:
        """A message for every socket (presence, a rematch notice)."""
        ...

    def chat(self, line: ChatLine, text: str) -> None: ...

    def closed(self) -> None: ...


@dataclass(frozen=True, slots=True)
class RoomSettings:
    """How a room treats its sockets (``WebSettings``: resend window, queue, presence)."""

    resend_limit: int = 100
    queue_limit: int = 64
    presence_delay_ms: int = 0
    """0 sends each presence change at once (tests that count messages rely on it)."""
    spectator_crowd: int = 32


class Room:
    def __init__(self, actor: MatchActor, rooms: Rooms, settings: RoomSettings) -> None:
        self.actor = actor
        self.subscribers: dict[Subscriber, None] = {}
        """Insertion-ordered, so every socket is offered each version in the order it came."""
        kept = actor.take_log()  # a room made late still has the versions before it
        start = kept[0].version - 1 if kept else actor.version
        self.history: History[VersionFrames] = History(settings.resend_limit, start)
        self.moves = MoveLog()
        """Every version so far, for a ``state``'s move list; the room keeps it from now on."""
        for entry in kept:
            self._keep(entry)
        self.snapshots = SnapshotCache(actor.id)
        self._rooms = rooms
        self._settings = settings
        self._spectators = 0
        self._player_sockets: dict[str, int] = {}
        """Open sockets per seated player's id: a seat is online while its player has one."""
        self._sent: Presence | None = None
        self._flush: asyncio.TimerHandle | None = None
        self._flush_is_crowd = False
        self.feed: RoomFeed | None = None
        """Set while sockets on other server processes watch this match (PROTOCOL.md "Several
        servers on one database")."""
        self.remote: dict[str, Subscriber] = {}
        """Those sockets, by the key their process gave each: counted in the presence."""
        actor.listen(self)

    # -- the actor's side -----------------------------------------------------------------

    def _keep(self, entry: Entry) -> VersionFrames:
        frames = version_frames(entry)
        self.history.add(entry.version, frames)
        self.moves.add(frames)
        return frames

    def published(self, entry: Entry, state: MatchState) -> None:
        frames = self._keep(entry)
        built: dict[Audience, str] = {}
        for sub in self.subscribers:
            message = built.get(sub.audience)
            if message is None:
                message = built[sub.audience] = self.update_text(state, sub.audience, [frames])
            sub.offer(message)
        if self.feed is not None:
            self.feed.version(state, frames, built)
        if not state.is_live and not self._watched():
            self._rooms.unwatched(self.actor.id)

    def closed(self) -> None:
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        for sub in self.subscribers:
            sub.close()
        if self.feed is not None:
            self.feed.closed()
        self._rooms.forget(self)

    @property
    def is_open(self) -> bool:
        """False once the match has left memory: its sockets are closing because of that, not
        because their players left."""
        return self._rooms.get(self.actor.id) is self

    # -- the sockets' side ----------------------------------------------------------------

    def subscribe(
        self, player: Player | None, since: int | None, audience: Audience | None
    ) -> Subscriber:
        """Attach a socket. Its first message is the missed events since ``since`` with the
        view, or the full state (lila-ws resync)."""
        state = self.actor.state
        audience = audience_for(state, player, audience)
        sub = Subscriber(audience, player, self._settings.queue_limit)
        self._watch()
        self.subscribers[sub] = None
        self._count(sub, 1)
        sub.offer(self.first_text(audience, since))
        if not self._presence_changed():
            # Its own presence at once, as every socket's second message; the others wait.
            sub.offer(presence_message(self.actor.version, self.presence()))
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        if self.subscribers.pop(sub, False) is None:
            self._count(sub, -1)
            self._presence_changed()
            self._unwatch()

    def attach_remote(self, key: str, player: Player | None, audience: Audience | None) -> Audience:
        """A socket of another server process (PROTOCOL.md "Several servers on one database"),
        counted in the presence like one of this room's; its messages go through the feed. Returns
        the audience it is shown (raises ``not_your_seat`` as :meth:`subscribe` does)."""
        state = self.actor.state
        shown = audience_for(state, player, audience)
        old = self.remote.pop(key, None)
        if old is not None:  # the same socket again (a resync): counted once
            self._count(old, -1)
        sub = Subscriber(shown, player, 0)
        self._watch()
        self.remote[key] = sub
        self._count(sub, 1)
        self._presence_changed()
        return shown

    def detach_remote(self, key: str) -> None:
        sub = self.remote.pop(key, None)
        if sub is not None:
            self._count(sub, -1)
            self._presence_changed()
            self._unwatch()

    def _watched(self) -> bool:
        return bool(self.subscribers or self.remote)

    def _watch(self) -> None:
        """An ended match opened by a first socket again keeps its full time in memory."""
        if not self._watched() and not self.actor.is_live:
            self._rooms.watched(self.actor.id)

    def _unwatch(self) -> None:
        """An ended match whose last socket closed may leave memory soon (service.residency)."""
        if not self._watched() and not self.actor.is_live and self.is_open:
            self._rooms.unwatched(self.actor.id)

    def first_text(self, audience: Audience, since: int | None) -> str:
        """What a socket attaching with ``since`` is sent first: the missed events with the
        view, or the full state (lila-ws resync)."""
        missed = self.history.since(since) if since is not None else None
        if missed is None:
            return self.state_text(audience)
        return self.update_text(self.actor.state, audience, missed)

    def _count(self, sub: Subscriber, delta: int) -> None:
        if sub.audience is Audience.SPECTATOR:
            self._spectators += delta
        if sub.player is not None:
            player_id = sub.player.id
            before = self._player_sockets.get(player_id, 0)
            left = before + delta
            if left > 0:
                self._player_sockets[player_id] = left
                if before == 0:
                    self.actor.attend(player_id, True)  # D3, D8: a player is there
                return
            self._player_sockets.pop(player_id, None)
            if before > 0:
                self.actor.attend(player_id, False)
            seated = any(p is not None and p.id == player_id for p in self.actor.state.seats)
            if delta < 0 and seated and self._rooms.on_player_left is not None and self.is_open:
                self._rooms.on_player_left(self, player_id)

    def chat(self, line: ChatLine) -> None:
        """A line just said, to every socket shown its channel (PROTOCOL.md "chat")."""
        state = self.actor.state
        message = chat_text(state.version, (line,))
        for sub in self.subscribers:
            if line.channel in shown_channels(state, sub.player_id, sub.audience):
                sub.offer(message)
        if self.feed is not None:
            self.feed.chat(line, message)

    def notice(self, message: str) -> None:
        """A message for every socket of the match that is not a version of it (a rematch)."""
        for sub in self.subscribers:
            sub.offer(message)
        if self.feed is not None:
            self.feed.message(message)

    def presence(self) -> Presence:
        """Who is connected: each seat whose player has a socket open (a computer's seat while
        its match is live: it plays from this process, PROTOCOL.md "POST /api/matches"), and the
        spectators."""
        flags = [False, False]
        for i, seated in enumerate(self.actor.state.seats):
            flags[i] = seated is not None and (
                seated.id in self._player_sockets
                or (level_of(seated.id) is not None and self.actor.is_live)
            )
        return Presence(BySeat(flags[0], flags[1]), self._spectators)

    def snapshot_text(self, audience: Audience) -> str:
        state = self.actor.state
        return self.snapshots.snapshot_text(
            state, audience, self.presence(), self._now(), self.actor.standing
        )

    def state_text(self, audience: Audience) -> str:
        state = self.actor.state
        return state_message(state.version, self.snapshot_text(audience), self.moves.text(audience))

    def update_text(
        self, state: MatchState, audience: Audience, frames: list[VersionFrames]
    ) -> str:
        return update_message(
            state.version, events_text(frames, audience), self.snapshot_text(audience)
        )

    def _presence_changed(self) -> bool:
        """Send the new presence soon, once for every change until then; True if it was sent
        to every socket now."""
        now = self.presence()
        sent = self._sent
        crowd = self._settings.spectator_crowd
        delay_ms = self._settings.presence_delay_ms
        only_crowd = (
            sent is not None
            and now.online == sent.online
            and max(now.spectators, sent.spectators) > crowd
        )
        if only_crowd:
            delay_ms = max(delay_ms, CROWD_PRESENCE_MS)
        if self._flush is not None:
            if only_crowd or not self._flush_is_crowd:
                return False
            self._flush.cancel()  # a player came or went: not worth a crowd's wait
        if delay_ms == 0:
            return self._send_presence()
        loop = asyncio.get_running_loop()
        self._flush = loop.call_later(delay_ms / 1000, self._send_presence)
        self._flush_is_crowd = only_crowd
        return False

    def _send_presence(self) -> bool:
        self._flush = None
        self._flush_is_crowd = False
        presence = self.presence()
        if presence == self._sent:
            return False
        self._sent = presence
        message = presence_message(self.actor.version, presence)
        for sub in self.subscribers:
            sub.offer(message)
        if self.feed is not None:
            self.feed.message(message)
        return True

    def _now(self) -> int:
        return self._rooms.now_ms()


class Rooms:
    """The rooms of the live matches that have sockets, by match id."""

    def __init__(self, now_ms: MsSource, settings: RoomSettings | None = None) -> None:
        self.now_ms = now_ms
        self.settings = settings if settings is not None else RoomSettings()
        self._rooms: dict[str, Room] = {}
        self.on_player_left: Callable[[Room, str], None] | None = None
        """Called when a seated player's last socket of a match closes (a rematch offer
        lapses, PROTOCOL.md "rematch") while the match is in memory: when it leaves memory, its
        sockets close for that reason, and an offer stands on for the archive."""
        self.on_unwatched: Callable[[str], None] | None = None
        """Called when an ended match's last socket closes (OPERATIONS.md "Under load and abuse"):
        it may leave memory."""
        self.on_watched: Callable[[str], None] | None = None
        """Called when a socket opens an ended match that had none: it stays its full time."""

    def get(self, match_id: str) -> Room | None:
        return self._rooms.get(match_id)

    def room(self, actor: MatchActor) -> Room:
        room = self._rooms.get(actor.id)
        if room is None or room.actor is not actor:
            room = self._rooms[actor.id] = Room(actor, self, self.settings)
        return room

    def with_feeds(self) -> list[Room]:
        """The rooms watched from other server processes (PROTOCOL.md "Several servers on one
        database")."""
        return [room for room in self._rooms.values() if room.feed is not None]

    def unwatched(self, match_id: str) -> None:
        if self.on_unwatched is not None:
            self.on_unwatched(match_id)

    def watched(self, match_id: str) -> None:
        if self.on_watched is not None:
            self.on_watched(match_id)

    def forget(self, room: Room) -> None:
        if self._rooms.get(room.actor.id) is room:
            del self._rooms[room.actor.id]

    def state_text(self, match: MatchActor | Rebuilt, audience: Audience) -> str:
        """A ``state`` message for ``audience``: a live match's from its room, an ended one's
        (re-run from its record, nobody connected) built here."""
        if isinstance(match, MatchActor):
            return self.room(match).state_text(audience)
        snapshot = SnapshotCache(match.id).snapshot_text(
            match.state, audience, NOBODY, self.now_ms(), match.standing
        )
        return state_message(match.version, snapshot, log_text(match.log, audience))

    def spectators(self, match_id: str) -> int:
        room = self._rooms.get(match_id)
        return room.presence().spectators if room is not None else 0
