"""The lines that list matches: a live one (the lobby), an ended one (the archive), and an
ended one with the ratings it moved (the lobby's finished list).

Each is what a list needs and nothing of the match's state, so a list never holds a match.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from spectacular_bid.service.computer import level_of
from spectacular_bid.service.ports import (
    MatchRecord,
    Player,
    PlayerRecord,
    RatingChange,
    SeatedMatch,
)
from spectacular_bid.service.seat_names import names_in


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """A lobby line: enough to list a match without its state."""

    id: str
    mode: str
    status: str
    first: str | None
    second: str | None
    round_number: int
    created_at_ms: int
    bank_ms: int
    """The match's time control (R7.1, R7.2), which the lobby shows with each challenge."""
    delay_ms: int
    first_id: str | None = None
    """The first seat's player when it is an account (the lobby shows its rating); None for a
    guest."""
    first_handle: str | None = None
    """What names each seat's player in its profile's address (:func:`profile_handle`)."""
    second_handle: str | None = None
    ended_at_ms: int | None = None
    """Wall ms of the match's end; None while it is live."""
    bot_level: int | None = None
    """The level of the computer in the second seat; None against a person (PROTOCOL.md "POST
    /api/matches")."""


@dataclass(frozen=True, slots=True)
class EndedMatch:
    """A line of the list of ended matches."""

    id: str
    mode: str
    status: str
    first: str | None
    second: str | None
    first_handle: str | None
    """What names the first seat's player in its profile's address (:func:`profile_handle`)."""
    second_handle: str | None
    winner: str | None
    reason: str | None
    rated: bool
    imported: bool
    created_at_ms: int
    ended_at_ms: int
    bot_level: int | None = None
    """The level of the computer in the second seat; None against a person (PROTOCOL.md "POST
    /api/matches")."""
    first_change: float | None = None
    """A rated match's change to the first seat's rating (after less before, as stored with
    its end); None for an unrated match."""
    second_change: float | None = None

    @property
    def cursor(self) -> tuple[int, str]:
        return self.ended_at_ms, self.id

    @classmethod
    def of(
        cls,
        header: MatchRecord,
        players: dict[str, PlayerRecord],
        changes: dict[tuple[str, str], float] | None = None,
    ) -> EndedMatch:
        """The line of ``header``; ``changes`` holds rating changes by (match id, player id)
        (:func:`changes_by_match`)."""

        def name(player_id: str | None) -> str | None:
            record = players.get(player_id) if player_id is not None else None
            return record.name if record is not None else None

        def handle(player_id: str | None) -> str | None:
            record = players.get(player_id) if player_id is not None else None
            return profile_handle(record) if record is not None else None

        settings = header.settings if isinstance(header.settings, dict) else {}
        typed = names_in(settings)  # a shared device's two players
        return cls(
            id=header.id,
            mode=header.mode.value,
            status=header.status.value,
            first=typed[0] if typed else name(header.first_player),
            second=typed[1] if typed else name(header.second_player),
            first_handle=handle(header.first_player),
            second_handle=handle(header.second_player),
            winner=header.winner,
            reason=header.reason,
            rated=header.rated,
            imported=bool(settings.get("imported", False)),
            created_at_ms=header.created_at_ms,
            ended_at_ms=header.ended_at_ms or 0,
            bot_level=level_of(header.second_player),
            first_change=_change(changes, header.id, header.first_player),
            second_change=_change(changes, header.id, header.second_player),
        )


def changes_by_match(changes: Iterable[RatingChange]) -> dict[tuple[str, str], float]:
    """Each stored rating change's amount (after less before), by match and player."""
    return {(c.match_id, c.player_id): c.after.value - c.before.value for c in changes}


def _change(
    changes: dict[tuple[str, str], float] | None, match_id: str, player_id: str | None
) -> float | None:
    if changes is None or player_id is None:
        return None
    return changes.get((match_id, player_id))


@dataclass(frozen=True, slots=True)
class FinishedLine:
    """A line of the lobby's finished list: the ended match and, for a rated one, each seat's
    stored rating change (None for a guest's seat, a casual match, an aborted one)."""

    match: EndedMatch
    first_change: RatingChange | None
    second_change: RatingChange | None

    @classmethod
    def of(cls, seated: SeatedMatch, changes: dict[tuple[str, str], RatingChange]) -> FinishedLine:
        """The line of ``seated``, its changes found in ``changes`` by (match, player)."""
        header = seated.match
        players = {p.id: p for p in (seated.first, seated.second) if p is not None}

        def change(player_id: str | None) -> RatingChange | None:
            return None if player_id is None else changes.get((header.id, player_id))

        return cls(
            EndedMatch.of(header, players),
            change(header.first_player),
            change(header.second_player),
        )


def profile_handle(player: PlayerRecord | Player) -> str:
    """How a profile's address names its player: an account by its name, unique; a guest, whose
    name others may share, by its id (PROTOCOL.md "Players: profiles, ratings and archives")."""
    account = player.is_account if isinstance(player, PlayerRecord) else player.account
    return player.name if account else player.id
