"""Who has a match open, and the timers that depend on it (D3, D8).

The match machine knows nothing of sockets: a match waiting for its second player keeps only
the earliest time its join timeout may end it (``MatchState.join_deadline_ms``). Who is there
is the web layer's knowledge — a socket of a player on the match, on this server process or,
through the relay, on another (``web/room.py`` counts them all) — and it tells the match's actor
when a player's first socket opens and its last closes. From that the actor arms:

- the join timeout (D3), held while the creator of a waiting match has it open, and armed for
  the join timeout after the creator's last socket closed, never before the machine's lower
  bound;
- the abandon timeout (D8) of a live shared-device match, armed while its player has no socket
  on it: then the match ends aborted, through the machine.

A spectator does not hold a match open: only a seated player can play it. The times are the
server's monotonic ms. When the actor starts timing a match (created here, or resumed after a
hand-over, ``service.handover``), nobody is there yet: absence counts from then, and the
sockets that were there reconnect within seconds and are counted again.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from spectacular_bid.service.ports import MatchMode, MatchStatus
from spectacular_bid.service.state import MatchState, Timers


@dataclass(frozen=True, slots=True)
class Attendance:
    """Who of a match's players has it open, and since when its seated players have all been
    away."""

    since_ms: int
    """When this server began to time the match: absence counts from here at the least."""
    here: frozenset[str] = frozenset()
    """The ids of the players with a socket on the match (seated or not)."""
    left_ms: dict[str, int] = field(default_factory=dict)
    """When each seated player's last socket closed (only players seated when they left)."""

    def arrived(self, player_id: str) -> Attendance:
        return replace(self, here=self.here | {player_id})

    def left(self, player_id: str, now_ms: int, state: MatchState) -> Attendance:
        """``player_id``'s last socket closed at ``now_ms``; kept only for a seated player."""
        left_ms = self.left_ms
        if state.seats_of(player_id):
            left_ms = {**left_ms, player_id: now_ms}
        return replace(self, here=self.here - {player_id}, left_ms=left_ms)

    def seated_here(self, state: MatchState) -> bool:
        return any(p is not None and p.id in self.here for p in state.seats)

    def away_since_ms(self, state: MatchState) -> int:
        """Since when no seated player has had the match open (meaningful while none has)."""
        left = [self.left_ms.get(p.id, self.since_ms) for p in state.seats if p is not None]
        return max([self.since_ms, *left])


def attended(due: Timers, state: MatchState, attendance: Attendance, abandon_ms: int) -> Timers:
    """The machine's timers made to wait for people: the join timeout held while the creator is
    there (D3), and the abandon timeout of a shared device nobody has open (D8)."""
    if state.suspended_ms is not None or not state.is_live:
        return due
    present = attendance.seated_here(state)
    join_ms = due.join_ms
    if join_ms is not None and state.status is MatchStatus.WAITING:
        away_ms = attendance.away_since_ms(state) + state.settings.join_timeout_ms
        join_ms = None if present else max(join_ms, away_ms)
    abandon = None
    if state.mode is MatchMode.SHARED and not present:
        abandon = attendance.away_since_ms(state) + abandon_ms
    return replace(due, join_ms=join_ms, abandon_ms=abandon)
