"""Frames: the service's typed values turned into the JSON text each audience receives
(PROTOCOL.md "The match object"). The service never encodes; this module does, once per version and
audience.

A ``state`` or ``update`` message carries the receiver's view of the match (``match``): a part
every audience shares, encoded once per version, and the few fields that differ by viewer or by
the moment (the private view, the clock, presence). Events pass through ``views.event_for`` first,
so a hidden tile never reaches a viewer it does not belong to (R2.2, D4). A ``state`` also carries
``log``, every event of the match so far as the receiver may see it, so a reload, a reconnect past
the resend window or a late spectator can draw the whole move list (PROTOCOL.md "state").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Final, NamedTuple

from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.views import PRIVATE_FIELDS, MatchView, event_for, private_view, view_for
from spectacular_bid.service.audience import Audience
from spectacular_bid.service.codec import clock_json, event_json
from spectacular_bid.service.computer import level_of
from spectacular_bid.service.events import (
    DeckCommitted,
    DeckRevealed,
    MatchEvent,
    Ready,
    Revealed,
    SeatTaken,
)
from spectacular_bid.service.ports import MatchStatus
from spectacular_bid.service.rated import will_be_rated
from spectacular_bid.service.ratings import Rating
from spectacular_bid.service.rematches import RematchState
from spectacular_bid.service.standings import NO_STANDING, Standing
from spectacular_bid.service.state import Entry, MatchState
from spectacular_bid.web.json_text import compact
from spectacular_bid.web.view_json import to_json

_VIEWERS: Final[tuple[Seat | None, ...]] = (Seat.FIRST, Seat.SECOND, None)
AUDIENCE_TEXT: Final = {
    Audience.FIRST: 0,
    Audience.SECOND: 1,
    Audience.SPECTATOR: 2,
    Audience.DEVICE: 2,
}
"""Which of a version's encodings each audience reads. A shared device reads a spectator's: the
events it keeps (its move list) are read by both players in turn, so they may hold no hidden
tile; the revealed seat's hand and drawn tile are in the view (R2.2, R7.5)."""
_PUBLIC_VIEW_FIELDS: Final = tuple(
    f.name for f in dataclasses.fields(MatchView) if f.name not in PRIVATE_FIELDS
)
_SERVICE_EVENTS: Final = (SeatTaken, Ready, Revealed, DeckCommitted, DeckRevealed)


class VersionFrames(NamedTuple):
    """One version's events, already encoded for each audience.

    Only strings and ints: CPython's garbage collector stops tracking such tuples, so thousands
    of matches' resend windows add nothing to the full collections that would stall every match.
    """

    version: int
    texts: tuple[str, str, str]
    """The events as comma-separated JSON objects for the first seat, the second, a spectator."""


def viewer_of(state: MatchState, audience: Audience) -> Seat | None:
    """Whose hand ``audience`` sees: its seat, a device's revealed seat, or nobody."""
    if audience is Audience.FIRST:
        return Seat.FIRST
    if audience is Audience.SECOND:
        return Seat.SECOND
    if audience is Audience.DEVICE:
        return state.revealed if state.handover is None else None
    return None


def visible(viewer: Seat | None, event: MatchEvent) -> MatchEvent:
    """``event`` as ``viewer`` may see it; the service's own events are public."""
    return event if isinstance(event, _SERVICE_EVENTS) else event_for(viewer, event)


def _events_text(version: int, events: Iterable[MatchEvent], viewer: Seat | None) -> str:
    return ",".join(compact({"version": version, **event_json(visible(viewer, e))}) for e in events)


def version_frames(entry: Entry) -> VersionFrames:
    """Filter a version's events for each audience (R2.2, D4) and encode them once."""
    first, second, spectator = (_events_text(entry.version, entry.events, v) for v in _VIEWERS)
    # Most versions show everyone the same (a play, a bid): keep one text, not three equal
    # ones, in every resend window (about 0.7 KiB a version).
    if second == first:
        second = first
    if spectator == first:
        spectator = first
    elif spectator == second:
        spectator = second
    return VersionFrames(entry.version, (first, second, spectator))


def events_text(frames: Iterable[VersionFrames], audience: Audience) -> str:
    index = AUDIENCE_TEXT[audience]
    return ",".join(text for f in frames if (text := f.texts[index]))


def log_text(log: Iterable[Entry], audience: Audience) -> str:
    """Every event of the match so far as ``audience`` sees it (the move list)."""
    viewer = _VIEWERS[AUDIENCE_TEXT[audience]]
    return ",".join(
        text for entry in log if (text := _events_text(entry.version, entry.events, viewer))
    )


class Presence(NamedTuple):
    online: BySeat[bool]
    spectators: int


