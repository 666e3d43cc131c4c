"""The sockets of one live match (lila-ws's room): what each audience is sent, the resend
window, and who is connected (issue 9 §5, §6).

A :class:`Room` listens to its match actor. For every stored version it encodes the events once
per audience (:func:`~spectacular_bid.web.frames.version_frames`), keeps them in a
:class:`~spectacular_bid.service.history.History` for sockets that come back, and offers each
socket its ``update``. The actor never waits for a socket: a socket that falls ``limit`` messages
behind is dropped, and its client reconnects with ``?since=`` and is resent what it missed, or a
full state.
"""

from __future__ import annotations

import asyncio
from typing import Final

from spectacular_bid.rules.seats import BySeat
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.audience import Audience, audience_of
from spectacular_bid.service.history import History
from spectacular_bid.service.ports import Player
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.replay import Rebuilt
from spectacular_bid.service.state import Entry, MatchState
from spectacular_bid.service.timesource import MsSource
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


class Subscriber:
    """One socket's outgoing queue: ``None`` in it tells the socket's sender to stop."""

    def __init__(self, audience: Audience, player: Player | None, limit: int) -> None:
        self.audience = audience
        self.player = player
        self.limit = limit
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.dropped = False

    def offer(self, message: str) -> None:
        if self.dropped:
            return
        if self.queue.qsize() >= self.limit:
            self.dropped = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(message)

    def close(self) -> None:
        """The match is gone or the server shuts down."""
        if not self.dropped:
            self.dropped = True
            self.queue.put_nowait(None)


class Room:
    def __init__(
        self, actor: MatchActor, rooms: Rooms, resend_limit: int, queue_limit: int
    ) -> None:
        self.actor = actor
        self.subscribers: list[Subscriber] = []
        kept = actor.log[-resend_limit:] if resend_limit else []
        start = kept[0].version - 1 if kept else actor.version
        self.history: History[VersionFrames] = History(resend_limit, start)
        for entry in kept:  # a room made late still resends what the match's window holds
            self.history.add(entry.version, version_frames(entry))
        self.snapshots = SnapshotCache(actor.id)
        self._rooms = rooms
        self._queue_limit = queue_limit
        actor.listen(self)

    # -- the actor's side -----------------------------------------------------------------

    def published(self, entry: Entry, state: MatchState) -> None:
        frames = version_frames(entry)
        self.history.add(entry.version, frames)
        built: dict[Audience, str] = {}
        for sub in self.subscribers:
            message = built.get(sub.audience)
            if message is None:
                message = built[sub.audience] = self._update(state, sub.audience, [frames])
            sub.offer(message)

    def closed(self) -> None:
        for sub in self.subscribers:
            sub.close()
        self._rooms.forget(self)

    # -- the sockets' side ----------------------------------------------------------------

    def subscribe(
        self, player: Player | None, since: int | None, audience: Audience | None
    ) -> Subscriber:
        """Attach a socket. Its first message is the missed events since ``since`` with the
        view, or the full state (lila-ws resync)."""
        state = self.actor.state
        audience = audience_for(state, player, audience)
        sub = Subscriber(audience, player, self._queue_limit)
        self.subscribers.append(sub)
        missed = self.history.since(since) if since is not None else None
        if missed is None:
            sub.offer(self.state_text(audience))
        else:
            sub.offer(self._update(state, audience, missed))
        self._broadcast_presence()
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        if sub in self.subscribers:
            self.subscribers.remove(sub)
            self._broadcast_presence()

    def presence(self) -> Presence:
        flags = [False, False]
        state = self.actor.state
        spectators = 0
        for sub in self.subscribers:
            if sub.dropped:
                continue
            if sub.audience is Audience.SPECTATOR:
                spectators += 1
            if sub.player is not None:
                for seat in state.seats_of(sub.player.id):
                    flags[seat] = True
        return Presence(BySeat(flags[0], flags[1]), spectators)

    def snapshot_text(self, audience: Audience) -> str:
        state = self.actor.state
        return self.snapshots.snapshot_text(state, audience, self.presence(), self._now())

    def state_text(self, audience: Audience) -> str:
        state = self.actor.state
        log = log_text(self.actor.log, audience)
        return state_message(state.version, self.snapshot_text(audience), log)

    def _update(self, state: MatchState, audience: Audience, frames: list[VersionFrames]) -> str:
        return update_message(
            state.version, events_text(frames, audience), self.snapshot_text(audience)
        )

    def _broadcast_presence(self) -> None:
        message = presence_message(self.actor.version, self.presence())
        for sub in self.subscribers:
            sub.offer(message)

    def _now(self) -> int:
        return self._rooms.now_ms()


class Rooms:
    """The rooms of the live matches that have sockets, by match id."""

    def __init__(self, now_ms: MsSource, resend_limit: int, queue_limit: int) -> None:
        self.now_ms = now_ms
        self._resend_limit = resend_limit
        self._queue_limit = queue_limit
        self._rooms: dict[str, Room] = {}

    def room(self, actor: MatchActor) -> Room:
        room = self._rooms.get(actor.id)
        if room is None or room.actor is not actor:
            room = self._rooms[actor.id] = Room(actor, self, self._resend_limit, self._queue_limit)
        return room

    def forget(self, room: Room) -> None:
        if self._rooms.get(room.actor.id) is room:
            del self._rooms[room.actor.id]

    def state_text(self, match: MatchActor | Rebuilt, audience: Audience) -> str:
        """A ``state`` message for ``audience``: a live match's from its room, an ended one's
        (re-run from its record, nobody connected) built here."""
        if isinstance(match, MatchActor):
            return self.room(match).state_text(audience)
        snapshot = SnapshotCache(match.id).snapshot_text(
            match.state, audience, NOBODY, self.now_ms()
        )
        return state_message(match.version, snapshot, log_text(match.log, audience))

    def spectators(self, match_id: str) -> int:
        room = self._rooms.get(match_id)
        return room.presence().spectators if room is not None else 0
