"""Invitations made back (D3): the friend who came to an invitation after it expired invites its
creator back, and the creator finds the new invitation in the lobby.

An invitation stays open while its creator has it open and for the join timeout after they left
(D3); a friend who comes later still finds it ended with its second seat empty. Rather than the
replay of an empty match they are offered a way forward in one request
(:meth:`~spectacular_bid.service.matches.MatchService.again`): a new invitation of theirs with
the same time control, whose link they send, and which this registry lists to the expired
invitation's creator (as the rematches offered from the archive are, ``service.rematches``) —
or an open challenge. A listed invitation is only an intent: it is shown while its match is
still waiting for its second player, and forgotten once it is not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spectacular_bid.clock import ClockSettings
from spectacular_bid.service.ports import Player


@dataclass(frozen=True, slots=True)
class InvitationBack:
    """A new invitation made by ``by`` to the creator of the one that expired before they came."""

    match_id: str
    """The new invitation, waiting for its second player."""
    by: Player
    to: str
    """The player id of the expired invitation's creator."""
    clock: ClockSettings


class Invitations:
    """The invitations made back that may still be waiting, by the new match's id."""

    def __init__(self) -> None:
        self._made: dict[str, InvitationBack] = {}

    def __len__(self) -> int:
        return len(self._made)

    def add(self, invitation: InvitationBack) -> None:
        self._made[invitation.match_id] = invitation

    def to(self, player_id: str, is_waiting: Callable[[str], bool]) -> list[InvitationBack]:
        """The invitations made back to ``player_id`` whose match still waits, newest first;
        those that no longer wait (joined, expired, gone from memory) are dropped."""
        for match_id in [m for m in self._made if not is_waiting(m)]:
            del self._made[match_id]
        return [i for i in reversed(self._made.values()) if i.to == player_id]