class SnapshotCache:
    """The shared part of one match's snapshot, encoded once per version."""

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self._cached: tuple[int, str] | None = None
        self._ratings: tuple[Standing, tuple[dict[str, object], dict[str, object]]] | None = None

    def shared_text(self, state: MatchState) -> str:
        cached = self._cached
        if cached is not None and cached[0] == state.version:
            return cached[1]
        public = view_for(state.match, None)
        shared: dict[str, object] = {
            "id": self.match_id,
            "mode": state.mode.value,
            "status": state.status.value,
            "bot_level": level_of(second.id) if (second := state.seats[1]) else None,
        }
        for name in _PUBLIC_VIEW_FIELDS:
            shared[name] = to_json(getattr(public, name))
        shared.update(
            {
                "handover": str(state.handover) if state.handover is not None else None,
                "ready": {"first": Seat.FIRST in state.ready, "second": Seat.SECOND in state.ready},
                "start_deadline_ms": state.start_deadline_ms,
                "join_deadline_ms": state.join_deadline_ms,
                "first_decision_deadline_ms": state.first_decision_deadline_ms(),
                "join_timeout_ms": waiting_for(state),
                "deck_commitment": _event_or_none(state.commitment),
                "deck_reveal": _event_or_none(state.reveal),
            }
        )
        text = compact(shared)[1:-1]
        self._cached = (state.version, text)
        return text

    def seat_ratings(self, standing: Standing) -> tuple[dict[str, object], dict[str, object]]:
        """Each seat's ``rating`` and ``rating_change``, encoded once per standing."""
        cached = self._ratings
        if cached is not None and cached[0] is standing:
            return cached[1]
        changes = standing.changes
        encoded = tuple(
            {
                "rating": _rating_json(standing.ratings[i]),
                "rating_change": None if changes is None else round(changes[i], 2),
            }
            for i in (0, 1)
        )
        pair = (encoded[0], encoded[1])
        self._ratings = (standing, pair)
        return pair

    def snapshot_text(
        self,
        state: MatchState,
        audience: Audience,
        presence: Presence,
        now_ms: int,
        standing: Standing = NO_STANDING,
    ) -> str:
        """The ``match`` object for ``audience`` (PROTOCOL.md "The WebSocket"), as JSON text, with
        the players' ratings of ``standing`` (``service.standings``)."""
        private = private_view(state.match, viewer_of(state, audience))
        ratings = self.seat_ratings(standing)
        players = [
            None
            if p is None
            else {"name": state.seat_name(i), "online": presence.online[i], **ratings[i]}
            for i, p in enumerate(state.seats)
        ]
        clock = state.reading(now_ms)  # an ended match's clocks stand as they were left
        # Rated: while it is played, if it ends with a result (the policy of service.rated);
        # once it ended, if its ratings moved.
        if state.is_live:
            rated = will_be_rated(state.mode, state.seats, state.settings.clock)
        else:
            rated = standing.changes is not None
        fresh = {
            "audience": audience.value,
            "rated": rated,
            "players": {"first": players[0], "second": players[1]},
            "spectators": presence.spectators,
            "clock": clock_json(clock),
            **to_json(private),
        }
        fresh_text = compact(fresh)
        return f"{fresh_text[:-1]},{self.shared_text(state)}}}"


def _rating_json(rating: Rating | None) -> object:
    if rating is None:
        return None
    return {"value": round(rating.value, 2), "provisional": rating.is_provisional}


def waiting_for(state: MatchState) -> int | None:
    """D3: while a match waits for its second player, how long it stays open once its creator
    has left (its page tells the creator)."""
    return state.settings.join_timeout_ms if state.status is MatchStatus.WAITING else None


def _event_or_none(event: MatchEvent | None) -> object:
    return None if event is None else event_json(event)


def state_message(version: int, snapshot: str, log: str) -> str:
    return f'{{"type":"state","version":{version},"match":{snapshot},"log":[{log}]}}'


def update_message(version: int, events: str, snapshot: str) -> str:
    return f'{{"type":"update","version":{version},"events":[{events}],"match":{snapshot}}}'


def presence_message(version: int, presence: Presence) -> str:
    online = presence.online
    return compact(
        {
            "type": "presence",
            "version": version,
            "online": {"first": online.first, "second": online.second},
            "spectators": presence.spectators,
        }
    )


def rematch_message(version: int, state: RematchState) -> str:
    """The ``rematch`` message of an ended match (PROTOCOL.md "rematch")."""
    by = state.offered_by
    return compact(
        {
            "type": "rematch",
            "version": version,
            "offered_by": str(by) if by is not None else None,
            "expires_in_ms": state.expires_in_ms,
            "match_id": state.next_id,
        }
    )
