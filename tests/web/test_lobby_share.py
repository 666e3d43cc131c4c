"""A process's share of the lobby (docs/PROTOCOL.md "Several servers on one database"): every
field of each open and live line, and its spectators, as the other processes read it; ended
matches are no process's to share (every process reads them from the database)."""

from __future__ import annotations

import dataclasses
import json

from spectacular_bid.service.listings import MatchSummary
from spectacular_bid.service.periodic import TaskHealth
from spectacular_bid.web.shared_lobby import SharedLobby


class Service:
    def __init__(self, lines: tuple[list[MatchSummary], ...]) -> None:
        self.lines = lines
        self.tasks = TaskHealth()

    def open_challenges(self) -> list[MatchSummary]:
        return self.lines[0]

    def live_matches(self) -> list[MatchSummary]:
        return self.lines[1]


class Rooms:
    def spectators(self, match_id: str) -> int:
        return len(match_id)


def summary(match_id: str, **changes: object) -> MatchSummary:
    line = MatchSummary(
        id=match_id,
        mode="invite",
        status="active",
        first="Ann",
        second="Bö 🎲",
        round_number=3,
        created_at_ms=1_700_000_000_000,
        bank_ms=120_000,
        delay_ms=10_000,
    )
    return dataclasses.replace(line, **changes)  # type: ignore[arg-type]


def test_a_share_carries_every_field_of_every_line_and_its_spectators() -> None:
    lines = (
        [summary("open1", status="waiting", second=None, second_handle=None)],
        [summary("live1", first_id="acc-1", first_handle="ann"), summary("live22", bot_level=2)],
    )
    lobby = SharedLobby(None, "me", Service(lines), Rooms())  # type: ignore[arg-type]
    share = json.loads(lobby.share_text())
    expected = {
        kind: [{**dataclasses.asdict(s), "spectators": len(s.id)} for s in kind_lines]
        for kind, kind_lines in zip(("open", "live"), lines, strict=True)
    }
    assert share == expected
